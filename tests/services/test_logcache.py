"""The per-process log cache: the same lines as the database, read incrementally, never uncommitted."""

from __future__ import annotations

import pytest
from sqlalchemy import event, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import LoggedMove, Match
from app.engine.protocol import Event
from app.services import _logcache, matches
from app.services.schemas import UserOut
from tests.conftest import MakeUser
from tests.support.db import new_request_id, start_toy_match
from tests.support.toygame import TOY


async def _turn(db: AsyncSession, match_id: int, user: UserOut) -> None:
    """Play the first legal card and confirm (two logged decisions)."""
    view = await matches.get_match(db, match_id=match_id, viewer_id=user.id, locale="en")
    played = await matches.submit_move(
        db,
        match_id=match_id,
        user_id=user.id,
        move=view.legal[0],
        expected_version=view.version,
        request_id=new_request_id(),
        locale="en",
    )
    await matches.confirm_turn(
        db,
        match_id=match_id,
        user_id=user.id,
        expected_version=played.version,
        request_id=new_request_id(),
        locale="en",
    )


async def _seed(db: AsyncSession, match_id: int) -> bytes:
    seed = await db.scalar(select(Match.seed).where(Match.id == match_id))
    assert seed is not None
    return seed


async def _logged(db: AsyncSession, match_id: int) -> list[tuple[int, int, tuple[Event, ...]]]:
    rows = await db.execute(
        select(LoggedMove.seq, LoggedMove.seat, LoggedMove.events)
        .where(LoggedMove.match_id == match_id)
        .order_by(LoggedMove.seq)
    )
    return [(seq, seat, tuple(map(Event.from_json, events))) for seq, seat, events in rows.tuples()]


async def test_cached_rows_equal_the_log_and_grow_by_the_tail(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    seed = await _seed(db, match_id)
    _logcache.forget(match_id)
    await _turn(db, match_id, alice)
    # The same window as the match view uses: the service's own reads share these entries.
    shown = matches.LOG_MOVES_SHOWN
    first = await _logcache.newest_rows(db, match_id, seed, last=shown, store=True)
    assert [(r.seq, r.seat, r.events) for r in first] == await _logged(db, match_id)

    await _turn(db, match_id, bob)
    second = await _logcache.newest_rows(db, match_id, seed, last=shown, store=True)
    assert [(r.seq, r.seat, r.events) for r in second] == await _logged(db, match_id)
    assert second[0] is first[0]  # the known rows were not read again
    assert [r.seq for r in await _logcache.newest_rows(db, match_id, seed, last=3, store=True)] == [2, 3, 4]
    widened = await _logcache.newest_rows(db, match_id, seed, last=200, store=True)
    assert [r.seq for r in widened] == [1, 2, 3, 4]
    everything = await _logcache.newest_rows(db, match_id, seed, last=None, store=True)
    assert [(r.seq, r.seat, r.events) for r in everything] == await _logged(db, match_id)
    assert (await _logcache.newest_rows(db, match_id, seed, last=None, store=True))[0] is everything[0]


async def test_rows_read_with_store_false_are_not_kept(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    seed = await _seed(db, match_id)
    await _turn(db, match_id, alice)
    _logcache.forget(match_id)  # the move path has handed its committed rows over
    unkept = await _logcache.newest_rows(db, match_id, seed, last=200, store=False)
    again = await _logcache.newest_rows(db, match_id, seed, last=200, store=True)
    assert [r.seq for r in unkept] == [r.seq for r in again] == [1, 2]
    assert again[0] is not unkept[0]


async def test_another_seed_never_sees_the_cached_lines(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    seed = await _seed(db, match_id)
    await _turn(db, match_id, alice)
    kept = await _logcache.newest_rows(db, match_id, seed, last=200, store=True)
    other = await _logcache.newest_rows(db, match_id, b"another match, same id", last=200, store=False)
    assert [r.seq for r in other] == [r.seq for r in kept] and other[0] is not kept[0]


async def test_lines_follow_their_audience_and_match_the_view(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    seed = await _seed(db, match_id)
    await _turn(db, match_id, alice)
    rows = await _logcache.newest_rows(db, match_id, seed, last=None, store=True)
    for viewer, user in ((0, alice), (1, bob), (None, None)):
        lines = _logcache.visible_entries(TOY, rows, viewer, "en")
        shown = await matches.get_match(
            db, match_id=match_id, viewer_id=user.id if user else None, locale="en"
        )
        assert lines == shown.log
    assert [e.kind for e in _logcache.visible_entries(TOY, rows, 1, "en")] == ["played", "drew"]


async def test_the_cache_keeps_at_most_max_rows(
    db: AsyncSession, make_user: MakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = await make_user(), await make_user()
    first, second = await start_toy_match(db, [alice, bob]), await start_toy_match(db, [alice, bob])
    for match_id in (first, second):
        await _turn(db, match_id, alice)
    _logcache.forget()
    monkeypatch.setattr(_logcache, "MAX_ROWS", 3)
    kept = await _logcache.newest_rows(db, first, await _seed(db, first), last=None, store=True)
    await _logcache.newest_rows(db, second, await _seed(db, second), last=None, store=True)
    again = await _logcache.newest_rows(db, first, await _seed(db, first), last=None, store=False)
    assert [r.seq for r in again] == [1, 2] and again[0] is not kept[0]  # the first match was dropped


async def test_the_move_path_hands_over_its_committed_rows(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    seed = await _seed(db, match_id)
    _logcache.forget(match_id)
    await _turn(db, match_id, alice)
    version = await db.scalar(select(Match.committed_version).where(Match.id == match_id))
    assert version is not None
    known = _logcache._cache[match_id]
    assert known.version == version
    assert [(r.seq, r.seat, r.events) for r in known.rows] == await _logged(db, match_id)
    # At the version it was made for, the cache answers without the database.
    cached = await _logcache.newest_rows(
        db, match_id, seed, last=matches.LOG_MOVES_SHOWN, store=True, version=version
    )
    assert cached[0] is known.rows[0]


async def test_a_known_version_needs_no_query_and_a_newer_one_reads_the_tail(
    db: AsyncSession, make_user: MakeUser
) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    seed = await _seed(db, match_id)
    await _turn(db, match_id, alice)
    _logcache.forget(match_id)
    first = await _logcache.newest_rows(db, match_id, seed, last=None, store=True, version=7)
    statements: list[str] = []

    def count(*args: object) -> None:
        statements.append(str(args[2]))

    engine = db.get_bind()
    event.listen(engine, "before_cursor_execute", count)
    try:
        again = await _logcache.newest_rows(db, match_id, seed, last=None, store=True, version=7)
        assert again == first and not statements
        await _logcache.newest_rows(db, match_id, seed, last=None, store=True, version=8)
        assert len(statements) == 1
    finally:
        event.remove(engine, "before_cursor_execute", count)
