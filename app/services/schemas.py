"""What leaves the services: frozen pydantic models, a whitelist of fields.

Nothing else crosses to the web layer: no rows, no game states, never the seed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

MatchStatusName = Literal["open", "active", "finished", "aborted", "cancelled"]


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class UserOut(_Out):
    id: int
    name: str
    locale: str
    is_admin: bool
    auto_confirm: bool = False
    """The player's turns confirm themselves once nothing else is left to decide (pages)."""
    time_zone: str | None = None
    """The zone chosen in the settings (an IANA name); None: the browser's."""


class OptionOut(_Out):
    key: str
    label: str
    """In the requested locale (English by default); ``labels`` has every locale."""
    labels: dict[str, str]
    choices: list[Any]
    default: Any


class GameOut(_Out):
    slug: str
    title: str
    titles: dict[str, str]
    min_players: int
    max_players: int
    options: list[OptionOut]


class SeatOut(_Out):
    seat: int
    user_id: int | None
    name: str | None
    """None for an open seat; a reserved seat names the invited user (``reserved``)."""
    score: float | None = None
    rank: int | None = None
    reserved: bool = False
    bot: str | None = None
    """The level of the computer playing this seat (a bot, or a stand-in for its owner)."""


class MatchSummary(_Out):
    id: int
    game: str
    game_title: str
    status: MatchStatusName
    players: int
    seats: list[SeatOut]
    created_by: int
    your_turn: bool
    to_act: list[int] = Field(default_factory=list)
    """The seats whose move it is (a running match; empty otherwise)."""
    waiting_since: datetime | None
    invite_token: str | None
    """Only for members of the match (seated or invited); None for everybody else."""
    options: dict[str, Any]
    fixed_order: bool
    created_at: datetime
    updated_at: datetime


class LogEntry(_Out):
    seq: int
    seat: int | None
    text: str
    pieces: list[str]
    pending: bool
    kind: str = ""


class TiebreakOut(_Out):
    label: str
    """A key of the game's ``ui_text`` (``GET /api/games`` has no texts: the pages name it)."""
    values: list[int]


class OutcomeOut(_Out):
    scores: list[float]
    ranks: list[int]
    score_label: str = ""
    """What the score counts, a ``ui_text`` key of the game (empty: points)."""
    tiebreaks: list[TiebreakOut] = Field(default_factory=list)
    tiebreak_decided: bool = False
    """Equal scores were ranked apart by the tie-breaks."""
    conclusion: str | None = None
    """How it ended if not by the rules: ``resigned``, ``draw`` or ``vote`` (scores are then 0)."""
    resigned: list[int] = Field(default_factory=list)
    """The seats that resigned (they rank last)."""


class MatchView(_Out):
    id: int
    game: str
    status: MatchStatusName
    version: int
    options: dict[str, Any]
    seats: list[SeatOut]
    viewer_seat: int | None
    to_act: list[int]
    view: dict[str, Any]
    legal: list[str]
    can_undo: bool
    can_confirm: bool
    log: list[LogEntry]
    """The viewer's log lines of the decisions after seq ``log_after``, then its pending lines."""
    log_after: int = 0
    """The log continues the one with the decisions up to this seq (0: the whole log)."""
    outcome: OutcomeOut | None
    created_by: int
    waiting_since: datetime | None


class MoveResult(_Out):
    version: int
    committed: bool
    match: MatchView
    _json: str | None = PrivateAttr(default=None)
    """The answer as JSON when the move path made it already (``answer_json``)."""

    def answer_json(self) -> str:
        """This answer as the JSON API sends it (made once: the move path writes the same text
        into the stored answer)."""
        return self._json if self._json is not None else self.model_dump_json()

    def __eq__(self, other: object) -> bool:
        """The same answer, whether or not its JSON was made already."""
        if not isinstance(other, MoveResult):
            return NotImplemented
        return self.__dict__ == other.__dict__


class ReplayView(_Out):
    match_id: int
    game: str
    status: MatchStatusName
    step: int
    """Steps are decisions a player counts: a confirm belongs to the decision it ends."""
    steps: int
    view: dict[str, Any]
    log: list[LogEntry]
    """The viewer's lines of the newest decisions up to this step (at most a log page)."""
    log_before: int
    """The seq before the oldest decision in ``log`` (0: none); ``/log?before=`` pages on."""
    step_log: list[LogEntry]
    """The lines of this step's decisions (what it reads as in the log)."""
    seat: int | None
    """The seat that took this step's decision (None at the setup)."""
    move: str | None
    """This step's decision in move notation (its confirm, if any, is part of the step)."""
    viewer_seat: int | None
    seats: list[SeatOut]
    imported: bool = False
    """Made from an uploaded match record (unrated; its seats hold the record's names)."""
    imported_by: str | None = None


class MessageOut(_Out):
    id: int
    user_id: int
    name: str
    text: str
    created_at: datetime
