"""Random self-play (spec §4-§5 as a whole): 2,000 complete games, checks after every decision.

Each decision runs the game's invariants (110 cards conserved, distinct riders, hands <= 6,
scores >= 0, at most three summit dragons) and an independent transition check (score changes
follow the scoring rules, refills, movement, riders); every game must end. The games are split
over two worker processes (this machine has two cores).
"""

from __future__ import annotations

import multiprocessing
import resource
import time

import pytest

from tests.games.draco.support import play_batch

GAMES_PER_COUNT = 500
CHUNK = 125


@pytest.mark.slow
def test_random_selfplay_keeps_every_rule() -> None:
    jobs = [
        (players, range(start, start + CHUNK))
        for players in range(2, 6)
        for start in range(0, GAMES_PER_COUNT, CHUNK)
    ]
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.starmap(play_batch, jobs)
    elapsed = time.perf_counter() - started
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    games = sum(g for g, _ in results)
    decisions = sum(d for _, d in results)
    assert games == 4 * GAMES_PER_COUNT
    print(
        f"\ndraco self-play: {games} games, {decisions} decisions, {elapsed:.1f} s wall, "
        f"{cpu:.1f} s CPU in the workers ({decisions / cpu:.0f} decisions per CPU second)"
    )


def test_a_few_random_games_in_process() -> None:
    """The same checks, quickly and in this process (fast suite)."""
    for players in range(2, 6):
        games, decisions = play_batch(players, range(1000, 1003))
        assert games == 3 and decisions > 0
