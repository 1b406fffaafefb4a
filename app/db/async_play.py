"""Asynchronous play: time controls and concessions per match, user settings, notifications,
ratings and their history, password-reset tokens.

Kept in tables of their own (keyed by match or user) so the platform's tables stay as they are.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Float, ForeignKey, Index, Integer, String, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base
from app.db.types import UtcDateTime, utcnow


class TimeoutPolicy:
    TIMEOUT_MOVE = "timeout_move"
    """The game's ``timeout_move`` plays for the late seat, which is marked."""
    VOTE = "vote"
    """The other players may vote to end the match (the late seats lose)."""
    ABORT = "abort"
    """The match is aborted (unrated)."""
    BOT = "bot"
    """A bot plays the late seat from now on, until its owner takes it back."""

    ALL = (TIMEOUT_MOVE, BOT, VOTE, ABORT)
    """What a creator may choose for a match; FORFEIT is the tournaments' own."""
    FORFEIT = "forfeit"
    """A tournament match: the late seats lose it (ranked last), the others share first place."""


class MatchControl(Base):
    """A match's time control and what happened beyond the rules (resignations, draws, votes)."""

    __tablename__ = "match_controls"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    days_per_move: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """None: no clock (friends' games)."""
    policy: Mapped[str] = mapped_column(String(16), default=TimeoutPolicy.TIMEOUT_MOVE)
    extension_days: Mapped[int] = mapped_column(Integer, default=0)
    """Vacation days spent on the current waiting period (``extension_for``)."""
    extension_for: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    timed_out: Mapped[list[Any]] = mapped_column(JSON, default=list)
    """Seats the server played for at least once (marked in the result)."""
    late: Mapped[list[Any]] = mapped_column(JSON, default=list)
    """Seats out of time in the current waiting period (the vote policy waits for votes)."""
    late_for: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    votes: Mapped[list[Any]] = mapped_column(JSON, default=list)
    resigned: Mapped[list[Any]] = mapped_column(JSON, default=list)
    draw_offer_by: Mapped[int | None] = mapped_column(Integer, nullable=True)
    conclusion: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """How the match ended beyond its rules: resigned, draw, timeout, vote, aborted, stalled."""
    rematch_of: Mapped[int | None] = mapped_column(Integer, nullable=True)
    rematch_id: Mapped[int | None] = mapped_column(Integer, nullable=True)


class UserSettings(Base):
    """Per-user settings for mail, vacation days and the account's state."""

    __tablename__ = "user_settings"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    email: Mapped[str | None] = mapped_column(String(254), nullable=True)
    mail_opt_out: Mapped[bool] = mapped_column(Boolean, default=False)
    auto_confirm: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Send the confirm with a decision that leaves nothing else to decide (the pages)."""
    time_zone: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """An IANA zone the pages show times in; None: the browser's (``app.web.times``)."""
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    vacation_year: Mapped[int] = mapped_column(Integer, default=0)
    vacation_used: Mapped[int] = mapped_column(Integer, default=0)


class Notification(Base):
    """Something a user should know; one per (user, match, kind, waiting period)."""

    __tablename__ = "notifications"
    __table_args__ = (
        UniqueConstraint("user_id", "match_id", "kind", "period"),
        Index("ix_notifications_user_id_read_at", "user_id", "read_at"),
        Index("ix_notifications_mail_state", "mail_state"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))
    period: Mapped[datetime] = mapped_column(UtcDateTime)
    """The waiting period (the match's ``turn_started_at``) or the moment of the event."""
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    read_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    mail_state: Mapped[str] = mapped_column(String(8), default="none")
    """none (no mail wanted), pending, sending, sent, skipped."""


class Rating(Base):
    """A player's OpenSkill (Plackett-Luce) rating in one game."""

    __tablename__ = "ratings"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    game: Mapped[str] = mapped_column(String(40), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class RatingChange(Base):
    """One rated match's effect on one player: the rating history (one row per user and match)."""

    __tablename__ = "rating_history"
    __table_args__ = (
        UniqueConstraint("user_id", "match_id"),
        Index("ix_rating_history_user_id_game", "user_id", "game"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(40))
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    rank: Mapped[int] = mapped_column(Integer)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class PasswordReset(Base):
    """A one-time password-reset token (only its SHA-256 is stored)."""

    __tablename__ = "password_resets"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
