"""Engine and session factories for PostgreSQL (asyncpg) and SQLite (aiosqlite)."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from app.config import is_postgres_url, normalise_database_url

SQLITE_BUSY_TIMEOUT_MS = 15_000
CONNECT_TIMEOUT_SECONDS = 5.0
"""How long making a PostgreSQL connection may take (asyncpg's default is a minute): a host cut
off its database answers 503 within this instead of waiting on a connection that cannot come."""
LINK_TIMEOUT_MS = 3_000
"""How long sent bytes may stay unacknowledged before the kernel drops the connection."""
_KEEPALIVE = ((socket.SO_KEEPALIVE, 1),)
_TCP_KEEPALIVE = (("TCP_KEEPIDLE", 3), ("TCP_KEEPINTVL", 1), ("TCP_KEEPCNT", 3))


def make_engine(url: str, *, pool_size: int = 5, **kwargs: Any) -> AsyncEngine:
    """An async engine; SQLite gets WAL, foreign keys and a busy timeout on every connection.

    The move path does not use this engine's pool (``app.db.store`` has its own asyncpg pool,
    which pings nothing and retries a lost connection once), so here a checkout is pinged: the
    lobby, accounts and chat then survive a PostgreSQL restart without a single 503, at one
    round trip per request that uses the ORM. JSON goes through orjson both ways. A PostgreSQL
    connection is made within ``CONNECT_TIMEOUT_SECONDS`` and watched (``watch_link``).
    """
    url = normalise_database_url(url)
    kwargs.setdefault("json_serializer", _json_text)
    kwargs.setdefault("json_deserializer", orjson.loads)
    if is_postgres_url(url):
        kwargs.setdefault("pool_pre_ping", True)
        kwargs.setdefault("connect_args", {"timeout": CONNECT_TIMEOUT_SECONDS})
        engine = create_async_engine(url, pool_size=pool_size, max_overflow=pool_size, **kwargs)
        event.listen(engine.sync_engine, "connect", _watch_sqlalchemy_link)
        return engine
    database = make_url(url).database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_async_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}, **kwargs)
    event.listen(engine.sync_engine, "connect", _configure_sqlite)
    return engine


def watch_link(connection: Any) -> None:
    """Let the kernel end an asyncpg connection whose network link is cut, within seconds.

    Without this a host cut off from PostgreSQL waits on the lost connection for as long as
    TCP retransmits (a quarter of an hour): every request hangs instead of answering 503. A
    sent statement now fails once unacknowledged for ``LINK_TIMEOUT_MS``, and an idle
    connection (a pooled one, the LISTEN one) once keepalive probes go unanswered for about
    six seconds. A slow statement or a lock wait is not affected: the server's kernel
    acknowledges the bytes at once. Unix domain sockets have nothing to set.
    """
    transport = getattr(connection, "_transport", None)
    sock = transport.get_extra_info("socket") if transport is not None else None
    if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    for option, value in _KEEPALIVE:
        sock.setsockopt(socket.SOL_SOCKET, option, value)
    for name, value in (*_TCP_KEEPALIVE, ("TCP_USER_TIMEOUT", LINK_TIMEOUT_MS)):
        if hasattr(socket, name):  # Linux; elsewhere the defaults stay
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)


def _watch_sqlalchemy_link(dbapi_connection: Any, connection_record: Any) -> None:
    watch_link(dbapi_connection.driver_connection)


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
