"""Issue 19.5 over real HTTP: per-user limits answer 429 with ``Retry-After`` and a reason the
pages show in the reader's language; the lists a user can grow come a page at a time."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import httpx
import pytest

from app.services import lobby, play, profiles
from tests.support.client import ApiUser, register
from tests.support.server import Server

LIMITS = {
    "DRACHENHORT_OPEN_TABLES_PER_USER": "2",
    "DRACHENHORT_BOT_MATCHES_PER_USER": "1",
    "DRACHENHORT_INVITATIONS_PER_HOUR": "2",
    "DRACHENHORT_CHAT_LINES_PER_MINUTE": "3",
}

MakeUser = Callable[..., Awaitable[ApiUser]]


@pytest.fixture(scope="module")
def limited_server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(database_url, tmp_path_factory.mktemp("limits"), env=LIMITS) as running:
        yield running


@pytest.fixture
async def user(limited_server: Server) -> AsyncIterator[MakeUser]:
    made: list[ApiUser] = []

    async def make(locale: str = "en") -> ApiUser:
        made.append(await register(limited_server.base_url, locale=locale))
        return made[-1]

    yield make
    for one in made:
        await one.aclose()


def _table(invite: tuple[str, ...] = (), bots: str | None = None) -> dict[str, object]:
    return {"game": "toy", "seats": 3, "invite": list(invite), "bots": bots, "fixed_order": True}


def _refused(answer: httpx.Response, reason: str, *, at_most: int) -> None:
    assert answer.status_code == 429, answer.text
    assert 1 <= int(answer.headers["retry-after"]) <= at_most
    assert reason in answer.text


async def test_open_tables_and_bot_matches_are_limited_with_429_and_retry_after(user: MakeUser) -> None:
    alice, bob = await user(), await user()
    for _ in range(2):
        assert (await alice.post("/api/matches", _table())).status_code == 201
    _refused(await alice.post("/api/matches", _table()), "too many open tables", at_most=3600)
    assert (await bob.post("/api/matches", _table())).status_code == 201, "bob has his own limit"

    bots = {"game": "felsental", "seats": 2, "bots": "easy"}
    assert (await bob.post("/api/matches", bots)).status_code == 201
    _refused(await bob.post("/api/matches", bots), "against the computer", at_most=3600)
    mine = (await bob.get("/api/me/matches")).json()
    assert sum(1 for m in mine["waiting"] + mine["your_turn"] if m["game"] == "felsental") == 1


async def test_invitations_are_limited_per_hour(user: MakeUser) -> None:
    alice, victim, carol = await user(), await user(), await user()
    assert (await alice.post("/api/matches", _table((victim.name, carol.name)))).status_code == 201
    _refused(await alice.post("/api/matches", _table((victim.name,))), "too many invitations", at_most=3600)
    notes = (await victim.get("/api/me/notifications")).json()
    assert [n["kind"] for n in notes] == ["invited"], "one invitation, not two"


async def test_chat_is_limited_per_minute_and_read_a_page_at_a_time(user: MakeUser) -> None:
    alice, bob = await user(), await user()
    created = await alice.post("/api/matches", {"game": "toy", "seats": 2, "fixed_order": True})
    match_id = created.json()["id"]
    assert (await bob.post(f"/api/matches/{match_id}/join", {})).status_code == 204
    for n in range(3):
        sent = await alice.post(f"/api/matches/{match_id}/messages", {"text": f"line {n}"})
        assert sent.status_code == 201, sent.text
    _refused(
        await alice.post(f"/api/matches/{match_id}/messages", {"text": "x"}), "writing too fast", at_most=60
    )
    newest = (await bob.get(f"/api/matches/{match_id}/messages")).json()
    assert [m["text"] for m in newest] == ["line 0", "line 1", "line 2"]
    earlier = await bob.get(f"/api/matches/{match_id}/messages", params={"before": newest[1]["id"]})
    assert [m["text"] for m in earlier.json()] == ["line 0"]


async def test_the_pages_say_why_in_the_readers_language(user: MakeUser) -> None:
    """A refused table (a form) answers a 429 page, a refused chat line (htmx) a flash, in German."""
    anna = await user(locale="de")
    form = {"game": "toy", "seats": "3", "csrf_token": anna.csrf}
    for _ in range(2):
        made = await anna.client.post("/matches", data=form)
        assert made.status_code == 303, made.text
    page = await anna.client.post("/matches", data=form)
    assert page.status_code == 429 and "retry-after" in page.headers
    assert "Du hast zu viele offene Tische" in page.text

    bert = await user(locale="de")
    created = await anna.post("/api/matches", {"game": "toy", "seats": 2, "invite": [bert.name]})
    assert created.status_code == 429  # still two open tables: she cancels one first
    tables = (await anna.get("/api/me/matches")).json()["waiting"]
    assert (await anna.post(f"/api/matches/{tables[0]['id']}/cancel", {})).status_code == 204
    created = await anna.post("/api/matches", {"game": "toy", "seats": 2, "invite": [bert.name]})
    match_id = created.json()["id"]
    assert (await bert.post(f"/api/matches/{match_id}/join", {})).status_code == 204
    htmx = {"HX-Request": "true", "X-CSRF-Token": bert.csrf}
    for n in range(3):
        line = await bert.client.post(f"/matches/{match_id}/chat", data={"text": f"Zeile {n}"}, headers=htmx)
        assert line.status_code == 200, line.text
    flash = await bert.client.post(f"/matches/{match_id}/chat", data={"text": "zu viel"}, headers=htmx)
    assert flash.status_code == 429 and flash.headers["hx-retarget"] == "#flash"
    assert "Du schreibst zu schnell" in flash.text


async def test_the_lobby_a_bots_profile_and_the_chat_come_in_pages(
    user: MakeUser, limited_server: Server
) -> None:
    anonymous = await user()
    lobby_page = await anonymous.client.get("/", params={"page": 2})
    assert lobby_page.status_code == 200
    assert (await anonymous.client.get("/", params={"page": 0})).status_code == 422
    bot = (await anonymous.get("/api/users/Bot easy 1")).json()
    assert len(bot["running"]) <= profiles.PROFILE_PAGE and len(bot["finished"]) <= profiles.PROFILE_PAGE
    assert {"running_page", "running_more", "finished_page", "finished_more"} <= set(bot)
    later = await anonymous.client.get("/api/users/Bot easy 1", params={"running_page": 2})
    assert later.status_code == 200 and later.json()["running_page"] == 2
    page = await anonymous.client.get("/users/Bot easy 1", params={"finished_page": 2})
    assert page.status_code == 200
    assert lobby.OPEN_PAGE and play.CHAT_PAGE  # the page sizes are the services' own


async def test_a_rematch_of_a_bot_match_is_a_match_not_a_422(user: MakeUser) -> None:
    alice = await user()
    created = await alice.post("/api/matches", {"game": "felsental", "seats": 2, "bots": "easy"})
    match_id = created.json()["id"]
    # The bot may move at that very moment (409 "changed at the same moment"): ask again.
    for _ in range(20):
        resigned = await alice.post(f"/api/matches/{match_id}/resign", {})
        if resigned.status_code != 409:
            break
    assert resigned.status_code == 200, resigned.text
    rematch = await alice.post(f"/api/matches/{match_id}/rematch", {})
    assert rematch.status_code == 201, rematch.text
    assert rematch.json()["status"] == "active"
