"""Engine and session factories for PostgreSQL (asyncpg) and SQLite (aiosqlite)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from app.config import is_postgres_url, normalise_database_url

SQLITE_BUSY_TIMEOUT_MS = 15_000


def make_engine(url: str, *, pool_size: int = 5, **kwargs: Any) -> AsyncEngine:
    """An async engine; SQLite gets WAL, foreign keys and a busy timeout on every connection.

    The move path does not use this engine's pool (``app.db.store`` has its own asyncpg pool,
    which pings nothing and retries a lost connection once), so here a checkout is pinged: the
    lobby, accounts and chat then survive a PostgreSQL restart without a single 503, at one
    round trip per request that uses the ORM. JSON goes through orjson both ways.
    """
    url = normalise_database_url(url)
    kwargs.setdefault("json_serializer", _json_text)
    kwargs.setdefault("json_deserializer", orjson.loads)
    if is_postgres_url(url):
        kwargs.setdefault("pool_pre_ping", True)
        return create_async_engine(url, pool_size=pool_size, max_overflow=pool_size, **kwargs)
    database = make_url(url).database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_async_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}, **kwargs)
    event.listen(engine.sync_engine, "connect", _configure_sqlite)
    return engine


def _json_text(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def make_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that keep loaded values after commit (services build their answers from them)."""
    return async_sessionmaker(engine, expire_on_commit=False)


def asyncpg_dsn(url: str) -> str:
    """The plain libpq URL asyncpg wants for a ``postgresql+asyncpg://`` URL (LISTEN, admin)."""
    return (
        make_url(normalise_database_url(url))
        .set(drivername="postgresql")
        .render_as_string(hide_password=False)
    )


def _configure_sqlite(dbapi_connection: Any, connection_record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


async def dispose(engine: AsyncEngine) -> None:
    """Close the engine's move-path store (it has a pool of its own), then the engine."""
    from app.db.store import close_store  # the store package imports this module

    await close_store(engine)
    await engine.dispose()
