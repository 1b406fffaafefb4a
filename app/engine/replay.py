"""Rebuild any step of a match from its seed, its setup and its logged decisions.

The move log is the truth; a stored snapshot is only a cache that this can always rebuild.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from app.engine.protocol import Event, Game, Move, Options, Seat, State
from app.engine.rng import Rng


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """The state after ``index`` logged decisions (0 = the setup) and the events that led there."""

    index: int
    state: State
    seat: Seat | None
    move: Move | None
    events: tuple[Event, ...]
    rng_counter: int


def replay(
    game: Game, players: int, options: Options, seed: bytes, moves: Iterable[tuple[Seat, Move]]
) -> Iterator[ReplayStep]:
    """Yield the setup, then the state after each logged decision, in order."""
    rng = Rng(seed)
    state = game.setup(players, options, rng)
    yield ReplayStep(0, state, None, None, (), rng.counter)
    for index, (seat, move) in enumerate(moves, start=1):
        state, events = game.apply(state, seat, move, rng)
        yield ReplayStep(index, state, seat, move, tuple(events), rng.counter)


def rebuild(
    game: Game, players: int, options: Options, seed: bytes, moves: Iterable[tuple[Seat, Move]]
) -> ReplayStep:
    """The last step of ``replay``: the committed state after all logged decisions."""
    last: ReplayStep | None = None
    for last in replay(game, players, options, seed, moves):  # noqa: B007 - we want the last one
        pass
    assert last is not None
    return last
