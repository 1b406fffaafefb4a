"""Strong beats random clearly, and (slow) easy too; fixed seeds and iteration budgets make
these deterministic, so a weaker search fails them every time rather than now and then."""

from __future__ import annotations

import pytest

import app.games  # noqa: F401 - registers every game
from app.bots import Level
from app.bots.arena import play_match, rotated
from app.bots.report import LevelTally
from app.engine.registry import get_game


def _tally(slug: str, levels: tuple[Level, ...], games: int, iterations: int) -> LevelTally:
    tally = LevelTally()
    game = get_game(slug)
    for number in range(games):
        tally.add(play_match(game, rotated(levels, number), seed=200 + number, iterations=iterations))
    return tally


def test_strong_beats_random_at_draco() -> None:
    tally = _tally("draco", (Level.STRONG, Level.RANDOM), games=4, iterations=12)
    assert tally.levels["strong"].wins >= 4


@pytest.mark.slow
@pytest.mark.parametrize("slug", ["felsental", "drachenland"])
def test_strong_beats_random(slug: str) -> None:
    tally = _tally(slug, (Level.STRONG, Level.RANDOM), games=4, iterations=30)
    assert tally.levels["strong"].wins >= 4


@pytest.mark.slow
def test_strong_beats_easy_at_draco() -> None:
    tally = _tally("draco", (Level.STRONG, Level.EASY), games=8, iterations=60)
    assert tally.levels["strong"].wins >= 5
