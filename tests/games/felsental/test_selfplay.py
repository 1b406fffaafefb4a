"""Random self-play of whole Felsental matches through the real turn workflow (undo included).

After every decision the game's invariants run (cards conserved, wounds within their tracks,
no two figures on one hex, ...); at the end of each match the result is checked against the
tie-break rule of spec §12, recomputed here from the recorded legs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from app.engine.selfplay import play_random_game
from app.games.felsental import FELSENTAL
from app.games.felsental.state import FelsState, Phase
from tests.games.parallel import batches, count_from_env, run_batches

MATCHES = 1000
BATCH = 50
OPTION_SETS: tuple[dict[str, Any], ...] = (
    {"legs": 2},
    {"legs": 2, "dwarf_setup": "free"},
    {"legs": 2, "hand_exchange": True},
    {"legs": 2, "dwarf_setup": "free", "hand_exchange": True},
)
SINGLE_LEG = {"legs": 1, "dwarf_setup": "free"}


def expected_ranks(state: FelsState) -> tuple[int, int]:
    """§12 written out again: legs won, at a tie the wounds inflicted, still equal a draw."""
    legs = [sum(1 for r in state.results if r.winner_seat() == s) for s in (0, 1)]
    wounds = [
        sum(r.dwarf_wounds if r.dragon_seat == s else r.dragon_wounds for r in state.results) for s in (0, 1)
    ]
    if legs[0] != legs[1]:
        return (1, 2) if legs[0] > legs[1] else (2, 1)
    if wounds[0] != wounds[1]:
        return (1, 2) if wounds[0] > wounds[1] else (2, 1)
    return (1, 1)


class Recorder:
    """Invariants plus the end-of-match checks; counts the legs that were played out."""

    def __init__(self) -> None:
        self.legs = 0
        self.tiebreaks = 0

    def __call__(self, state: FelsState) -> None:
        FELSENTAL.invariants(state)
        if state.phase is Phase.OVER:
            outcome = FELSENTAL.outcome(state)
            assert outcome is not None and outcome.ranks == expected_ranks(state), state.results
            assert len(state.results) == state.legs
            if state.legs == 2:
                assert state.results[0].dragon_seat != state.results[1].dragon_seat, "roles not swapped"
            self.legs += state.legs
            self.tiebreaks += int(outcome.summary["tiebreak"] and state.legs == 2)


def run_chunk(seeds: range, options: dict[str, Any] | None = None) -> tuple[int, int, int, int]:
    """Play the matches of ``seeds``; returns (legs, tie-breaks, decisions, undos)."""
    recorder = Recorder()
    game = replace(FELSENTAL, invariants=recorder)
    decisions = undos = 0
    for seed in seeds:
        chosen = options if options is not None else OPTION_SETS[seed % len(OPTION_SETS)]
        result = play_random_game(game, 2, chosen, seed=seed, undo_every=5)
        decisions += result.decisions
        undos += result.undos
    return recorder.legs, recorder.tiebreaks, decisions, undos


@pytest.mark.slow
@pytest.mark.serial  # its own process pool takes every core: beside busy workers it only waits
def test_random_matches_keep_every_invariant() -> None:
    """1,000 two-leg matches (2,000 legs) over all option sets, plus single legs; every leg ends.

    ``FELSENTAL_SELFPLAY_MATCHES=20000`` plays more two-leg matches for a long local run (never
    fewer than 1,000); ``SELFPLAY_WORKERS`` sets the number of processes (default: every core).
    The matches are spread over the workers in small batches (``tests.games.parallel``).
    """
    matches = count_from_env("FELSENTAL_SELFPLAY_MATCHES", MATCHES)
    jobs: list[tuple[range, dict[str, Any] | None]] = [(seeds, None) for seeds in batches(0, matches, BATCH)]
    jobs.append((range(10_000, 10_020), SINGLE_LEG))
    run = run_batches(run_chunk, jobs)
    legs, tiebreaks, decisions, undos = (sum(column) for column in zip(*run.results, strict=True))
    print(
        run.report(
            "felsental", matches + 20, decisions, f" ({legs} legs, {tiebreaks} tie-breaks, {undos} undos)"
        )
    )
    assert legs == 2 * matches + 20
    assert tiebreaks > 0 and undos > 0
