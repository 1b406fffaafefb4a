"""Run the Alembic migrations programmatically (the CLI, the app start-up and the tests)."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import make_url

from app.config import is_postgres_url, normalise_database_url

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # Alembic's config is an INI file: a literal % must be doubled.
    config.set_main_option("sqlalchemy.url", normalise_database_url(url).replace("%", "%%"))
    config.attributes["configure_logger"] = False
    return config


def upgrade_to_head(url: str) -> None:
    """Bring the database at ``url`` to the newest revision (idempotent).

    Safe when several processes start at once: PostgreSQL serialises them with an advisory lock
    (``migrations/env.py``), an SQLite file with an exclusive lock on a file beside it (SQLite
    runs DDL outside transactions here, so two migrators would both create the tables).
    """
    with _sqlite_file_lock(url):
        _run(lambda: command.upgrade(alembic_config(url), "head"))


def downgrade_to_base(url: str) -> None:
    """Undo every revision (tests; never in production)."""
    _run(lambda: command.downgrade(alembic_config(url), "base"))


def current_revision(url: str) -> str | None:
    """The revision the database is at, or None when it was never migrated."""
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import Connection

    from app.db.session import make_engine

    async def read() -> str | None:
        engine = make_engine(url)
        try:
            async with engine.connect() as conn:

                def revision(sync_conn: Connection) -> str | None:
                    return MigrationContext.configure(sync_conn).get_current_revision()

                return await conn.run_sync(revision)
        finally:
            await engine.dispose()

    result: list[str | None] = []
    _run(lambda: result.append(asyncio.run(read())))
    return result[0]


def _run(job: Callable[[], object]) -> None:
    """Run ``job`` here, or in a helper thread when this thread already runs an event loop.

    The migration environment drives the async engine with ``asyncio.run``, which cannot
    nest inside a running loop (an app lifespan, an async test).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        job()
        return
    failure: list[BaseException] = []

    def target() -> None:
        try:
            job()
        except BaseException as exc:  # re-raised in the caller's thread below
            failure.append(exc)

    thread = threading.Thread(target=target, name="alembic")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


@contextlib.contextmanager
def _sqlite_file_lock(url: str) -> Iterator[None]:
    url = normalise_database_url(url)
    database = make_url(url).database
    if is_postgres_url(url) or not database or database == ":memory:":
        yield
        return
    lock_path = Path(database).with_name(Path(database).name + ".migrate-lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
