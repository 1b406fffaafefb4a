"""Every level plays whole games of every game with legal moves only (short budgets).

``play_match`` sends every decision through ``engine.turn.decide``, which refuses anything not
in ``legal_moves``: a match that ends is a match of legal decisions.
"""

from __future__ import annotations

import pytest

import app.games  # noqa: F401 - registers every game
from app.bots import Level
from app.bots.arena import play_match, rotated
from app.engine.registry import get_game

ALL = (Level.STRONG, Level.NORMAL, Level.EASY, Level.RANDOM)


@pytest.mark.parametrize(
    ("slug", "levels"),
    [
        ("draco", ALL),
        ("draco", (Level.STRONG, Level.EASY)),
        ("drachenland", ALL),
        ("felsental", (Level.STRONG, Level.NORMAL)),
        ("felsental", (Level.EASY, Level.RANDOM)),
    ],
    ids=str,
)
def test_every_level_plays_whole_games(slug: str, levels: tuple[Level, ...]) -> None:
    result = play_match(get_game(slug), levels, seed=5, iterations=8)
    assert sorted(result.ranks)[0] == 1
    assert all(n > 0 for n in result.decisions), "every seat decided"


def test_rotation_gives_every_level_every_seat() -> None:
    seatings = [rotated(ALL, n) for n in range(4)]
    for seat in range(4):
        assert {s[seat] for s in seatings} == set(ALL)


def test_a_fixed_seed_and_iteration_budget_replay_a_match_exactly() -> None:
    game = get_game("draco")
    first = play_match(game, (Level.STRONG, Level.EASY), seed=11, iterations=10)
    again = play_match(game, (Level.STRONG, Level.EASY), seed=11, iterations=10)
    assert (first.ranks, first.scores, first.decisions) == (again.ranks, again.scores, again.decisions)
