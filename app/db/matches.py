"""Matches, their seats, the append-only move log, stored answers and chat."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base
from app.db.types import UtcDateTime, utcnow


class MatchStatus:
    OPEN = "open"
    ACTIVE = "active"
    FINISHED = "finished"
    ABORTED = "aborted"
    CANCELLED = "cancelled"


VERSION_SPAN = 1000
"""Versions a turn's pending decisions and undos can use before the next public change."""


def public_version(committed_version: int) -> int:
    """The version everybody but the acting seat sees."""
    return committed_version * VERSION_SPAN


class Match(Base):
    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(40), index=True)
    ruleset: Mapped[str] = mapped_column(String(40))
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    players: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default=MatchStatus.OPEN, index=True)
    seed: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    """The secret match seed; never leaves the services layer."""
    version: Mapped[int] = mapped_column(Integer, default=0)
    """Optimistic lock: every change is ``UPDATE ... WHERE version = :seen``. It is
    ``committed_version * VERSION_SPAN`` plus the pending decisions and undos since then."""
    committed_version: Mapped[int] = mapped_column(Integer, default=0)
    """Counts the changes everybody may know about (+1 each). Seats other than the acting one
    see ``committed_version * VERSION_SPAN`` as the match's version, the acting seat sees
    ``version``: so nobody else can tell, now or after the commit, how much the acting seat
    tried and undid, and every seat's version only ever grows."""
    state: Mapped[str | None] = mapped_column(Text, nullable=True)
    """The committed state as the game's position string (hidden parts included)."""
    rng_counter: Mapped[int] = mapped_column(Integer, default=0)
    pending: Mapped[list[Any]] = mapped_column(JSON, default=list)
    """The acting seat's pending decisions: ``[{"seat", "move", "events"}]``."""
    to_act: Mapped[list[Any]] = mapped_column(JSON, default=list)
    """Seats to act in the committed state (cached for the lobby's "your turn" lists)."""
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_by: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    invite_token: Mapped[str] = mapped_column(String(64))
    fixed_order: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    turn_started_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)


class MatchSeat(Base):
    __tablename__ = "seats"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True, index=True)
    reserved_for: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True, index=True)
    score: Mapped[float | None] = mapped_column(Float, nullable=True)
    rank: Mapped[int | None] = mapped_column(Integer, nullable=True)
    stand_in: Mapped[str | None] = mapped_column(String(16), nullable=True, default=None)
    """The level of a bot playing this person's seat for them (timeout policy "bot"), or None."""


class LoggedMove(Base):
    """One committed decision: the move log is the truth, the match's state only a cache."""

    __tablename__ = "moves"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    move: Mapped[str] = mapped_column(String(200))
    events: Mapped[list[Any]] = mapped_column(JSON, default=list)
    """Each event as ``Event.to_json()``, including its audience."""
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class MoveRequest(Base):
    """The answer given to one request id, so a repeated request gets the same answer."""

    __tablename__ = "move_requests"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    request_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    answer: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class Message(Base):
    __tablename__ = "messages"
    __table_args__ = (Index("ix_messages_match_id_id", "match_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
