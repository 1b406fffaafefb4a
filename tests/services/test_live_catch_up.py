"""A process that lost its LISTEN connection tells its streams what they missed meanwhile.

NOTIFY reaches only those listening: news sent while a process reconnects is lost for good, so
a stream of a match that is not decided again would stay behind for ever (found by
``tests/reliability/test_hosts.py``: a host cut off the database for 10 s). On listening again
the broker tells every subscribed match the version it is at now.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Match
from app.db.session import asyncpg_dsn
from app.services.live import Broker, Nudge
from tests.conftest import MakeUser
from tests.support.db import start_toy_match, uses_postgres

pytestmark = [
    pytest.mark.postgres_only,
    pytest.mark.skipif(not uses_postgres(), reason="LISTEN/NOTIFY needs PostgreSQL (TEST_DATABASE_URL)"),
]


async def test_a_reconnected_listener_tells_each_match_its_version(
    database_url: str, db: AsyncSession, make_user: MakeUser
) -> None:
    match_id = await start_toy_match(db, [await make_user(), await make_user()])
    match = await db.get(Match, match_id)
    assert match is not None
    broker = await Broker.start(database_url=database_url, install=False)
    try:
        async with broker.subscribe_match(match_id) as news, broker.subscribe_user(7) as user_news:
            connection = broker._connection
            assert connection is not None
            admin = await asyncpg.connect(asyncpg_dsn(database_url))
            try:  # as when the link to PostgreSQL was cut and the connection given up
                await admin.execute("SELECT pg_terminate_backend($1)", connection.get_server_pid())
            finally:
                await admin.close()
            # Nobody publishes anything: what arrives comes from the catch-up.
            assert await news.get(timeout=10) == Nudge("match", match_id, match.committed_version)
            assert await user_news.get(timeout=1) == Nudge("user", 7)
            assert broker.is_listening and broker._connection is not connection
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(news.get(), 0.2)
    finally:
        await broker.stop()
