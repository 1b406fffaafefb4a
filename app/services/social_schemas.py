"""Output schemas of friends, blocks, player search and statistics (names, never ids)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from app.services.play_schemas import RatingPoint
from app.services.schemas import MatchSummary, _Out

Relation = Literal["none", "friend", "asked", "asking", "blocked"]
"""From the viewer's side: ``asked`` = the viewer asked them, ``asking`` = they asked the viewer,
``blocked`` = the viewer blocked them."""


class RunningMatchOut(_Out):
    id: int
    game: str
    game_title: str


class FriendOut(_Out):
    name: str
    online: bool
    """Seen in the last ``friends.ONLINE_WITHIN`` (friends only see this)."""
    running: list[RunningMatchOut] = Field(default_factory=list)


class FriendsOut(_Out):
    friends: list[FriendOut]
    page: int
    more: bool
    asking: list[str]
    """People who asked the viewer (the newest ``friends.PAGE``)."""
    asked: list[str]
    """People the viewer asked, who have not answered."""
    total: int


class RelationOut(_Out):
    name: str
    relation: Relation


class BlocksOut(_Out):
    names: list[str]
    page: int
    more: bool


class PlayerFound(_Out):
    name: str
    bot: bool
    ratings: dict[str, float] = Field(default_factory=dict)
    """Game slug -> the ordinal (conservative rating) of each game they are rated in."""
    played: dict[str, int] = Field(default_factory=dict)
    """Game slug -> finished matches."""


class SearchOut(_Out):
    query: str
    players: list[PlayerFound]
    page: int
    more: bool


class OpponentOut(_Out):
    name: str
    played: int
    won: int
    lost: int
    drawn: int


class PlayerGameStatsOut(_Out):
    game: str
    game_title: str
    played: int
    won: int
    win_rate: float
    average_rank: float
    average_score: float | None
    """Over the matches their rules ended (a resignation has no scores); None: none yet."""
    rating: float | None
    best_rating: float | None
    rated_matches: int
    streak: int
    best_streak: int
    favourite_opponents: list[OpponentOut]
    rating_history: list[RatingPoint]
    """The newest ``stats.GRAPH_POINTS`` points, oldest first."""


class PlayerStatsOut(_Out):
    name: str
    bot: bool
    member_since: datetime
    games: list[PlayerGameStatsOut]


class VersusGameOut(_Out):
    game: str
    game_title: str
    played: int
    won: int
    lost: int
    drawn: int


class VersusOut(_Out):
    name: str
    other: str
    played: int
    won: int
    lost: int
    drawn: int
    games: list[VersusGameOut]
    matches: list[MatchSummary]
    """Finished matches of both, newest first, a page at a time."""
    page: int
    more: bool


class SeatWinsOut(_Out):
    seat: int
    wins: int
    rate: float


class DragonOut(_Out):
    dragon: str
    name: str
    """The dragon's name in the requested language."""
    count: int
    rate: float
    """Share of the matches ended by the rules with this dragon on the summit."""


class TableStatsOut(_Out):
    players: int
    matches: int
    seat_wins: list[SeatWinsOut]
    average_decisions: float
    average_days: float | None
    summit: list[DragonOut]


class GameStatsOut(_Out):
    game: str
    game_title: str
    matches: int
    tables: list[TableStatsOut]
