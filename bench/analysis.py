"""What the analysis of a finished match costs: milliseconds of one pool process per analysed
step, per game, at the budget the server uses (``app.bots.analysis.ITERATIONS`` search
iterations and ``CHANCE_PLAYOUTS`` playouts per step) and at a few others.

``python bench/analysis.py [--steps N] [--iterations 16 48 128]``: prints figures, asserts nothing.
The matches are random self-play matches (two players; Felsental one leg), analysed from step 1
in one process, as one chunk of the background job would be.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.bots.analysis import CHANCE_PLAYOUTS, ITERATIONS, analyse_steps  # noqa: E402
from app.engine.protocol import Move  # noqa: E402
from app.engine.registry import get_game  # noqa: E402
from app.engine.rng import Rng  # noqa: E402
from app.services.replays import step_ends  # noqa: E402
from tests.support.records import PlayedMatch, play_match  # noqa: E402

GAMES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("draco", {}),
    ("drachenland", {}),
    ("felsental", {"legs": 1}),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40, help="steps analysed per match")
    parser.add_argument("--iterations", type=int, nargs="+", default=[16, ITERATIONS, 128])
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    print(f"analysis per step (1 process; chance playouts {CHANCE_PLAYOUTS}; load {load:.2f})")
    print(f"{'game':<12} {'steps':>6} {'iterations':>10} {'ms/step':>8} {'p90 ms':>7} {'whole match s':>14}")
    for slug, options in GAMES:
        played = play_match(slug, 2, options, number=1)
        moves = [(seat, str(move)) for seat, move in played.moves]
        ends = step_ends(moves)
        assert played.header.seed is not None
        count = min(args.steps, len(ends))
        for iterations in args.iterations:
            times = []
            for step in range(1, count + 1):
                started = time.perf_counter()
                analyse_steps(
                    slug, played.header.ruleset, 2, played.header.options, played.header.seed,
                    moves, ends, step, step, iterations,
                )  # fmt: skip
                times.append((time.perf_counter() - started) * 1000)
            # Each call replays the match up to its step too (a chunk replays once): take that off.
            replay = _replay_ms(slug, played, moves, ends, count)
            per = [t - r for t, r in zip(times, replay, strict=True)]
            mean = statistics.fmean(per)
            p90 = sorted(per)[int(0.9 * (len(per) - 1))]
            print(
                f"{slug:<12} {count:>6} {iterations:>10} {mean:>8.1f} {p90:>7.1f} "
                f"{mean * len(ends) / 1000:>14.1f}  ({len(ends)} steps in this match)"
            )
    print(f"load at the end {os.getloadavg()[0]:.2f}")
    return 0


def _replay_ms(
    slug: str, played: PlayedMatch, moves: list[tuple[int, str]], ends: list[int], count: int
) -> list[float]:
    """What analysing no step costs at each step (``first`` beyond ``last``): the replay alone."""
    header = played.header
    assert header.seed is not None
    game = get_game(slug)
    out = []
    for step in range(1, count + 1):
        started = time.perf_counter()
        rng = Rng(header.seed)
        state = game.setup(2, header.options, rng)
        for seat, text in moves[: ends[step - 1]]:
            state, _ = game.apply(state, seat, Move.parse(text), rng)
        out.append((time.perf_counter() - started) * 1000)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
