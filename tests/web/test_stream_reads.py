"""A commit wakes every stream of its match at once: what they need from the database is read
once for all of them, never once a stream (issue 24: a thousand spectators of one match; a
read each queued them on the pool for seconds, ``bench/streams.py``).

The streams are the coroutines the routes run for each event, called side by side on the real
database; the statements they send are counted on the engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.db.store import store_of
from app.db.store.records import ControlRow
from app.services import accounts, sessions
from app.services.play import loaded as kept
from app.web import sse
from app.web.pages import live_pages
from tests.conftest import TEST_PASSWORD, MakeUser
from tests.support.db import start_toy_match

STREAMS = 200


@contextmanager
def counted(engine: AsyncEngine) -> Iterator[list[str]]:
    """The statements sent on ``engine`` meanwhile."""
    sent: list[str] = []

    def count(*args: object) -> None:
        sent.append(str(args[2]))

    event.listen(engine.sync_engine, "before_cursor_execute", count)
    try:
        yield sent
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", count)


async def test_the_page_streams_of_a_version_read_its_clock_once(
    db: AsyncSession, make_user: MakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id = await start_toy_match(db, [await make_user(), await make_user()])
    loaded = await kept.load(db, match_id)
    store = store_of(db)
    reads: list[int] = []
    read_control = store.control

    async def counted_control(match_id: int) -> ControlRow | None:
        reads.append(match_id)
        return await read_control(match_id)

    monkeypatch.setattr(store, "control", counted_control)
    events = await asyncio.gather(
        *(live_pages.area_event(store, loaded, None, "en", None) for _ in range(STREAMS))
    )
    assert reads == [match_id]  # the time control only, once: the version's own row says the rest
    assert all(e is events[0] for e in events), "every spectator's stream gets the same bytes"
    assert events[0].startswith(b"event: area\r\ndata: {")


async def test_the_streams_of_a_session_ask_for_it_once_when_its_kept_answer_is_gone(
    engine: AsyncEngine, sessionmaker: async_sessionmaker[AsyncSession], db: AsyncSession, make_user: MakeUser
) -> None:
    user = await make_user()
    _, token = await accounts.log_in(db, name=user.name, password=TEST_PASSWORD)
    await db.commit()
    sessions.forget(user.id)  # as when the kept answer grew old while the streams idled
    with counted(engine) as one:
        async with sessionmaker() as alone:
            assert await accounts.user_for_token(alone, token=token) == user
    sessions.forget(user.id)
    store = store_of(db)
    with counted(engine) as all_of_them:
        now = await asyncio.gather(*(sse._user_now(sessionmaker, store, token) for _ in range(STREAMS)))
    assert len(all_of_them) == len(one), all_of_them
    assert all(u == user for u in now)
