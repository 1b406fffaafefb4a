"""Reliability fixtures: one uvicorn server on the test database, and after the whole suite
a consistency sweep over every match it left behind (log replays to the stored snapshot)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from tests.reliability.support import Actor, check_consistency, new_actor
from tests.support.server import Server


@pytest.fixture(scope="session")
def rel_server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server process shared by the reliability tests that do not kill or restart anything."""
    with Server(database_url, tmp_path_factory.mktemp("rel-server")) as running:
        yield running


@pytest.fixture
async def actors(rel_server: Server, database_url: str) -> AsyncIterator[list[Actor]]:
    """Five registered, logged-in users on ``rel_server`` (closed afterwards)."""
    made = [await new_actor(rel_server.base_url, database_url) for _ in range(5)]
    yield made
    for actor in made:
        await actor.aclose()


@pytest.fixture(scope="session", autouse=True)
def final_consistency_sweep(database_url: str) -> Iterator[None]:
    """After the run: every match in the test database rebuilds from its log to its snapshot."""
    yield
    import asyncio

    asyncio.run(check_consistency(database_url))
