"""Random self-play (spec §4-§5 as a whole): 2,000 complete games, checks after every decision.

Each decision runs the game's invariants (110 cards conserved, distinct riders, hands <= 6,
scores >= 0, at most three summit dragons) and an independent transition check (score changes
follow the scoring rules, refills, movement, riders); every game must end. The games are
spread over every core (``tests.games.parallel``).
"""

from __future__ import annotations

import pytest

from tests.games.draco.support import play_batch
from tests.games.parallel import batches, count_from_env, run_batches

GAMES = 2000
PLAYER_COUNTS = (2, 3, 4, 5)
BATCH = 50


@pytest.mark.slow
@pytest.mark.serial  # its own process pool takes every core: beside busy workers it only waits
def test_random_selfplay_keeps_every_rule() -> None:
    """2,000 games, 500 for each player count 2-5, undo now and then.

    ``DRACO_SELFPLAY_GAMES=20000`` plays more for a long local run (never fewer than 2,000,
    split evenly over the player counts); ``SELFPLAY_WORKERS`` sets the number of processes.
    """
    per_count = -(-count_from_env("DRACO_SELFPLAY_GAMES", GAMES) // len(PLAYER_COUNTS))
    jobs = [(players, seeds) for players in PLAYER_COUNTS for seeds in batches(0, per_count, BATCH)]
    run = run_batches(play_batch, jobs)
    games = sum(g for g, _ in run.results)
    decisions = sum(d for _, d in run.results)
    print(run.report("draco", games, decisions))
    assert games == per_count * len(PLAYER_COUNTS) >= GAMES


def test_a_few_random_games_in_process() -> None:
    """The same checks, quickly and in this process (fast suite)."""
    for players in PLAYER_COUNTS:
        games, decisions = play_batch(players, range(1000, 1003))
        assert games == 3 and decisions > 0
