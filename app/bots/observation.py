"""What a bot is given: one seat's view, its legal moves and the public log, as plain data.

A bot never receives a state. ``observe`` is the one place that turns the true state into an
observation, through the game's own ``view`` (the only door to hidden information) and
``legal_moves`` (what the page offers that seat anyway). Everything here is JSON-ready and
pickles cheaply, so an observation can cross into a worker process.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.engine.protocol import JSON, Event, Game, Move, Options, Seat, State


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything one seat may know at one decision."""

    game: str
    """The game's slug."""
    seat: Seat
    players: int
    view: JSON
    """``game.view(state, seat)``."""
    legal: tuple[str, ...]
    """The moves this seat may take now (the page highlights exactly these)."""
    log: tuple[JSON, ...] = ()
    """The events this seat was shown so far, oldest first (``Event.to_json``)."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """The match options (public: the lobby shows them)."""

    @property
    def legal_moves(self) -> list[Move]:
        return [Move.parse(m) for m in self.legal]


def observe(
    game: Game,
    state: State,
    seat: Seat,
    players: int,
    log: Iterable[Event] = (),
    options: Options | None = None,
) -> Observation:
    """The observation of ``seat`` in ``state``; ``log`` may hold every event, others' are dropped."""
    return Observation(
        game=game.slug,
        seat=seat,
        players=players,
        view=game.view(state, seat),
        legal=tuple(str(m) for m in game.legal_moves(state, seat)),
        log=tuple(e.to_json() for e in log if e.is_visible_to(seat)),
        options=dict(options or {}),
    )
