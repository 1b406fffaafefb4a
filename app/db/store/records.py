"""What the move path reads and writes: plain frozen rows, no ORM objects.

The services decide everything (which version, which log rows, which notifications); a store
only carries one ``DecisionWrite`` to the database atomically and loads ``MatchRow``s.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

YOUR_TURN = "your_turn"
"""The notification kind of a new waiting period; a played turn marks its own read."""
MATCH_ENDED = "match_ended"


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    user_id: int | None
    reserved_for: int | None
    name: str | None
    """The occupant's name: the seated user, else the user the seat is reserved for."""
    score: float | None
    rank: int | None
    bot: str | None = None
    """The level of the computer playing this seat: a bot's own seat, or a stand-in (else None)."""


@dataclass(frozen=True, slots=True)
class LogRow:
    """One committed decision of the append-only log; ``events`` as stored (``Event.to_json``)."""

    seq: int
    seat: int
    move: str
    events: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class MatchRow:
    """A match with its seats, as one read saw it (the seed never leaves the services)."""

    id: int
    game: str
    ruleset: str
    options: dict[str, Any]
    players: int
    status: str
    seed: bytes | None
    version: int
    committed_version: int
    state: str | None
    rng_counter: int
    pending: list[dict[str, Any]]
    to_act: tuple[int, ...]
    result: dict[str, Any] | None
    created_by: int
    turn_started_at: datetime | None
    seats: tuple[SeatRow, ...]
    resigned: tuple[int, ...]
    """Seats that resigned (they rank last when the rules end the match)."""


@dataclass(frozen=True, slots=True)
class ControlRow:
    """A match's time control and concessions (``MatchControl``), as one read saw it."""

    days_per_move: int | None
    policy: str
    extension_days: int
    extension_for: datetime | None
    timed_out: list[int]
    late: list[int]
    late_for: datetime | None
    votes: list[int]
    resigned: list[int]
    draw_offer_by: int | None
    conclusion: str | None
    rematch_of: int | None
    rematch_id: int | None


CONTROL_COLUMNS = tuple(ControlRow.__dataclass_fields__)


@dataclass(frozen=True, slots=True)
class Loaded:
    """A match and the newest log rows after the seq the reader already had."""

    match: MatchRow
    log: tuple[LogRow, ...]


@dataclass(frozen=True, slots=True)
class Commit:
    """What a committing decision changes beyond the pending list."""

    state: str
    rng_counter: int
    to_act: tuple[int, ...]
    status: str
    result: dict[str, Any] | None
    turn_started_at: datetime | None
    """Set when a new waiting period starts (the seats to act changed)."""
    finished_at: datetime | None
    log: tuple[LogRow, ...]
    standings: tuple[tuple[int, float, int], ...]
    """(seat, score, rank) of every seat when the decision ends the match, else empty."""
    notices: tuple[tuple[int, str, datetime], ...]
    """(user, kind, period): one notification each, unless that one exists already."""


@dataclass(frozen=True, slots=True)
class DecisionWrite:
    """One decision: ``UPDATE matches ... WHERE version = seen``, its log rows, its answer.

    Applied only if the version is still ``seen`` (and the state ``seen_state``) and
    ``request_id`` is unused in the match; otherwise nothing at all is written.
    """

    match_id: int
    seen: int
    seen_state: str
    """The committed state the decision was taken on: the write checks it as well as the
    version, so a decision on a kept copy can never apply to anything else."""
    request_id: str
    user_id: int
    now: datetime
    pending: list[dict[str, Any]]
    answer: str
    """The answer as JSON text, stored under ``request_id``."""
    commit: Commit | None


@dataclass(frozen=True, slots=True)
class Applied:
    version: int


@dataclass(frozen=True, slots=True)
class Answered:
    """The request id was used before in this match, by ``user_id``, with this answer."""

    user_id: int
    answer: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Moved:
    """Somebody else changed the match first; it is now at ``version``."""

    version: int


WriteOutcome = Applied | Answered | Moved
