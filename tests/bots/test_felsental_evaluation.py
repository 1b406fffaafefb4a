"""The Felsental bot values the match (spec §12: legs won, then wounds inflicted over both legs),
not only the leg under way."""

from __future__ import annotations

from app.bots.games.felsental import evaluate
from app.engine.rng import Rng
from app.games.felsental.board import Role
from app.games.felsental.match import setup
from app.games.felsental.state import FelsState, LegResult, evolve


def _leg_two(dealt_by_first_dragon: int, taken_by_first_dragon: int) -> FelsState:
    """Leg 2 just begun; seat 0 was the dragon of leg 1 and won it."""
    state = setup(2, {}, Rng(b"felsental-evaluation-test-seed-0"))
    result = LegResult(0, Role.DRAGON, taken_by_first_dragon, dealt_by_first_dragon)
    return evolve(state, first_dragon=0, leg=2, results=(result,))


def test_the_values_are_each_seats_chance_to_win_the_match() -> None:
    values = evaluate(_leg_two(12, 4))
    assert len(values) == 2 and abs(sum(values) - 1.0) < 1e-9
    assert all(0.0 < v < 1.0 for v in values)


def test_wounds_dealt_in_an_earlier_leg_count_for_the_tiebreak() -> None:
    """At 1:1 the wounds over both legs decide, so a leg won with more wounds is worth more."""
    assert evaluate(_leg_two(15, 2))[0] > evaluate(_leg_two(8, 2))[0] > evaluate(_leg_two(8, 8))[0]


def test_wounds_on_the_dragon_in_the_leg_under_way_help_the_dwarves() -> None:
    state = _leg_two(12, 4)
    hurt = evolve(state, dragon_wounds=(4, 2, 0, 0))
    dragon = state.dragon_seat
    assert evaluate(hurt)[dragon] < evaluate(state)[dragon]
