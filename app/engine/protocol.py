"""The game protocol: what every game module gives the platform.

A game is a set of pure functions over an immutable state (see ``Game``). The platform
never looks inside a state: it asks the game who acts, which moves are legal, applies a
move, and asks for a per-seat ``view``, which is the only door to hidden information.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from app.engine.rng import Rng

Seat: TypeAlias = int
"""A seat number, 0-based, in turn order."""

JSON: TypeAlias = dict[str, Any]
State: TypeAlias = Any
"""A game's own immutable state (a frozen dataclass); opaque to the platform."""

Options: TypeAlias = Mapping[str, Any]
Locale: TypeAlias = str
"""``"en"`` or ``"de"``."""


class InvalidMove(ValueError):
    """The move text cannot be parsed at all (malformed input)."""


class IllegalMove(ValueError):
    """The move is well formed but not allowed now; ``reason`` says why in plain words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True, order=True)
class Move:
    """One decision at the table, written ``action:arg:arg`` (e.g. ``play:red:3``)."""

    action: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return ":".join((self.action, *self.args))

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Move:
        """``Move.parse("play:red:3") == Move("play", ("red", "3"))``."""
        if not isinstance(text, str) or not text or len(text) > 200:
            raise InvalidMove("a move is a short text like 'play:red:3'")
        parts = text.split(":")
        if any(not p or not p.isascii() or not all(c.isalnum() or c in "_-" for c in p) for p in parts):
            raise InvalidMove(f"malformed move {text!r}")
        return cls(parts[0], tuple(parts[1:]))


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, for the log.

    ``audience`` is ``None`` for everyone or the one seat allowed to see it (a drawn card).
    ``reveals`` marks events that show hidden or random information: an undo barrier.
    ``pieces`` names board pieces the page may highlight (``"dragon-red"``, ``"hex-7"``).
    """

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    audience: Seat | None = None
    reveals: bool = False
    pieces: tuple[str, ...] = ()

    def is_visible_to(self, seat: Seat | None) -> bool:
        return self.audience is None or self.audience == seat

    def to_json(self) -> JSON:
        return {
            "kind": self.kind,
            "data": dict(self.data),
            "audience": self.audience,
            "reveals": self.reveals,
            "pieces": list(self.pieces),
        }

    @classmethod
    def from_json(cls, raw: JSON) -> Event:
        return cls(
            kind=raw["kind"],
            data=raw.get("data", {}),
            audience=raw.get("audience"),
            reveals=bool(raw.get("reveals", False)),
            pieces=tuple(raw.get("pieces", ())),
        )


@dataclass(frozen=True, slots=True)
class Tiebreak:
    """A per-seat figure that orders seats with equal scores (Felsental: wounds inflicted).

    ``label`` is a key of the game's ``ui_text``, so the result table can name it.
    """

    label: str
    values: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: a score and a rank (1 = first; ties share a rank) per seat.

    ``score_label`` (a ``ui_text`` key, empty for points) says what the score counts;
    ``tiebreaks`` are the figures the ranks of equal scores were decided by, in order.
    """

    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    summary: Mapping[str, Any] = field(default_factory=dict)
    score_label: str = ""
    tiebreaks: tuple[Tiebreak, ...] = ()

    @classmethod
    def from_scores(cls, scores: Sequence[float], summary: Mapping[str, Any] | None = None) -> Outcome:
        """Rank by score, higher is better; equal scores share a rank (a shared victory)."""
        ranks = tuple(1 + sum(1 for other in scores if other > mine) for mine in scores)
        return cls(tuple(scores), ranks, summary or {})


@dataclass(frozen=True, slots=True)
class Option:
    """A match option the lobby offers (a variant, a rule switch)."""

    key: str
    default: Any
    choices: tuple[Any, ...]
    label: Mapping[Locale, str]
    rated: bool = True
    """False when choosing a non-default value makes the match unrated."""


@dataclass(frozen=True, slots=True)
class GameInfo:
    """The facts a game declares once."""

    slug: str
    title: Mapping[Locale, str]
    min_players: int
    max_players: int
    ruleset: str
    hidden_information: bool
    chance: bool
    options: tuple[Option, ...] = ()

    def default_options(self) -> dict[str, Any]:
        return {o.key: o.default for o in self.options}

    def normalise_options(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults filled in; an unknown key or value raises ``IllegalMove``."""
        known = {o.key: o for o in self.options}
        for key in given:
            if key not in known:
                raise IllegalMove(f"unknown option {key!r}")
        chosen = self.default_options()
        for key, value in given.items():
            option = known[key]
            if value not in option.choices:
                raise IllegalMove(f"option {key!r} cannot be {value!r}")
            chosen[key] = value
        return chosen


@dataclass(frozen=True, slots=True)
class Game:
    """A game as the platform sees it: its facts plus its pure functions.

    - ``setup(players, options, rng)`` -> the first state
    - ``to_act(state)`` -> the seats that must decide now (Felsental's defence is out of turn)
    - ``legal_moves(state, seat)`` -> every decision that seat may take now, in a fixed order
    - ``apply(state, seat, move, rng)`` -> (next state, events); raises ``IllegalMove``
    - ``view(state, seat | None)`` -> what that seat (None: a spectator) may see, JSON-ready
    - ``outcome(state)`` -> ``Outcome`` once the game is over
    - ``timeout_move(state, seat)`` -> the move the server plays for a seat out of time
    - ``describe(event, locale)`` -> the log line for an event
    - ``format_position`` / ``parse_position`` -> the full state as text (hidden parts
      included; a test and storage tool, never shown to a player of a running match)
    - ``invariants(state)`` -> raises ``AssertionError`` when the state is impossible
    """

    info: GameInfo
    setup: Callable[[int, Options, Rng], State]
    to_act: Callable[[State], frozenset[Seat]]
    legal_moves: Callable[[State, Seat], list[Move]]
    apply: Callable[[State, Seat, Move, Rng], tuple[State, list[Event]]]
    view: Callable[[State, Seat | None], JSON]
    outcome: Callable[[State], Outcome | None]
    timeout_move: Callable[[State, Seat], Move]
    describe: Callable[[Event, Locale], str]
    format_position: Callable[[State], str]
    parse_position: Callable[[str], State]
    invariants: Callable[[State], None]
    ui_text: Mapping[Locale, Mapping[str, str]] = field(default_factory=dict)
    """The board's own UI strings per locale (``t("key")`` in the board template)."""

    @property
    def slug(self) -> str:
        return self.info.slug


CONFIRM = Move("confirm")
"""Ends a turn. Confirm always commits what is pending (see ``turn.py``)."""
