"""Friends and blocks between people (revision 0008).

A friendship is two rows, one per direction, both ``accepted``; a request is one row from the
asker, not yet accepted. So "my friends", "asked by me" and "asking me" are each one range of
an index, and removing a friend deletes both rows.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base
from app.db.types import UtcDateTime, utcnow


class Friendship(Base):
    __tablename__ = "friendships"
    __table_args__ = (Index("ix_friendships_other_id_accepted", "other_id", "accepted"),)

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    other_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    accepted: Mapped[bool] = mapped_column(Boolean, default=False)
    """False: ``user_id`` asked ``other_id``, who has not answered yet."""
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class Block(Base):
    """``user_id`` blocked ``blocked_id``: no invitations, chat lines or friend requests from them."""

    __tablename__ = "blocks"
    __table_args__ = (Index("ix_blocks_blocked_id", "blocked_id"),)

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    blocked_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
