"""Bot tournaments: win rates with 95 % Wilson intervals, and thinking speed per level.

Pairings (issue 14), seats rotated from game to game, each game a task in a process pool:
strong vs random, strong vs easy, strong vs normal and normal vs easy for each game with two
players, and Draco at 3 and 5 seats with one strong bot among easy ones. Targets: strong wins
>= 95 % against random and >= 70 % against easy; at five seats, >= 2x its fair share (40 %).

``--iterations`` (the default mode) is strong's fixed search per decision, normal gets a
quarter: the figures then do not depend on the load of a shared machine, and a run can be
repeated exactly. ``--think-ms`` gives strong a time budget instead (normal a quarter, as 0.5 s
is to 2 s); the levels' own budgets (2 s, 0.5 s) would make 200-game tournaments take days on
two cores. Milliseconds and decisions per second are printed per game and level, so either
budget translates into the other. ``--quick`` is a smoke run of a few games per pairing.
Figures, not tests: nothing here fails.

    .venv/bin/python bench/bots.py [--quick] [--games 200] [--iterations 100 | --think-ms 30]
        [--game draco] [--pairing "strong vs easy"] [--processes 1]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import app.games  # noqa: E402,F401 - registers every game
from app.bots import Level, budget_for  # noqa: E402
from app.bots.arena import MatchResult, play_match, rotated  # noqa: E402
from app.bots.report import LevelTally, wilson  # noqa: E402
from app.engine.registry import get_game  # noqa: E402

S, N, E, R = Level.STRONG, Level.NORMAL, Level.EASY, Level.RANDOM
DEFAULT_ITERATIONS = 100


@dataclass(frozen=True, slots=True)
class Pairing:
    game: str
    levels: tuple[Level, ...]
    target: float
    """The win rate the first seat's level should reach."""

    @property
    def name(self) -> str:
        return (
            f"{self.game} {len(self.levels)}p: "
            + " vs ".join(str(level) for level in self.levels[:2])
            + (f" (+{len(self.levels) - 2} easy)" if len(self.levels) > 2 else "")
        )


def pairings(only: set[str] | None = None) -> list[Pairing]:
    result = []
    for game in ("draco", "drachenland", "felsental"):
        result += [
            Pairing(game, (S, R), 0.95),
            Pairing(game, (S, E), 0.70),
            Pairing(game, (S, N), 0.5),
            Pairing(game, (N, E), 0.5),
        ]
    result += [Pairing("draco", (S, E, E), 2 / 3), Pairing("draco", (S, E, E, E, E), 2 / 5)]
    return [p for p in result if only is None or p.game in only]


def play(
    pairing: Pairing, number: int, think_ms: float | None, iterations: int | None
) -> tuple[Pairing, MatchResult]:
    game = get_game(pairing.game)
    seating = rotated(pairing.levels, number)
    return pairing, play_match(game, seating, 10_000 + number, think_ms=think_ms, iterations=iterations)


