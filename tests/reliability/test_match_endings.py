"""Two requests that end (or change) one match at the same moment (issue 19, finding 8).

A draw accepted while the other player resigned deadlocked on PostgreSQL and answered 500:
the two took the match row and its control row in opposite orders. Every path that ends a
match now takes the match row first. Here two real HTTP requests hit a real uvicorn with two
worker processes at once, many times over, for each kind of pair: each answers 200 or a 409
with a reason, never a 5xx, and the match ends once, rebuilding from its log. On SQLite this
proves that the writers queue (it has no row locks to deadlock on).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from app.db.accounts import User
from app.db.matches import VERSION_SPAN
from app.db.session import dispose, make_engine, make_sessionmaker
from app.db.types import utcnow
from app.services import clocks
from tests.reliability.support import Actor, check_consistency, new_actor, request_id, start_match
from tests.support.server import Server

ROUNDS = 10
"""Simultaneous pairs per kind (the probe saw 2 to 4 deadlocks in 10)."""
LATE = timedelta(days=20)
"""Beyond a day per move and the 14 vacation days a year: the clock plays for the late seat."""


@pytest.fixture(scope="module")
def two_workers(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(database_url, tmp_path_factory.mktemp("endings"), workers=2) as running:
        yield running


@pytest.fixture
async def pair(two_workers: Server, database_url: str) -> AsyncIterator[tuple[Actor, Actor]]:
    made = (
        await new_actor(two_workers.base_url, database_url),
        await new_actor(two_workers.base_url, database_url),
    )
    yield made
    for actor in made:
        await actor.aclose()


def _answered(*responses: httpx.Response) -> list[int]:
    """The statuses; a refusal says why (409, or 403 for a move whose turn the other request
    took away), never a 5xx."""
    for response in responses:
        assert response.status_code < 500, response.text
        if response.status_code != 200:
            assert response.status_code in (403, 409), response.text
            assert response.json()["detail"], response.text
    return [r.status_code for r in responses]


async def _first_move(actor: Actor, view: dict[str, Any]) -> httpx.Response:
    """The acting seat plays its first legal card (confirming too if nothing else is left)."""
    move = next(m for m in view["legal"] if m != "confirm")
    body = {"move": move, "expected_version": view["version"], "request_id": request_id(), "confirm": True}
    return await actor.post(f"/api/matches/{view['id']}/moves", body)


async def _clock(actor: Actor, match_id: int) -> dict[str, Any]:
    return dict((await actor.get(f"/api/matches/{match_id}/clock")).json())


async def _ended_once(database_url: str, actor: Actor, match_ids: list[int]) -> None:
    for match_id in match_ids:
        view = (await actor.get(f"/api/matches/{match_id}")).json()
        assert view["status"] == "finished", view
    await check_consistency(database_url, match_ids)


async def test_a_draw_accepted_while_the_other_resigns(pair: tuple[Actor, Actor], database_url: str) -> None:
    alice, bob = pair
    ids = []
    for _ in range(ROUNDS):
        view = await start_match([alice, bob], "toy")
        match_id = view["id"]
        ids.append(match_id)
        assert (await alice.post(f"/api/matches/{match_id}/draw", {"action": "offer"})).status_code == 200
        accepted, resigned = await asyncio.gather(
            bob.post(f"/api/matches/{match_id}/draw", {"action": "accept"}),
            alice.post(f"/api/matches/{match_id}/resign"),
        )
        assert sorted(_answered(accepted, resigned)) == [200, 409], "exactly one of them ended the match"
        clock = await _clock(alice, match_id)
        assert clock["conclusion"] == ("draw" if accepted.status_code == 200 else "resigned"), clock
    await _ended_once(database_url, alice, ids)


async def test_both_resign_at_once(pair: tuple[Actor, Actor], database_url: str) -> None:
    alice, bob = pair
    ids = []
    for _ in range(ROUNDS):
        match_id = (await start_match([alice, bob], "toy"))["id"]
        ids.append(match_id)
        first, second = await asyncio.gather(
            alice.post(f"/api/matches/{match_id}/resign"), bob.post(f"/api/matches/{match_id}/resign")
        )
        assert sorted(_answered(first, second)) == [200, 409], "one resignation ends a two-player match"
        clock = await _clock(alice, match_id)
        assert clock["conclusion"] == "resigned" and len(clock["resigned"]) == 1, clock
    await _ended_once(database_url, alice, ids)


async def test_a_draw_accepted_while_the_other_moves(pair: tuple[Actor, Actor], database_url: str) -> None:
    alice, bob = pair
    ids = []
    for _ in range(ROUNDS):
        view = await start_match([alice, bob], "toy")
        match_id = view["id"]
        ids.append(match_id)
        assert (await alice.post(f"/api/matches/{match_id}/draw", {"action": "offer"})).status_code == 200
        view = (await alice.get(f"/api/matches/{match_id}")).json()  # the offer moved the version
        moved, accepted = await asyncio.gather(
            _first_move(alice, view), bob.post(f"/api/matches/{match_id}/draw", {"action": "accept"})
        )
        statuses = _answered(moved, accepted)
        assert statuses[1] == 200, "the offer stands whether the move came first or not"
        assert (await _clock(alice, match_id))["conclusion"] == "draw"
    await _ended_once(database_url, alice, ids)


async def test_the_clock_plays_for_a_seat_while_it_moves(
    pair: tuple[Actor, Actor], database_url: str
) -> None:
    alice, bob = pair
    engine = make_engine(database_url)
    sessionmaker = make_sessionmaker(engine)
    ids = []
    try:
        for _ in range(ROUNDS):
            created = await alice.post(
                "/api/matches", {"game": "toy", "seats": 2, "options": {}, "fixed_order": True}
            )
            match_id = created.json()["id"]
            ids.append(match_id)
            clock = await alice.client.put(
                alice.url(f"/api/matches/{match_id}/clock"),
                json={"days_per_move": 1, "policy": "timeout_move"},
                headers={"X-CSRF-Token": alice.csrf},
            )
            assert clock.status_code == 200, clock.text
            assert (await bob.post(f"/api/matches/{match_id}/join", {})).status_code == 204
            view = (await alice.get(f"/api/matches/{match_id}")).json()
            moved, report = await asyncio.gather(
                _first_move(alice, view), _tick(sessionmaker, utcnow() + LATE)
            )
            # The card stays pending (a turn may play two): the clock commits it with its own
            # move when it comes second, and refuses the card as stale when it came first.
            _answered(moved)
            assert (match_id, 0) in report.played_for or moved.status_code == 200
            await alice.post(f"/api/matches/{match_id}/resign")  # end it for the consistency sweep
    finally:
        await dispose(engine)
    await _ended_once(database_url, alice, ids)


async def _tick(sessionmaker: Any, now: Any) -> clocks.TickReport:
    """One clock round, waiting while a server's own round holds the lock (PostgreSQL)."""
    for _ in range(200):
        report = await clocks.tick(sessionmaker, now=now)
        if not report.locked_out:
            return report
        await asyncio.sleep(0.05)
    raise AssertionError("the clock round never got its lock")


