"""Output schemas of asynchronous play: clocks, notifications, ratings, profiles, settings."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from app.services.schemas import MatchSummary, _Out


class ClockOut(_Out):
    """A match's time control and its state beyond the rules, as every player may see it."""

    match_id: int
    days_per_move: int | None
    policy: str
    deadline: datetime | None
    """When the seats to act run out of time (vacation days included); None without a clock."""
    timed_out: list[int]
    late: list[int]
    votes: list[int]
    resigned: list[int]
    draw_offer_by: int | None
    conclusion: str | None
    rematch_of: int | None
    rematch_id: int | None


class NotificationOut(_Out):
    """One line per match: its newest notification; ``read`` once all of the match's are."""

    id: int
    kind: str
    match_id: int
    game_title: str
    created_at: datetime
    read: bool
    winners: list[str] = Field(default_factory=list)
    """For ``match_ended``: the names ranked first (several: a shared victory or a draw)."""
    resigned: list[str] = Field(default_factory=list)
    """For ``match_ended``: the names of those who resigned."""
    conclusion: str | None = None
    """For ``match_ended``: ``resigned``, ``draw``, ``vote``, ``aborted``; None: the rules ended it."""
    invited_by: str | None = None
    """For ``invited``: the name of the table's creator."""
    tournament_id: int | None = None
    """For a tournament's ``t_paired`` (a round started) and ``t_ended``: the tournament."""
    tournament_name: str | None = None
    round: int | None = None
    opponents: list[str] = Field(default_factory=list)
    """For ``t_paired``: whom the user plays in the round."""
    podium: list[str] = Field(default_factory=list)
    """For ``t_ended``: the first three, best first."""


class BadgeOut(_Out):
    your_turn: int
    unread: int
    """Matches with unread notifications (the lines of the notifications page that are new)."""


class RatingOut(_Out):
    game: str
    game_title: str
    mu: float
    sigma: float
    ordinal: float
    """``mu - 3 sigma``: what the ranking sorts by (a conservative estimate)."""
    games: int


class RankingRow(_Out):
    position: int
    user_id: int
    name: str
    rating: RatingOut


class RatingPoint(_Out):
    match_id: int
    rank: int
    mu_before: float
    mu_after: float
    sigma_after: float
    ordinal_after: float
    created_at: datetime


class GameResults(_Out):
    game: str
    game_title: str
    played: int
    won: int
    average_rank: float


class ProfileOut(_Out):
    user_id: int
    name: str
    member_since: datetime
    ratings: list[RatingOut]
    results: list[GameResults]
    running: list[MatchSummary]
    """Open and running matches, newest first: page ``running_page``."""
    running_page: int
    running_more: bool
    """A further page has older running matches."""
    finished: list[MatchSummary]
    """Finished (and aborted) matches, newest first, after the filters: page ``finished_page``."""
    finished_page: int
    finished_more: bool
    """A further page has older finished matches."""
    games_played: list[str]
    """Game slugs this user has finished matches in (the filter's choices)."""
    opponents: list[str]
    """Names of the people this user has finished a match with most recently (the filter's
    choices, at most ``profiles.OPPONENTS_SHOWN``)."""


class SettingsOut(_Out):
    user_id: int
    email: str | None
    mail_opt_out: bool
    auto_confirm: bool
    time_zone: str | None
    """An IANA zone; None: the browser's."""
    vacation_days_left: int
    vacation_days_per_year: int
    mail_available: bool


class AdminUserOut(_Out):
    id: int
    name: str
    is_admin: bool
    disabled: bool
    created_at: datetime
