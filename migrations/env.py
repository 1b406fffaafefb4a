"""Alembic environment: async engine, URL from the caller or the settings, metadata from the models."""

from __future__ import annotations

import asyncio
from logging.config import fileConfig

from alembic import context
from sqlalchemy import Connection, text

from app.db.models import Base
from app.db.session import make_engine

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name)

target_metadata = Base.metadata


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url")
    if url:
        return url
    from app.config import get_settings

    return get_settings().database_url


def _configure(connection: Connection | None = None, url: str | None = None) -> None:
    context.configure(
        connection=connection,
        url=url,
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things: batch mode copies the table instead.
        render_as_batch=True,
        compare_type=True,
        literal_binds=connection is None,
    )


def _run_sync(connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        # Replicas starting together migrate one after the other (the later ones find the
        # schema at head); without it two CREATE TYPE/TABLE race. Held until the commit.
        connection.execute(text("SELECT pg_advisory_xact_lock(hashtext('drachenhort-migrations'))"))
    _configure(connection)
    with context.begin_transaction():
        context.run_migrations()


async def _run_online() -> None:
    engine = make_engine(_url())
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run_sync)
            await connection.commit()
    finally:
        await engine.dispose()


if context.is_offline_mode():
    _configure(url=_url())
    with context.begin_transaction():
        context.run_migrations()
else:
    asyncio.run(_run_online())
