"""The move path's storage: loading a match in one read, writing a decision atomically.

Everything else in the services uses SQLAlchemy sessions; the move path is the one place
where the cost of each statement matters, so it has this small interface with a PostgreSQL
implementation (raw asyncpg, one statement per read or decision) and a SQLite one (Core).
A store belongs to one database: ``store_for(engine)`` makes it on first use, ``close_store``
closes it before the engine is disposed.
"""

from __future__ import annotations

import weakref
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from app.db.session import asyncpg_dsn
from app.db.store.records import Answered, ControlRow, DecisionWrite, Loaded, LogRow, WriteOutcome

DEFAULT_POOL_SIZE = 10
"""Connections of the move path per process (``Settings.move_pool_size`` in the app)."""


class Store(Protocol):
    async def load(self, match_id: int, *, log_after: int, log_limit: int) -> Loaded | None:
        """The match (None if there is none) and its newest ``log_limit`` rows after ``log_after``."""

    async def log_before(self, match_id: int, *, before: int, limit: int) -> tuple[LogRow, ...]:
        """The ``limit`` log rows just before seq ``before``, in order."""

    async def write(self, w: DecisionWrite) -> WriteOutcome:
        """All of ``w`` or nothing: Applied, or why not (Answered, Moved)."""

    async def answer(self, match_id: int, request_id: str) -> Answered | None:
        """The answer once given to ``request_id`` in this match, if any."""

    async def versions(self, match_ids: list[int]) -> dict[int, int]:
        """The committed version of each of these matches that exists (one read)."""

    async def control(self, match_id: int) -> ControlRow | None:
        """The match's time control (None: it has none): a live push's clock reads it."""

    async def badge(self, user_id: int) -> tuple[int, int]:
        """The user's running matches waiting for them, and matches with unread notifications
        (one read: every seated player's page asks when a turn moves on)."""

    async def close(self) -> None: ...


_stores: weakref.WeakKeyDictionary[object, Store] = weakref.WeakKeyDictionary()


def store_for(engine: AsyncEngine, *, pool_size: int = DEFAULT_POOL_SIZE) -> Store:
    """The store of ``engine``'s database (made on first use)."""
    key = engine.sync_engine
    store = _stores.get(key)
    if store is None:
        store = _make(engine, pool_size)
        _stores[key] = store
    return store


def store_of(db: AsyncSession) -> Store:
    """The store of the database ``db`` is bound to."""
    bind = db.bind
    assert isinstance(bind, AsyncEngine), "services get sessions bound to an AsyncEngine"
    return store_for(bind)


async def close_store(engine: AsyncEngine) -> None:
    store = _stores.pop(engine.sync_engine, None)
    if store is not None:
        await store.close()


def _make(engine: AsyncEngine, pool_size: int) -> Store:
    if engine.dialect.name == "postgresql":
        from app.db.store.postgres import PostgresStore

        return PostgresStore(
            asyncpg_dsn(engine.url.render_as_string(hide_password=False)), pool_size=pool_size
        )
    from app.db.store.sqlite import SqliteStore

    return SqliteStore(engine)
