"""Every PostgreSQL connection the app makes gives up a cut link within seconds.

A host cut off its database otherwise waits on the lost connection for as long as TCP retransmits
(a quarter of an hour): every request hangs instead of answering 503 (``tests/reliability/
test_hosts.py`` cuts a host's link). ``app.db.session.watch_link`` sets keepalive and
``TCP_USER_TIMEOUT`` on the socket, through asyncpg's transport; these tests pin that it still
reaches the socket of each kind of connection (SQLAlchemy's pool, the move path's pool, the
LISTEN connection), so that a new asyncpg cannot quietly turn it off.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.session import LINK_TIMEOUT_MS, asyncpg_dsn
from app.db.store.postgres import PostgresStore
from app.services.live import Broker
from tests.support.db import uses_postgres

pytestmark = pytest.mark.skipif(not uses_postgres(), reason="PostgreSQL connections: set TEST_DATABASE_URL")


def _assert_watched(connection: Any) -> None:
    sock = connection._transport.get_extra_info("socket")
    if sock.family == socket.AF_UNIX:
        pytest.skip("the test database is reached by a Unix socket: nothing to set")
    assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == LINK_TIMEOUT_MS


async def test_sqlalchemy_connections_are_watched(engine: AsyncEngine) -> None:
    async with engine.connect() as connection:
        raw = await connection.get_raw_connection()
        _assert_watched(raw.driver_connection)


async def test_move_path_connections_are_watched(database_url: str) -> None:
    store = PostgresStore(asyncpg_dsn(database_url), pool_size=1)
    try:
        async with store._connection() as connection:
            _assert_watched(connection._con)
    finally:
        await store.close()


async def test_the_listening_connection_is_watched(database_url: str) -> None:
    broker = await Broker.start(database_url=database_url, install=False)
    try:
        assert broker._connection is not None
        _assert_watched(broker._connection)
    finally:
        await broker.stop()
