"""The Yucata turn workflow: pending decisions, undo, confirm and undo barriers.

The acting seat's decisions are applied at once to a *pending* state that only that seat
sees. A decision commits (with everything pending before it) and can no longer be undone
when it

- is ``confirm``,
- drew from the match's Rng (a roll, a shuffle),
- produced an event marked ``reveals`` (a face-down tile turned, cards drawn),
- hands the decision to another seat (an attack the opponent may defend, the next turn),
- was taken while several seats were to act (simultaneous decisions are never pending), or
- ends the game.

So a pending decision never uses randomness, and undo is a refold of the committed state
plus the remaining pending decisions: no game writes inverse moves, and undo cannot show
anything that was not already shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.engine.protocol import CONFIRM, Event, Game, IllegalMove, Move, Seat, State
from app.engine.rng import Rng


class NotYourTurn(IllegalMove):
    """The seat is not among those to act now."""


class GameOver(IllegalMove):
    """The game has ended; no more decisions."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of one seat with the events it caused."""

    seat: Seat
    move: Move
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class Turn:
    """A match in play: the committed state, its Rng counter and the pending decisions."""

    committed: State
    rng_counter: int
    pending: tuple[Decision, ...] = ()

    @property
    def pending_seat(self) -> Seat | None:
        return self.pending[0].seat if self.pending else None


@dataclass(frozen=True, slots=True)
class Step:
    """The result of one decision: the new turn and what it committed (empty if pending)."""

    turn: Turn
    state: State
    decision: Decision
    committed: tuple[Decision, ...]

    @property
    def is_commit(self) -> bool:
        return bool(self.committed)


def current_state(game: Game, turn: Turn, seed: bytes) -> State:
    """The committed state with the pending decisions applied (what the acting seat sees)."""
    state = turn.committed
    for decision in turn.pending:
        rng = Rng(seed, turn.rng_counter)
        state, _ = game.apply(state, decision.seat, decision.move, rng)
        # A pending decision cannot draw: ``decide`` commits every decision that does.
        assert rng.counter == turn.rng_counter, "a pending decision used randomness"
    return state


def check_legal(game: Game, state: State, seat: Seat, move: Move) -> None:
    """Raise the precise error when ``seat`` may not take ``move`` in ``state``."""
    if game.outcome(state) is not None:
        raise GameOver("the game is over")
    if seat not in game.to_act(state):
        raise NotYourTurn("it is not your turn")
    if move not in game.legal_moves(state, seat):
        raise IllegalMove(f"'{move}' is not a legal move now")


def decide(game: Game, turn: Turn, seat: Seat, move: Move, seed: bytes, state: State | None = None) -> Step:
    """Apply one decision; it stays pending unless it is an undo barrier (see module doc).

    ``state`` may pass the already known current state to skip the refold.
    """
    if state is None:
        state = current_state(game, turn, seed)
    check_legal(game, state, seat, move)
    acting_before = game.to_act(state)
    rng = Rng(seed, turn.rng_counter)
    new_state, events = game.apply(state, seat, move, rng)
    decision = Decision(seat, move, tuple(events))
    barrier = (
        move == CONFIRM
        or rng.counter != turn.rng_counter
        or any(e.reveals for e in events)
        or len(acting_before) > 1
        or game.to_act(new_state) != frozenset({seat})
        or game.outcome(new_state) is not None
    )
    if barrier:
        committed = (*turn.pending, decision)
        return Step(Turn(new_state, rng.counter), new_state, decision, committed)
    return Step(Turn(turn.committed, turn.rng_counter, (*turn.pending, decision)), new_state, decision, ())


def undo(turn: Turn, seat: Seat) -> Turn:
    """Drop the seat's last pending decision."""
    if not turn.pending or turn.pending[-1].seat != seat:
        raise IllegalMove("there is nothing to undo: committed decisions are final")
    return Turn(turn.committed, turn.rng_counter, turn.pending[:-1])
