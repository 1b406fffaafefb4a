"""What a live stream's re-check of its session costs per push (``app.web.sse.Watcher``).

Before every event a stream asks whether its session still holds (``Watcher.still_valid``):
from the process's kept sessions while they are fresh (``sessions.KEEP_SECONDS``), else from
the database (after the kept answer aged out, or after the account's news dropped it). Both
are timed here, in one process, on a fresh SQLite database or (``--postgres``) a fresh
PostgreSQL database of its own, dropped afterwards (``bench.pgstats``: ``BENCH_ADMIN_DSN``).

    PYTHONPATH=$PWD .venv/bin/python -m bench.stream_check [--postgres] [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace

from starlette.requests import Request

from app.db.migrate import upgrade_to_head
from app.db.session import dispose, make_engine, make_sessionmaker
from app.services import accounts, sessions
from app.web.security import SESSION_COOKIE
from app.web.sse import Watcher
from bench import pgstats

PASSWORD = "a long enough password 1"


async def _timed(rounds: int, once: Callable[[], Awaitable[object]]) -> tuple[float, float]:
    """Median and 95th percentile of ``once`` in microseconds."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        await once()
        times.append((time.perf_counter() - started) * 1e6)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95)]


async def run(database_url: str, rounds: int) -> list[tuple[str, float, float]]:
    upgrade_to_head(database_url)
    engine = make_engine(database_url)
    maker = make_sessionmaker(engine)
    try:
        async with maker() as db:
            name = "bench"
            user = await accounts.register(db, name=name, password=PASSWORD, locale="en")
            _, token = await accounts.log_in(db, name=name, password=PASSWORD)

        app = SimpleNamespace(state=SimpleNamespace(sessionmaker=maker))
        cookie = f"{SESSION_COOKIE}={token}".encode()
        request = Request({"type": "http", "app": app, "headers": [(b"cookie", cookie)]})
        watcher = await Watcher.of(request)
        assert watcher.user is not None

        async def check() -> None:
            assert await watcher.still_valid()

        async def check_after_news() -> None:
            sessions.forget(user.id)  # what the account's news does: the next check asks the database
            await check()

        kept = await _timed(rounds, check)
        asked = await _timed(rounds, check_after_news)
    finally:
        await dispose(engine)
    return [("kept session (the usual push)", *kept), ("session asked of the database", *asked)]


async def on_postgres(rounds: int) -> list[tuple[str, float, float]]:
    name = f"bench_stream_check_{time.monotonic_ns() % 10**9}"
    await pgstats.fresh_database(name)
    try:
        return await run(pgstats.sqlalchemy_url(name), rounds)
    finally:
        await pgstats.drop_database(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", action="store_true", help="a fresh PostgreSQL database (else SQLite)")
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args()
    if args.postgres:
        rows = asyncio.run(on_postgres(args.rounds))
    else:
        with tempfile.TemporaryDirectory() as folder:
            rows = asyncio.run(run(f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}", args.rounds))
    database = "PostgreSQL" if args.postgres else "SQLite"
    print(f"re-checking a stream's session, {args.rounds} rounds ({database})")
    for label, median, p95 in rows:
        print(f"  {label:<34} median {median:8.1f} us   p95 {p95:8.1f} us")


if __name__ == "__main__":
    main()
