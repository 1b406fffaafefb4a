"""Fresh, migrated test databases on PostgreSQL (``TEST_DATABASE_URL``) or SQLite (default).

Every database is built by the Alembic migrations, never by ``metadata.create_all``.
"""

from __future__ import annotations

import asyncio
import os
import random
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import asyncpg
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import normalise_database_url
from app.db.migrate import upgrade_to_head
from app.db.session import asyncpg_dsn
from app.services.schemas import MatchView, UserOut


def server_url() -> str | None:
    """The PostgreSQL server to test against, or None for SQLite."""
    url = os.environ.get("TEST_DATABASE_URL", "").strip()
    return normalise_database_url(url) if url else None


def uses_postgres() -> bool:
    return server_url() is not None


@contextmanager
def fresh_database(directory: Path, *, migrate: bool = True) -> Iterator[str]:
    """A new empty database (migrated to head unless ``migrate`` is False), dropped afterwards."""
    server = server_url()
    if server is None:
        path = directory / f"drachenhort-{secrets.token_hex(4)}.db"
        url = f"sqlite+aiosqlite:///{path}"
        if migrate:
            upgrade_to_head(url)
        yield url
        return
    name = f"drachenhort_test_{secrets.token_hex(6)}"
    asyncio.run(_admin(server, f'CREATE DATABASE "{name}"'))
    url = make_url(server).set(database=name).render_as_string(hide_password=False)
    try:
        if migrate:
            upgrade_to_head(url)
        yield url
    finally:
        asyncio.run(_admin(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def _admin(server: str, statement: str) -> None:
    connection = await asyncpg.connect(asyncpg_dsn(server))
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


async def start_toy_match(db: AsyncSession, players: list[UserOut], *, game: str = "toy") -> int:
    """A running match (the toy game unless ``game``) with ``players`` seated in the given order."""
    from app.services import lobby

    summary = await lobby.create_match(
        db,
        creator_id=players[0].id,
        game=game,
        seats=len(players),
        options={},
        invite=[p.name for p in players[1:]],
        fixed_order=True,
    )
    for player in players[1:]:
        await lobby.join_match(db, match_id=summary.id, user_id=player.id, invite_token=None)
    return summary.id


def new_request_id() -> str:
    return secrets.token_hex(8)


async def play_to_the_end(db: AsyncSession, match_id: int, users: list[UserOut], seed: int) -> MatchView:
    """Random legal decisions (and now and then an undo) through the services until the end."""
    from app.services import play

    chooser = random.Random(seed)
    for _ in range(500):
        spectator = await play.get_match(db, match_id=match_id, viewer_id=None, locale="en")
        if spectator.status != "active":
            return spectator
        user = users[spectator.to_act[0]]
        view = await play.get_match(db, match_id=match_id, viewer_id=user.id, locale="en")
        ids = {"match_id": match_id, "user_id": user.id, "expected_version": view.version}
        if view.can_undo and chooser.random() < 0.2:
            await play.undo_move(db, **ids, request_id=new_request_id(), locale="en")
        else:
            move = chooser.choice(view.legal)
            await play.submit_move(db, **ids, move=move, request_id=new_request_id(), locale="en")
    raise AssertionError("the match did not end")
