"""A simple greedy bot (timeout moves, bot seats): best immediate score lead, then position."""

from __future__ import annotations

from app.engine.protocol import CONFIRM, Move, Seat
from app.engine.rng import Rng
from app.games.draco.rules import KEEP, TAKE, apply, legal_moves
from app.games.draco.state import DracoState, Phase

# Card plays, keep/take and discards never draw; this Rng only satisfies the signature.
_NO_DRAWS = Rng(b"draco-bot-never-draws")
POSITION_WEIGHT = 0.25
"""How much the value under the own dragon counts against points already scored."""


def choose(state: DracoState, seat: Seat) -> Move:
    """A sensible legal move for ``seat``."""
    moves = legal_moves(state, seat)
    if not moves:
        raise ValueError(f"seat {seat} has no move")
    if state.phase is Phase.PLAY:
        return max(moves, key=lambda m: _after(apply(state, seat, m, _NO_DRAWS)[0], seat))
    if state.phase is Phase.MOUNT:
        return max((KEEP, TAKE), key=lambda m: _value(apply(state, seat, m, _NO_DRAWS)[0], seat))
    if state.phase is Phase.DISCARD:
        # Discarding only helps when it empties the hand, which then refills to six.
        hand = state.hands[seat]
        discards = [m for m in moves if m.action == "discard"]
        if hand and len(discards) and all(state.on_summit(c.dragon_index) for c in hand):
            return discards[0]
    return CONFIRM


def _after(state: DracoState, seat: Seat) -> float:
    if state.phase is Phase.MOUNT:
        return max(_value(apply(state, seat, m, _NO_DRAWS)[0], seat) for m in (KEEP, TAKE))
    return _value(state, seat)


def _value(state: DracoState, seat: Seat) -> float:
    others = [score for s, score in enumerate(state.scores) if s != seat]
    lead = state.scores[seat] - max(others)
    here = state.track[state.positions[state.rider_index(seat)]].value
    return lead + POSITION_WEIGHT * here
