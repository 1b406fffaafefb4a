"""Users, their server-side sessions and the throttles of logins and registrations."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base
from app.db.types import UtcDateTime, utcnow


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    name_key: Mapped[str] = mapped_column(String(40), unique=True)
    """``names.key(name)``: names are unique regardless of width and case."""
    name_skeleton: Mapped[str | None] = mapped_column(String(200), unique=True, nullable=True)
    """``names.skeleton(name)``: no two names look alike (None: an older look-alike kept)."""
    password_hash: Mapped[str] = mapped_column(String(200))
    locale: Mapped[str] = mapped_column(String(8), default="en")
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    bot_level: Mapped[str | None] = mapped_column(String(16), nullable=True, default=None)
    """A computer opponent's level (migration 0005 made them; they cannot log in), None: a person."""
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class UserSession(Base):
    """A login. Only the SHA-256 of the token is stored, so a database leak logs nobody in."""

    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)


class Throttle(Base):
    """Attempts counted under one key (a name from an address, an address), kept in the
    database so a limit holds across workers and hosts (``app.services.throttle``)."""

    __tablename__ = "throttles"

    key: Mapped[str] = mapped_column(String(120), primary_key=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, index=True)
    """The latest counted attempt: a key quiet for a policy's ``forget_after`` starts afresh."""
    blocked_until: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    """No attempt under this key is counted, or allowed, before then."""
