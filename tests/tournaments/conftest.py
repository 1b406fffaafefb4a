"""Fixtures of the tournament tests."""

from __future__ import annotations

import pytest
from sqlalchemy import delete
from sqlalchemy.ext.asyncio import async_sessionmaker

from app.db.tournaments import TournamentPolicy


@pytest.fixture
async def anyone_creates_tournaments(sessionmaker: async_sessionmaker) -> None:  # type: ignore[type-arg]
    """The server's setting at its default (anyone creates tournaments): it is one row for the
    whole database, which every test of a worker shares, and tests/web/test_tournaments_api.py
    changes it (it sets it back, yet a SQLite pass in CI once found it on "administrators only"
    here: these tests make tournaments as players)."""
    async with sessionmaker() as db:
        await db.execute(delete(TournamentPolicy))
        await db.commit()