async def test_a_clock_changed_with_the_last_join_is_a_versioned_step(
    pair: tuple[Actor, Actor], database_url: str
) -> None:
    """Issue 19, finding 12: the clock, sent with the last join, changed the started match
    unannounced. Now it lands as its own step before the start (one more version, the table
    told), or is refused once the match has started; never in between."""
    alice, bob = pair
    for _ in range(ROUNDS):
        created = await alice.post(
            "/api/matches", {"game": "toy", "seats": 2, "options": {}, "fixed_order": True}
        )
        match_id = created.json()["id"]
        opened = (await alice.get(f"/api/matches/{match_id}")).json()["version"] // VERSION_SPAN
        clock, joined = await asyncio.gather(
            alice.client.put(
                alice.url(f"/api/matches/{match_id}/clock"),
                json={"days_per_move": 3, "policy": "vote"},
                headers={"X-CSRF-Token": alice.csrf},
            ),
            bob.post(f"/api/matches/{match_id}/join", {}),
        )
        _answered(clock)
        assert joined.status_code in (204, 409), joined.text
        if joined.status_code == 409:  # the clock came first and the join was told to try again
            assert clock.status_code == 200
            assert (await bob.post(f"/api/matches/{match_id}/join", {})).status_code == 204
        view = (await alice.get(f"/api/matches/{match_id}")).json()
        assert view["status"] == "active"
        steps = view["version"] // VERSION_SPAN - opened
        days = (await _clock(alice, match_id))["days_per_move"]
        if clock.status_code == 200:
            assert days == 3 and steps == 3, "clock, join and start: three announced steps"
        else:
            assert days is None and steps == 2, "join and start; the clock was refused"
        await alice.post(f"/api/matches/{match_id}/resign")


async def test_an_administrator_aborts_while_a_player_resigns(
    pair: tuple[Actor, Actor], two_workers: Server, database_url: str
) -> None:
    alice, bob = pair
    host = await new_actor(two_workers.base_url, database_url)
    engine = make_engine(database_url)
    try:
        async with engine.begin() as conn:
            await conn.execute(update(User).where(User.id == host.id).values(is_admin=True))
        ids = []
        for _ in range(ROUNDS):
            match_id = (await start_match([alice, bob], "toy"))["id"]
            ids.append(match_id)
            aborted, resigned = await asyncio.gather(
                host.post(
                    f"/admin/matches/{match_id}/abort", data={"confirmed": "yes"}, follow_redirects=False
                ),
                bob.post(f"/api/matches/{match_id}/resign"),
            )
            assert aborted.status_code in (303, 409), aborted.text  # the page redirects when done
            _answered(resigned)
            assert (aborted.status_code == 303) != (resigned.status_code == 200), "one of them ended it"
    finally:
        await host.aclose()
        await dispose(engine)
    await check_consistency(database_url, ids)
