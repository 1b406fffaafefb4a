"""The fast Draco playout plays the rules and the greedy player exactly as the engine does.

Whole games of greedy players on the engine (``bot.choose`` through ``apply``); before each turn
the playout finishes that turn on its table, and the table must then equal the engine's state.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from app.bots.games.draco_playout import Table, playout
from app.engine.rng import Rng
from app.games.draco.bot import choose
from app.games.draco.rules import apply, setup
from app.games.draco.state import DracoState, Phase


def _same(table: Table, state: DracoState, *, hands: bool) -> None:
    assert table.positions == list(state.positions)
    assert table.scores == list(state.scores)
    assert table.tops == [pile[-1] for pile in state.piles]
    assert table.over == (state.phase is Phase.OVER)
    if hands:  # equal unless a reshuffle dealt from a differently shuffled pile
        assert [sorted(h) for h in table.hands] == [list(h) for h in state.hands]
        assert Counter(table.below) == Counter(c for pile in state.piles for c in pile[:-1])


@pytest.mark.parametrize("players", [2, 3, 5])
def test_finishing_a_turn_on_the_table_equals_the_engine(players: int) -> None:
    rng = Rng(bytes([players]) * 32)
    state = setup(players, {}, rng)
    compared = mid_turn = 0
    while state.phase is not Phase.OVER:
        table = playout(state, random.Random(0), turns=0, explore=0.0)
        _same(table, _end_of_turn(state), hands=len(state.deck) >= 6)
        compared += 1
        mid_turn += state.phase is not Phase.PLAY
        state, _ = apply(state, state.active, choose(state, state.active), rng)
    assert compared > 40 and mid_turn > 10


def _end_of_turn(state: DracoState) -> DracoState:
    """The engine's state once the greedy player to act has finished its turn."""
    seat, rng = state.active, Rng(b"end-of-turn-lookahead-seed-01234")
    while state.phase is not Phase.OVER and (state.active == seat or state.phase is not Phase.PLAY):
        state, _ = apply(state, state.active, choose(state, state.active), rng)
    return state
