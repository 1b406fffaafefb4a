"""The Alembic migrations build the schema the models describe, on PostgreSQL and SQLite."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, inspect, select
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.migrate import alembic_config, current_revision, downgrade_to_base, upgrade_to_head
from app.db.models import Base, User
from app.db.session import make_engine, make_sessionmaker
from tests.support.db import fresh_database
from tests.support.server import ROOT

TABLES = {"users", "sessions", "throttles", "matches", "seats", "moves", "move_requests", "messages"}
"""Tables at the head (0003 replaced 0001's login_attempts by throttles); others may be added."""


def _head() -> str | None:
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


async def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            names = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
    finally:
        await engine.dispose()
    return names - {"alembic_version"}


def test_head_base_head(tmp_path: Path) -> None:
    import asyncio

    with fresh_database(tmp_path, migrate=False) as url:
        assert current_revision(url) is None
        upgrade_to_head(url)
        assert current_revision(url) == _head()
        assert asyncio.run(_tables(url)) >= TABLES
        downgrade_to_base(url)
        assert current_revision(url) is None
        assert asyncio.run(_tables(url)) == set()
        upgrade_to_head(url)
        upgrade_to_head(url)  # idempotent
        assert asyncio.run(_tables(url)) >= TABLES
        assert current_revision(url) == _head()


def test_replicas_starting_together_migrate_once(tmp_path: Path) -> None:
    """Three ``drachenhort migrate`` at once on an empty database all succeed (PostgreSQL
    serialises them with an advisory lock; SQLite with its file lock)."""
    with fresh_database(tmp_path, migrate=False) as url:
        env = {**os.environ, "DRACHENHORT_DATABASE_URL": url, "DRACHENHORT_DATA_DIR": str(tmp_path)}
        env.pop("DATABASE_URL", None)
        runs = [
            subprocess.Popen(
                [sys.executable, "-m", "app.cli", "migrate"],
                env=env,
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(3)
        ]
        outcomes = [(run.wait(timeout=120), run.stderr.read() if run.stderr else "") for run in runs]
        assert [code for code, _ in outcomes] == [0, 0, 0], [err[-500:] for _, err in outcomes]
        assert current_revision(url) == _head()


async def test_models_match_migrations(engine: AsyncEngine) -> None:
    """Autogenerate finds nothing to do: the models and the migrations agree.

    Tables without a model here are left out (a later revision's models may live elsewhere).
    """

    def modelled(obj: object, name: str | None, type_: str, reflected: bool, compare_to: object) -> bool:
        return not (type_ == "table" and reflected and compare_to is None)

    def diff(conn: Connection) -> list[object]:
        context = MigrationContext.configure(conn, opts={"include_object": modelled})
        return compare_metadata(context, Base.metadata)

    async with engine.connect() as conn:
        assert await conn.run_sync(diff) == []


async def test_upgrade_works_inside_a_running_loop(database_url: str) -> None:
    """The app lifespan may migrate from async code: the helper must not nest event loops."""
    upgrade_to_head(database_url)
    assert current_revision(database_url) == _head()


async def test_timestamps_come_back_as_aware_utc(engine: AsyncEngine) -> None:
    berlin = timezone(timedelta(hours=1))
    stamp = datetime(2026, 3, 1, 12, 30, tzinfo=berlin)
    async with make_sessionmaker(engine)() as db:
        user = User(name="tz", name_key=f"tz-{id(stamp)}", password_hash="x", locale="en", is_admin=False)
        user.created_at = stamp
        db.add(user)
        await db.commit()
        user_id = user.id
    async with make_sessionmaker(engine)() as db:
        loaded = await db.scalar(select(User.created_at).where(User.id == user_id))
        assert loaded is not None and loaded.tzinfo is not None
        assert loaded.utcoffset() == timedelta(0)
        assert loaded == stamp.astimezone(UTC)
        await db.delete(await db.get(User, user_id))
        await db.commit()


async def test_naive_timestamps_are_refused(engine: AsyncEngine) -> None:
    async with make_sessionmaker(engine)() as db:
        db.add(
            User(
                name="naive",
                name_key="naive-x",
                password_hash="x",
                locale="en",
                is_admin=False,
                created_at=datetime(2026, 1, 1),
            )
        )
        with pytest.raises(Exception, match="naive datetime"):
            await db.commit()


def test_0003_keeps_existing_names_working_and_look_alikes_apart(tmp_path: Path) -> None:
    """Accounts made before 0003 (the look-alikes of issue 11.4 among them) all still log in;
    the oldest of each look-alike group keeps the skeleton, the later ones keep their old key
    where the folded one was taken, and no new name like theirs can register."""
    import asyncio

    from alembic import command

    from app.db.migrate import _run
    from app.services import accounts
    from app.services.errors import NameTaken

    names_before = ["admin", "\uff41dmin", "\u0430dmin", "Jörg", "BOB"]
    with fresh_database(tmp_path, migrate=False) as url:
        _run(lambda: command.upgrade(alembic_config(url), "0002"))

        async def before() -> None:
            engine = make_engine(url)
            try:
                async with engine.begin() as conn:
                    for name in names_before:
                        await conn.execute(
                            User.__table__.insert().values(
                                name=name,
                                name_key=name.casefold(),
                                password_hash=accounts._hasher.hash("old password 1"),
                                locale="en",
                                is_admin=False,
                                created_at=datetime.now(UTC),
                            )
                        )
            finally:
                await engine.dispose()

        asyncio.run(before())
        upgrade_to_head(url)

        async def after() -> None:
            engine = make_engine(url)
            try:
                async with make_sessionmaker(engine)() as db:
                    rows = (await db.execute(select(User.name, User.name_key, User.name_skeleton))).all()
                    by_name = {name: (key, skeleton) for name, key, skeleton in rows}
                    assert by_name["admin"] == ("admin", "adrnin")
                    assert by_name["\uff41dmin"] == ("\uff41dmin", None), "its folded key is admin's"
                    assert by_name["\u0430dmin"] == ("\u0430dmin", None), "it looks like admin"
                    assert by_name["BOB"] == ("bob", "bob") and by_name["Jörg"][0] == "jörg"
                    for name in names_before:
                        user, _ = await accounts.log_in(db, name=name, password="old password 1")
                        assert user.name == name
                    with pytest.raises(NameTaken):
                        await accounts.register(db, name="Adrnin", password="a new password", locale="en")
            finally:
                await engine.dispose()

        asyncio.run(after())
