"""Matches made from uploaded records (who imported them, the names the record gave) and the
analyses of finished matches."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base
from app.db.types import UtcDateTime, utcnow


class ImportedMatch(Base):
    """A finished, unrated match replayed from a record. Its seats hold no users (the record's
    players need not have accounts here), so the names live here, and nobody's history,
    statistics or rating counts it."""

    __tablename__ = "imported_matches"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    imported_by: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    names: Mapped[list[str]] = mapped_column(JSON, default=list)
    played_on: Mapped[str] = mapped_column(String(40), default="")
    """The record's Date as written (it is not checked: only the decisions are)."""
    imported_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class AnalysisState:
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class MatchAnalysis(Base):
    """The strong bot's view of a finished match (``app.bots.analysis``), filled in chunks in
    the background: ``done`` of ``steps`` steps so far, their items in ``items``."""

    __tablename__ = "match_analyses"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    state: Mapped[str] = mapped_column(String(16), default=AnalysisState.RUNNING)
    steps: Mapped[int] = mapped_column(Integer, default=0)
    done: Mapped[int] = mapped_column(Integer, default=0)
    items: Mapped[list[Any]] = mapped_column(JSON, default=list)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
