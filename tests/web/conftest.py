"""Web fixtures: a real uvicorn server on the test database, API users, a started toy match."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.client import ApiUser, log_in, register
from tests.support.server import Server


@pytest.fixture(scope="session")
def server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server process for the whole run (tests that restart a server make their own)."""
    with Server(database_url, tmp_path_factory.mktemp("server")) as running:
        yield running


@pytest.fixture
def server_dir(tmp_path: Path) -> Path:
    return tmp_path / "server"


MakeApiUser = Callable[..., Awaitable[ApiUser]]


_POOL: list[str] = []
"""Names of users registered earlier in the run: logging in costs one argon2 check, a
registration two, and these tests are not about registering."""


@pytest.fixture
async def api_user(server: Server) -> AsyncIterator[MakeApiUser]:
    """Logged-in API users on the shared server (distinct within a test); closed afterwards."""
    made: list[ApiUser] = []

    async def make(locale: str = "en", fresh: bool = False) -> ApiUser:
        taken = {u.name for u in made}
        name = next((n for n in _POOL if n not in taken), None)
        if fresh or locale != "en" or name is None:
            user = await register(server.base_url, locale=locale)
            if not fresh and locale == "en":
                _POOL.append(user.name)
        else:
            user = await log_in(server.base_url, name)
        made.append(user)
        return user

    yield make
    for user in made:
        await user.aclose()


@dataclass
class ToyMatch:
    """A started two-player toy match: ``mover`` acts first, ``other`` waits."""

    id: int
    mover: ApiUser
    other: ApiUser
    view: dict[str, Any]

    @property
    def version(self) -> int:
        return int(self.view["version"])


async def start_toy_match(alice: ApiUser, bob: ApiUser) -> ToyMatch:
    created = await alice.post("/api/matches", {"game": "toy", "seats": 2, "fixed_order": True})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    joined = await bob.post(f"/api/matches/{match_id}/join", {})
    assert joined.status_code == 204, joined.text
    view = (await alice.get(f"/api/matches/{match_id}")).json()
    assert view["status"] == "active", view
    if view["viewer_seat"] in view["to_act"]:
        return ToyMatch(match_id, alice, bob, view)
    return ToyMatch(match_id, bob, alice, (await bob.get(f"/api/matches/{match_id}")).json())


@pytest.fixture
async def toy_match(api_user: MakeApiUser) -> ToyMatch:
    return await start_toy_match(await api_user(), await api_user())


def first_play(view: dict[str, Any]) -> str:
    """A legal non-confirm move of the viewer."""
    return next(m for m in view["legal"] if m != "confirm")
