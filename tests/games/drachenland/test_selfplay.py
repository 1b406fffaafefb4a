"""Random self-play through the real turn workflow with invariants after every decision.

Uniformly random play is slow to find eggs: a random game takes about 2,000 decisions
(a greedy player needs about 150), so the slow test spreads its games over every core
(``tests.games.parallel``).
"""

from __future__ import annotations

import pytest

from app.engine.selfplay import play_random_game
from app.games.drachenland import DRACHENLAND
from tests.games.parallel import batches, count_from_env, run_batches

GAMES = 1000
BATCH = 25
CONFIGS = [
    (players, {"variant1": v1, "variant2": v2})
    for players in (2, 3, 4)
    for v1 in (False, True)
    for v2 in (False, True)
]


def _play(seeds: range) -> tuple[int, int, int]:
    """Play the games of ``seeds`` (configuration by seed); returns (games, decisions, undos)."""
    games = decisions = undos = 0
    for seed in seeds:
        players, options = CONFIGS[seed % len(CONFIGS)]
        result = play_random_game(DRACHENLAND, players, options, seed=seed, undo_every=5, check=True)
        assert sorted(result.ranks)[0] == 1 and len(result.scores) == players
        games += 1
        decisions += result.decisions
        undos += result.undos
    return games, decisions, undos


@pytest.mark.parametrize("seed", [0, 3, 5, 6, 9, 10])
def test_selfplay_each_player_count_and_variant(seed: int) -> None:
    """A complete game for each player count, each variant switched on and off (always run)."""
    assert _play(range(seed, seed + 1))[0] == 1


@pytest.mark.slow
@pytest.mark.serial  # its own process pool takes every core: beside busy workers it only waits
def test_selfplay_thousand_games() -> None:
    """1,000 complete random games, 2–4 players, both variants, undo now and then, invariants every move.

    ``DRACHENLAND_SELFPLAY_GAMES=20000`` plays more for a long local run (never fewer than
    1,000); ``SELFPLAY_WORKERS`` sets the number of processes (default: every core).
    """
    games = count_from_env("DRACHENLAND_SELFPLAY_GAMES", GAMES)
    run = run_batches(_play, [(seeds,) for seeds in batches(100, games, BATCH)])
    played, decisions, undos = (sum(column) for column in zip(*run.results, strict=True))
    print(run.report("drachenland", played, decisions, f", {undos} undos"))
    assert played == games and undos > 0
