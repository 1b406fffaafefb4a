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


def setup_step(game: Game, players: int, options: Options, seed: bytes) -> ReplayStep:
    """Step 0: the state as the match was set up."""
    rng = Rng(seed)
    return ReplayStep(0, game.setup(players, options, rng), None, None, (), rng.counter)


def replay(
    game: Game, players: int, options: Options, seed: bytes, moves: Iterable[tuple[Seat, Move]]
) -> Iterator[ReplayStep]:
    """Yield the setup, then the state after each logged decision, in order."""
    first = setup_step(game, players, options, seed)
    yield first
    yield from resume(game, seed, first, moves)


def resume(
    game: Game, seed: bytes, start: ReplayStep, moves: Iterable[tuple[Seat, Move]]
) -> Iterator[ReplayStep]:
    """Yield the state after each of ``moves``, the logged decisions that follow ``start``.

    ``start`` may be any step the log once led to (a checkpoint): its state and Rng counter are
    all that the decisions after it depend on.
    """
    rng = Rng(seed, start.rng_counter)
    state = start.state
    for index, (seat, move) in enumerate(moves, start=start.index + 1):
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
