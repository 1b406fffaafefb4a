"""Statistics kept up to date when a match ends (revision 0008), so no page counts matches.

``app.services.tallies`` adds one finished match to these rows in the transaction that records
its end; ``tallied_matches`` makes that happen once per match however often it is asked.
"""

from __future__ import annotations

from sqlalchemy import Float, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db.async_play import RatingChange
from app.db.base import Base
from app.db.matches import MatchSeat


class TalliedMatch(Base):
    __tablename__ = "tallied_matches"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)


class PlayerGameStats(Base):
    """One player's finished matches of one game."""

    __tablename__ = "player_game_stats"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    game: Mapped[str] = mapped_column(String(40), primary_key=True)
    played: Mapped[int] = mapped_column(Integer, default=0)
    won: Mapped[int] = mapped_column(Integer, default=0)
    """First place, shared or not."""
    rank_sum: Mapped[int] = mapped_column(Integer, default=0)
    scored: Mapped[int] = mapped_column(Integer, default=0)
    """Matches ended by their rules (a resignation or a draw has no scores)."""
    score_sum: Mapped[float] = mapped_column(Float, default=0.0)
    streak: Mapped[int] = mapped_column(Integer, default=0)
    """Wins in a row up to the latest finished match."""
    best_streak: Mapped[int] = mapped_column(Integer, default=0)
    best_rating: Mapped[float | None] = mapped_column(Float, nullable=True)
    """The highest ordinal after a rated match (``tallies.note_ratings``); None: never rated."""


class OpponentStats(Base):
    """``user_id`` against ``other_id`` in one game, counted from ``user_id``'s side (both
    directions are kept, so each player's opponents are one index range)."""

    __tablename__ = "opponent_stats"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    game: Mapped[str] = mapped_column(String(40), primary_key=True)
    other_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    played: Mapped[int] = mapped_column(Integer, default=0)
    won: Mapped[int] = mapped_column(Integer, default=0)
    """Ranked better than the other."""
    lost: Mapped[int] = mapped_column(Integer, default=0)
    drawn: Mapped[int] = mapped_column(Integer, default=0)


class GameTally(Base):
    """A counter of one game at one table size: ``matches``, ``decisions``, ``seconds``,
    ``win:<seat>``, ``summit:<dragon>`` (Draco)."""

    __tablename__ = "game_tallies"

    game: Mapped[str] = mapped_column(String(40), primary_key=True)
    players: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(40), primary_key=True)
    count: Mapped[float] = mapped_column(Float, default=0.0)


SEATS_BY_USER = Index("ix_seats_user_id_match_id", MatchSeat.user_id, MatchSeat.match_id)
"""Head-to-head walks one player's matches newest first and looks the other up by match."""

HISTORY_NEWEST = Index(
    "ix_rating_history_user_id_game_id", RatingChange.user_id, RatingChange.game, RatingChange.id
)
"""The rating graph reads a player's newest points of one game: one backward index range."""
