"""Random self-play through the real turn workflow with invariants after every decision.

Uniformly random play is slow to find eggs: a random game takes about 2,000 decisions
(a greedy player needs about 150), so the 1,000-game run is split over two processes.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from app.engine.selfplay import play_random_game
from app.games.drachenland import DRACHENLAND

GAMES = int(os.environ.get("DRACHENLAND_SELFPLAY_GAMES", "1000"))
CONFIGS = [
    (players, {"variant1": v1, "variant2": v2})
    for players in (2, 3, 4)
    for v1 in (False, True)
    for v2 in (False, True)
]


def _play(seeds: range) -> tuple[int, int, int, float]:
    cpu = time.process_time()
    games = decisions = undos = 0
    for seed in seeds:
        players, options = CONFIGS[seed % len(CONFIGS)]
        result = play_random_game(DRACHENLAND, players, options, seed=seed, undo_every=5, check=True)
        assert sorted(result.ranks)[0] == 1 and len(result.scores) == players
        games += 1
        decisions += result.decisions
        undos += result.undos
    return games, decisions, undos, time.process_time() - cpu


@pytest.mark.parametrize("seed", [0, 3, 5, 6, 9, 10])
def test_selfplay_each_player_count_and_variant(seed: int) -> None:
    """A complete game for each player count, each variant switched on and off (always run)."""
    assert _play(range(seed, seed + 1))[0] == 1


@pytest.mark.slow
def test_selfplay_thousand_games() -> None:
    """At least 1,000 complete random games, 2–4 players, both variants, invariants every move."""
    start = time.perf_counter()
    half = GAMES // 2
    with ProcessPoolExecutor(max_workers=2) as pool:
        parts = list(pool.map(_play, [range(100, 100 + half), range(100 + half, 100 + GAMES)]))
    games = sum(p[0] for p in parts)
    decisions = sum(p[1] for p in parts)
    cpu = sum(p[3] for p in parts)
    elapsed = time.perf_counter() - start
    print(
        f"\ndrachenland self-play: {games} games, {decisions} decisions, {sum(p[2] for p in parts)} undos, "
        f"{elapsed:.1f} s wall, {cpu:.1f} s CPU in the workers ({decisions / cpu:.0f} decisions/CPU s)"
    )
    assert games == GAMES
