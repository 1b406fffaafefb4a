"""Engine speed per game and player count: decisions/s, random games/s, cold rebuild of a long match.

Prints figures, asserts nothing about time (this machine is shared and noisy). Run:
    .venv/bin/python bench/engines.py [--seconds 2]
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass

import app.games  # noqa: F401 - registers every game
from app.engine.protocol import Game, Move, Seat
from app.engine.registry import all_games
from app.engine.replay import rebuild
from app.engine.rng import Rng
from app.engine.selfplay import derive_seed, play_random_game


@dataclass(frozen=True)
class EngineFigures:
    game: str
    players: int
    decisions_per_s: float
    games_per_s: float
    mean_decisions: float
    rebuild_ms: float
    rebuild_decisions: int


def record_long_log(game: Game, players: int, minimum: int = 300) -> tuple[bytes, list[tuple[Seat, Move]]]:
    """A logged random match with at least ``minimum`` decisions (or the longest found)."""
    best: tuple[bytes, list[tuple[Seat, Move]]] = (b"", [])
    for number in range(50):
        seed = derive_seed(f"bench-log:{game.slug}", number)
        chooser = Rng(derive_seed(f"bench-chooser:{game.slug}", number))
        rng = Rng(seed)
        options = game.info.default_options()
        state = game.setup(players, options, rng)
        log: list[tuple[Seat, Move]] = []
        while game.outcome(state) is None:
            seat = min(game.to_act(state))
            move = chooser.choice(game.legal_moves(state, seat))
            state, _ = game.apply(state, seat, move, rng)
            log.append((seat, move))
        if len(log) >= minimum:
            return seed, log
        if len(log) > len(best[1]):
            best = (seed, log)
    return best


def measure(game: Game, players: int, seconds: float) -> EngineFigures:
    decisions = games = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds or games == 0:
        result = play_random_game(game, players, seed=games, check=False)
        decisions += result.decisions
        games += 1
    elapsed = time.perf_counter() - started
    seed, log = record_long_log(game, players)
    log = log[:300]
    timings = []
    for _ in range(5):
        t0 = time.perf_counter()
        rebuild(game, players, game.info.default_options(), seed, log)
        timings.append((time.perf_counter() - t0) * 1000)
    return EngineFigures(
        game.slug,
        players,
        decisions / elapsed,
        games / elapsed,
        decisions / games,
        statistics.median(timings),
        len(log),
    )


def run(seconds: float = 2.0) -> list[EngineFigures]:
    figures = []
    for game in all_games():
        for players in sorted({game.info.min_players, game.info.max_players}):
            figures.append(measure(game, players, seconds))
    return figures


def print_table(figures: list[EngineFigures]) -> None:
    print(f"{'game':<12} {'seats':>5} {'decisions/s':>12} {'games/s':>8} {'dec/game':>9} {'rebuild':>14}")
    for f in figures:
        rebuild_text = f"{f.rebuild_ms:.1f} ms/{f.rebuild_decisions}"
        print(
            f"{f.game:<12} {f.players:>5} {f.decisions_per_s:>12,.0f} {f.games_per_s:>8.1f} "
            f"{f.mean_decisions:>9.0f} {rebuild_text:>14}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="self-play time per game and seat count")
    print_table(run(parser.parse_args().seconds))
