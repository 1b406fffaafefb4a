"""What the tournament pages and the JSON API are given (names, never user ids)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel


class TournamentPlayerOut(BaseModel):
    name: str
    seed: int | None
    withdrawn_in: int | None


class TableOut(BaseModel):
    players: list[str]
    """Seat order: in two-player games the first is the first seat (Felsental: the dragon)."""
    match_id: int | None
    """None: a bye."""
    status: str
    """active, finished, aborted; bye."""
    ranks: list[int] | None = None


class RoundOut(BaseModel):
    number: int
    tables: list[TableOut]


class StandingOut(BaseModel):
    place: int
    name: str
    points: float
    buchholz: float
    sonneborn_berger: float
    score: float
    games: int
    byes: int
    withdrawn: bool
    reached: int | None = None
    """Knockout: the last round the player was in."""


class TournamentSummary(BaseModel):
    id: int
    name: str
    game: str
    game_title: str
    format: str
    table_size: int
    places: int
    players: int
    status: str
    current_round: int
    total_rounds: int | None
    signup_until: datetime | None
    public: bool
    creator: str


class TournamentOut(TournamentSummary):
    options: dict[str, Any]
    rounds_setting: int | None
    advance: int
    group_size: int | None
    final_per_group: int | None
    """Round robin: the best this many of each group go on to a knockout final stage."""
    group_rounds: int
    """Round robin: the rounds the groups play (the final stage's rounds follow)."""
    start_when_full: bool
    days_per_move: int
    timeout_action: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    entrants: list[TournamentPlayerOut]
    rounds: list[RoundOut]
    standings: list[StandingOut]
    podium: list[str]
    signed_up: bool
    is_creator: bool
    invite_token: str | None
    """Only for its creator (invitation-only tournaments are joined with it)."""
    invited: bool = False
    """The viewer was invited by name (may sign up without the link)."""
    invitations: list[str] = []
    """Only for its creator: the players invited by name."""


class TournamentPage(BaseModel):
    tournaments: list[TournamentSummary]
    page: int
    more: bool