def pool_overhead(calls: int = 50) -> tuple[float, float, int]:
    """(ms in ``decide``, ms in ``decide_async``, pickled bytes) for a one-iteration decision on a
    five-seat Draco view (the biggest view): the difference is what the process hop costs."""
    import asyncio
    import multiprocessing
    import pickle

    from app.bots import Budget, decide, decide_async, observe
    from app.engine.rng import Rng

    game = get_game("draco")
    state = game.setup(5, {}, Rng(b"pool-overhead-bench-seed-0123456"))
    obs = observe(game, state, 0, 5)
    budget = Budget(iterations=1)
    started = time.perf_counter()
    for k in range(calls):
        decide(obs, S, k, budget)
    direct = (time.perf_counter() - started) / calls * 1000

    async def hop() -> float:
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            await decide_async(obs, S, 0, budget, pool=pool)  # start the process first
            started = time.perf_counter()
            for k in range(calls):
                await decide_async(obs, S, k, budget, pool=pool)
            return (time.perf_counter() - started) / calls * 1000

    return direct, asyncio.run(hop()), len(pickle.dumps(obs))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="a smoke run: 4 games per pairing, 10 iterations"
    )
    parser.add_argument("--games", type=int, default=200, help="games per pairing")
    budgets = parser.add_mutually_exclusive_group()
    budgets.add_argument(
        "--iterations",
        type=int,
        default=DEFAULT_ITERATIONS,
        help=f"strong's search iterations per decision (default {DEFAULT_ITERATIONS}; load-independent)",
    )
    budgets.add_argument("--think-ms", type=float, help="strong's milliseconds per decision instead")
    parser.add_argument(
        "--pairing", action="append", help="only pairings whose name contains this (repeatable)"
    )
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--game", action="append", help="only these games (repeatable)")
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    args = parser.parse_args()
    games = 4 if args.quick else args.games
    think_ms = None if args.quick else args.think_ms
    iterations = 10 if args.quick else None if think_ms is not None else args.iterations
    plan = pairings(set(args.game) if args.game else None)
    if args.pairing:
        plan = [p for p in plan if any(text in p.name for text in args.pairing)]
    tallies = {p: LevelTally() for p in plan}
    speed: dict[str, LevelTally] = {}
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=args.processes) as pool:
        futures = [pool.submit(play, p, n, think_ms, iterations) for p in plan for n in range(games)]
        for done, future in enumerate(as_completed(futures), 1):
            pairing, result = future.result()
            tallies[pairing].add(result)
            speed.setdefault(pairing.game, LevelTally()).add(result)
            if done % 50 == 0:
                print(
                    f"{done}/{len(futures)} games, {time.monotonic() - started:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
    elapsed = time.monotonic() - started
    print(
        f"Bot tournaments ({time.strftime('%Y-%m-%d %H:%M')}): {games} games per pairing, seats rotated, "
        + _budget_text(iterations, think_ms)
        + f", {args.processes} processes, {elapsed:.0f} s, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    rows = []
    for pairing, tally in tallies.items():
        first = str(pairing.levels[0])
        figures = tally.levels[first]
        seats = figures.seats
        rate = figures.wins / seats if seats else 0.0
        low, high = wilson(figures.wins, seats)
        met = "✓" if rate >= pairing.target else "✗"
        rows.append(
            (
                pairing.name,
                f"{first} {rate:6.1%}  [{low:5.1%}, {high:5.1%}]",
                f">= {pairing.target:.0%} {met}",
            )
        )
    for game, tally in speed.items():
        for level, figures in sorted(tally.levels.items()):
            per_s = figures.decisions / figures.seconds if figures.seconds else 0.0
            ms = 1000 * figures.seconds / figures.decisions if figures.decisions else 0.0
            rows.append((f"speed {game} {level}", f"{ms:.2f} ms/decision, {per_s:,.0f} decisions/s", ""))
    direct, hop, size = pool_overhead()
    rows.append(
        (
            "process pool hop (draco 5p view)",
            f"{hop - direct:.2f} ms per decision ({direct:.2f} direct, {hop:.2f} via pool; {size:,} bytes)",
            "",
        )
    )
    width = max(len(r[0]) for r in rows)
    value_width = max(len(r[1]) for r in rows)
    print(f"{'pairing':<{width}} | {'win rate [95 % Wilson]':<{value_width}} | target")
    print(f"{'-' * width}-+-{'-' * value_width}-+-{'-' * 12}")
    for name, value, target in rows:
        print(f"{name:<{width}} | {value:<{value_width}} | {target}")
    if args.json:
        raw = {p.name: t.summary() for p, t in tallies.items()}
        budget = {"think_ms": think_ms, "iterations": iterations}
        args.json.write_text(json.dumps({**budget, "games": games, "pairings": raw}, indent=1))


def _budget_text(iterations: int | None, think_ms: float | None) -> str:
    if iterations is not None:
        normal = budget_for(Level.NORMAL, iterations=iterations).iterations
        return f"strong {iterations} iterations a decision (normal {normal})"
    assert think_ms is not None
    return f"strong {think_ms:g} ms a decision (normal {think_ms / 4:g})"


if __name__ == "__main__":
    main()
