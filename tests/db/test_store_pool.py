"""The move path's own PostgreSQL pool: many first requests at once still open one pool of at most
``pool_size`` connections (each concurrent first call used to make a pool of its own: 84
connections at 50 tables under the benchmark)."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from app.db.session import asyncpg_dsn
from app.db.store.postgres import PostgresStore
from tests.support.db import uses_postgres

pytestmark = pytest.mark.skipif(not uses_postgres(), reason="PostgreSQL's own pool: set TEST_DATABASE_URL")
POOL_SIZE = 4
NO_SUCH_MATCH = 2_000_000_000


async def test_concurrent_first_requests_share_one_pool(database_url: str) -> None:
    dsn = asyncpg_dsn(database_url)
    store = PostgresStore(dsn, pool_size=POOL_SIZE)
    watcher = await asyncpg.connect(dsn)

    async def backends() -> int:
        """Connections to this database other than the watcher (earlier tests may keep some)."""
        count: int = await watcher.fetchval(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return count

    try:
        before = await backends()
        reads = [store.load(NO_SUCH_MATCH, log_after=0, log_limit=1) for _ in range(40)]
        answers = await asyncio.gather(*reads)
        assert answers == [None] * 40  # no such match: each read answered
        assert await backends() - before <= POOL_SIZE
    finally:
        await watcher.close()
        await store.close()
