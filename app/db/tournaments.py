"""Tournaments: the tournament, its players, its rounds (one row per round, unique, so a round
is paired once however many servers try) and its matches (ordinary matches, tagged)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base
from app.db.types import UtcDateTime, utcnow


class TournamentStatus:
    SIGNUP = "signup"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class Tournament(Base):
    __tablename__ = "tournaments"
    __table_args__ = (Index("ix_tournaments_status_id", "status", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    game: Mapped[str] = mapped_column(String(40))
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    table_size: Mapped[int] = mapped_column(Integer)
    format: Mapped[str] = mapped_column(String(16))
    """round_robin, swiss or knockout."""
    rounds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Swiss and multi-player round robin: how many rounds; otherwise set by the format."""
    places: Mapped[int] = mapped_column(Integer)
    group_size: Mapped[int | None] = mapped_column(Integer, nullable=True)
    advance: Mapped[int] = mapped_column(Integer, default=1)
    """Multi-player knockout: the best this many of each table go on."""
    final_per_group: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Round robin: the best this many of each group go on to a knockout final stage (None:
    the groups decide)."""
    signup_until: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    start_when_full: Mapped[bool] = mapped_column(Boolean, default=True)
    days_per_move: Mapped[int] = mapped_column(Integer)
    timeout_action: Mapped[str] = mapped_column(String(16))
    """forfeit (the match) or withdraw (from the tournament)."""
    public: Mapped[bool] = mapped_column(Boolean, default=True)
    invite_token: Mapped[str] = mapped_column(String(64))
    created_by: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    status: Mapped[str] = mapped_column(String(16), default=TournamentStatus.SIGNUP)
    current_round: Mapped[int] = mapped_column(Integer, default=0)
    seed: Mapped[str] = mapped_column(String(32))
    """Seeds the draws that break the last ties (public once the tournament runs)."""
    plan: Mapped[list[Any]] = mapped_column(JSON, default=list)
    """Round robin: every round's tables, drawn at the start."""
    podium: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)
    """The first three user ids once finished (what the ended notification and mail name)."""
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)


class TournamentPlayer(Base):
    __tablename__ = "tournament_players"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    seed: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """0 is the strongest (rating at the start)."""
    withdrawn_in: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The round in which the player left the tournament (resigned it or timed out)."""
    joined_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class TournamentRound(Base):
    __tablename__ = "tournament_rounds"
    __table_args__ = (UniqueConstraint("tournament_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    tables: Mapped[list[Any]] = mapped_column(JSON, default=list)
    """Each table's user ids in seat order; a table of one is a bye (a point, or going on)."""
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class TournamentMatch(Base):
    __tablename__ = "tournament_matches"
    __table_args__ = (Index("ix_tournament_matches_tournament_round", "tournament_id", "round"),)

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    round: Mapped[int] = mapped_column(Integer)
    table_no: Mapped[int] = mapped_column(Integer)


class TournamentInvite(Base):
    """A player the creator invited by name to an invitation-only tournament."""

    __tablename__ = "tournament_invites"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True
    )


class TournamentPolicy(Base):
    """The administrator's setting (one row, id 1; none: anyone may create tournaments)."""

    __tablename__ = "tournament_policy"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    admins_only: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
