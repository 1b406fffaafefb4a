"""Live nudges: in-process fan-out, and LISTEN/NOTIFY across engines on PostgreSQL."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.matches import VERSION_SPAN
from app.db.session import asyncpg_dsn
from app.db.store import store_of
from app.services import live, play
from app.services._rows import MAX_ID
from app.services.live import Broker, Nudge
from tests.conftest import MakeUser
from tests.support.db import new_request_id, start_toy_match, uses_postgres


async def test_in_process_publish_and_subscribe() -> None:
    broker = await Broker.start(install=False)
    assert not broker.is_distributed
    async with broker.subscribe_match(42) as match_news, broker.subscribe_user(7) as user_news:
        other = broker.subscribe_match(43)
        await broker.publish_match(42, 17)
        await broker.publish_user(7)
        assert await match_news.get(timeout=1) == Nudge("match", 42, 17)
        assert await user_news.get(timeout=1) == Nudge("user", 7)
        with pytest.raises(TimeoutError):
            await other.get(timeout=0.05)
        await other.aclose()
    await broker.stop()


def test_nudges_encode_and_decode_with_their_origin() -> None:
    for nudge in (
        Nudge("match", 3, 9, 17),
        Nudge("match", 3, 9),
        Nudge("user", 5),
        Nudge("user", 5, cause=3),
        Nudge("account", 2),
    ):
        assert Nudge.decode(nudge.encode("p1")) == (nudge, "p1")
    assert Nudge.decode("garbage") is None and Nudge.decode("view:1:2::") is None


async def test_one_payload_carries_a_commits_nudges_to_the_other_processes_only() -> None:
    here, there = Broker(), Broker()
    news = [Nudge("match", 4, 2000, 17), Nudge("user", 5, cause=4), Nudge("user", 6, cause=4)]
    payload = here.payload(news)
    subscriptions = [there.subscribe(("match", 4)), there.subscribe(("user", 5), ("user", 6))]
    mine = here.subscribe(("match", 4))
    there._on_notify(None, 0, "drachenhort", payload)
    here._on_notify(None, 0, "drachenhort", payload)  # its own echo: delivered when published
    assert [await subscriptions[0].get(timeout=1)] == news[:1]
    assert [await subscriptions[1].get(timeout=1), await subscriptions[1].get(timeout=1)] == news[1:]
    with pytest.raises(TimeoutError):
        await mine.get(timeout=0.05)


async def test_a_committed_move_nudges_viewers_but_a_pending_one_does_not(
    db: AsyncSession, make_user: MakeUser
) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    start = await play.get_match(db, match_id=match_id, viewer_id=alice.id, locale="en")
    async with live.subscribe_match(match_id) as news, live.subscribe_user(bob.id) as bobs:
        played = await play.submit_move(
            db,
            match_id=match_id,
            user_id=alice.id,
            move=start.legal[0],
            expected_version=start.version,
            request_id=new_request_id(),
            locale="en",
        )
        with pytest.raises(TimeoutError):
            await news.get(timeout=0.1)  # a pending decision is private: no nudge, no timing leak
        done = await play.confirm_turn(
            db,
            match_id=match_id,
            user_id=alice.id,
            expected_version=played.version,
            request_id=new_request_id(),
            locale="en",
        )
        # News carries the public count and the seq the commit logged after (pushes send only
        # the newer lines).
        assert await news.get(timeout=1) == Nudge("match", match_id, done.version // VERSION_SPAN, 0)
        assert await bobs.get(timeout=1) == Nudge("user", bob.id, cause=match_id)


@pytest.mark.postgres_only
@pytest.mark.skipif(not uses_postgres(), reason="LISTEN/NOTIFY needs PostgreSQL (TEST_DATABASE_URL)")
async def test_postgres_carries_nudges_between_processes(database_url: str) -> None:
    """Two brokers stand for two workers: each has its own LISTEN connection."""
    sender = await Broker.start(database_url=database_url, install=False)
    receiver = await Broker.start(database_url=database_url, install=False)
    try:
        assert sender.is_distributed and sender.is_listening and receiver.is_listening
        async with receiver.subscribe_match(5) as there, sender.subscribe_match(5) as here:
            await sender.publish_match(5, 2)
            assert await there.get(timeout=5) == Nudge("match", 5, 2)
            assert await here.get(timeout=5) == Nudge("match", 5, 2)  # once, via the database
            with pytest.raises(TimeoutError):
                await here.get(timeout=0.2)
        async with receiver.subscribe_user(9) as user_news:
            await sender.publish_user(9)
            assert await user_news.get(timeout=5) == Nudge("user", 9)
    finally:
        await sender.stop()
        await receiver.stop()


@pytest.mark.postgres_only
@pytest.mark.skipif(not uses_postgres(), reason="LISTEN/NOTIFY needs PostgreSQL (TEST_DATABASE_URL)")
async def test_listener_reconnects_after_losing_its_connection(database_url: str) -> None:
    sender = await Broker.start(database_url=database_url, install=False)
    receiver = await Broker.start(database_url=database_url, install=False)
    try:
        connection = receiver._connection
        assert connection is not None
        # As when PostgreSQL restarts or an administrator kills the session.
        admin = await asyncpg.connect(asyncpg_dsn(database_url))
        try:
            await admin.execute("SELECT pg_terminate_backend($1)", connection.get_server_pid())
        finally:
            await admin.close()
        for _ in range(100):
            if receiver.is_listening and receiver._connection is not connection:
                break
            await asyncio.sleep(0.05)
        assert receiver.is_listening
        async with receiver.subscribe_match(6) as news:
            await sender.publish_match(6, 1)
            assert await news.get(timeout=5) == Nudge("match", 6, 1)
    finally:
        await sender.stop()
        await receiver.stop()


async def _commit_unheard(db: AsyncSession, match_id: int, user_id: int) -> int:
    """A whole turn committed through the services: its news reaches only the process's
    in-process broker, never the brokers the tests made (as if its NOTIFY was lost)."""
    start = await play.get_match(db, match_id=match_id, viewer_id=user_id, locale="en")
    played = await play.submit_move(
        db,
        match_id=match_id,
        user_id=user_id,
        move=start.legal[0],
        expected_version=start.version,
        request_id=new_request_id(),
        locale="en",
    )
    done = await play.confirm_turn(
        db,
        match_id=match_id,
        user_id=user_id,
        expected_version=played.version,
        request_id=new_request_id(),
        locale="en",
    )
    return done.version // VERSION_SPAN


async def test_catching_up_tells_watchers_of_a_commit_their_news_missed_once(
    db: AsyncSession, make_user: MakeUser
) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    broker = Broker()
    broker.catch_up_from(store_of(db).versions, every=None)  # by hand here
    try:
        async with broker.subscribe_match(match_id) as news, broker.subscribe_match(MAX_ID) as nothing:
            # A newly watched match is told its version once (its streams drop it if they show
            # it), when a second read still finds no news of it.
            assert await broker.catch_up() == 0
            assert await broker.catch_up() == 1
            first = await news.get(timeout=1)
            assert first.caught_up and first.version is not None
            assert await broker.catch_up() == 0
            committed = await _commit_unheard(db, match_id, alice.id)
            assert committed > first.version
            assert await broker.catch_up() == 0  # its news may be on its way
            assert await broker.catch_up() == 1
            assert await news.get(timeout=1) == Nudge("match", match_id, committed)
            assert await broker.catch_up() == 0
            # News that arrives between two reads leaves nothing to catch up.
            committed = await _commit_unheard(db, match_id, bob.id)
            assert await broker.catch_up() == 0
            await broker.publish_match(match_id, committed)
            assert (await news.get(timeout=1)).caught_up is False
            assert await broker.catch_up() == 0
            assert await broker.catch_up() == 0
            with pytest.raises(TimeoutError):
                await nothing.get(timeout=0.05)  # a match that does not exist tells nothing
    finally:
        await broker.stop()


@pytest.mark.postgres_only
@pytest.mark.skipif(not uses_postgres(), reason="LISTEN/NOTIFY needs PostgreSQL (TEST_DATABASE_URL)")
async def test_a_reconnected_listener_catches_up_at_once(
    database_url: str, db: AsyncSession, make_user: MakeUser
) -> None:
    """What was committed while the listening connection was down arrives when it is back,
    without waiting for the periodic read (switched off here)."""
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    receiver = await Broker.start(database_url=database_url, install=False)
    receiver.catch_up_from(store_of(db).versions, every=None)
    try:
        async with receiver.subscribe_match(match_id) as news:
            # Committed, its news lost (as if sent while the connection was down), and then
            # the connection is lost too.
            committed = await _commit_unheard(db, match_id, alice.id)
            with pytest.raises(TimeoutError):
                await news.get(timeout=0.2)
            connection = receiver._connection
            assert connection is not None
            admin = await asyncpg.connect(asyncpg_dsn(database_url))
            try:
                await admin.execute("SELECT pg_terminate_backend($1)", connection.get_server_pid())
            finally:
                await admin.close()
            caught = await news.get(timeout=10)
            assert caught == Nudge("match", match_id, committed) and caught.caught_up
            assert receiver.is_listening and receiver._connection is not connection
    finally:
        await receiver.stop()
