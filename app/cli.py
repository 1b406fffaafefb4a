"""``drachenhort migrate | serve | selfplay | verify-record FILE | bench | admin create NAME``."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from app.admin_cli import add_admin_parser

if TYPE_CHECKING:
    from app.engine.protocol import Game

EXTRA_GAMES_ENV = "DRACHENHORT_EXTRA_GAMES"
"""Comma-separated modules that register extra games (a test server offers its toy game)."""
BENCH_SCRIPT = Path("bench/run.py")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    # Unknown options are only allowed for `bench`, which hands them on to bench/run.py.
    args, extra = parser.parse_known_args(argv)
    if extra and args.run is not _bench:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.rest = [*getattr(args, "rest", []), *extra]
    result: int = args.run(args)
    return result


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="drachenhort", description="Drachenhort: board games with friends")
    commands = parser.add_subparsers(required=True, metavar="command")

    migrate = commands.add_parser("migrate", help="bring the database to the newest schema")
    migrate.set_defaults(run=_migrate)

    serve = commands.add_parser("serve", help="migrate, then serve the web app with uvicorn")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1)
    serve.add_argument("--no-migrate", action="store_true", help="skip the migration step")
    serve.add_argument(
        "--access-log", action="store_true", help="log every request (off: it costs ~2 %% of a worker's CPU)"
    )
    serve.set_defaults(run=_serve)

    selfplay = commands.add_parser("selfplay", help="play random games and check every invariant")
    selfplay.add_argument("--game", required=True)
    selfplay.add_argument("--players", type=int, required=True)
    selfplay.add_argument("--games", type=int, default=100)
    selfplay.add_argument("--seed", type=int, default=0)
    selfplay.add_argument("--undo-every", type=int, default=0, help="undo a pending decision now and then")
    selfplay.add_argument(
        "--bots", help="bot levels, one per seat (random, easy, normal, strong), rotated from game to game"
    )
    selfplay.add_argument(
        "--think-ms", type=float, help="strong's time per decision (normal gets a quarter); default 2000"
    )
    selfplay.set_defaults(run=_selfplay)

    verify = commands.add_parser(
        "verify-record", help="replay a match record and check every decision and random draw"
    )
    verify.add_argument("file", type=Path, help="the record ('-' reads standard input)")
    verify.set_defaults(run=_verify_record)

    bench = commands.add_parser(
        "bench", help="run bench/run.py (other options are passed on)", add_help=False
    )
    bench.set_defaults(run=_bench)

    add_admin_parser(commands)
    return parser


def _verify_record(args: argparse.Namespace) -> int:
    """0 when the record replays exactly (with a Seed: every draw is the seed's), 1 with the line
    and the reason when not, 2 when the file cannot be read."""
    import app.games  # noqa: F401 - importing registers every game
    from app.services.records.format import RecordError, check_record

    try:
        text = sys.stdin.read() if str(args.file) == "-" else args.file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        print(f"cannot read {args.file}: {error}", file=sys.stderr)
        return 2
    try:
        checked = check_record(text)
    except RecordError as error:
        print(f"{args.file}: refused: {error}", file=sys.stderr)
        return 1
    header = checked.header
    how = (
        "every random draw follows from the published seed"
        if header.seed
        else "no seed: the written draws were applied"
    )
    print(f"{args.file}: ok: {header.game} ({header.ruleset}), {len(checked.moves)} decisions; {how}")
    return 0


def _migrate(args: argparse.Namespace) -> int:
    from app.config import get_settings
    from app.db.migrate import current_revision, upgrade_to_head

    url = get_settings().database_url
    upgrade_to_head(url)
    print(f"database at revision {current_revision(url)} ({_safe_url(url)})")
    return 0


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from app.config import get_settings

    if args.workers > 1 and not get_settings().is_postgres:
        # Live updates travel through PostgreSQL's LISTEN/NOTIFY; on SQLite they stay in one process.
        print("several workers need PostgreSQL: SQLite serves one worker", file=sys.stderr)
        return 2
    if not args.no_migrate:
        _migrate(args)
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        proxy_headers=True,
        access_log=args.access_log,
    )
    return 0


def _selfplay(args: argparse.Namespace) -> int:
    import app.games  # noqa: F401 - importing registers every game
    from app.engine.protocol import IllegalMove
    from app.engine.registry import UnknownGame, get_game
    from app.engine.selfplay import play_random_game

    _import_extra_games()
    try:
        game = get_game(args.game)
    except UnknownGame as error:
        print(str(error), file=sys.stderr)
        return 2
    if not game.info.min_players <= args.players <= game.info.max_players:
        print(f"{game.slug} is for {game.info.min_players}-{game.info.max_players} players", file=sys.stderr)
        return 2
    if args.bots is not None:
        return _selfplay_bots(game, args)
    moves = 0
    scores: list[float] = []
    winners = [0] * args.players
    started = time.perf_counter()
    for number in range(args.games):
        seed = args.seed + number
        try:
            result = play_random_game(game, args.players, seed=seed, undo_every=args.undo_every)
        except (AssertionError, IllegalMove) as error:
            print(
                json.dumps({"game": game.slug, "seed": seed, "error": f"{type(error).__name__}: {error}"}),
                file=sys.stderr,
            )
            return 1
        moves += result.decisions
        scores.extend(result.scores)
        for seat, rank in enumerate(result.ranks):
            winners[seat] += rank == 1
    seconds = time.perf_counter() - started
    summary = {
        "game": game.slug,
        "players": args.players,
        "games": args.games,
        "seed": args.seed,
        "moves": moves,
        "seconds": round(seconds, 3),
        "moves_per_second": round(moves / seconds) if seconds else None,
        "moves_per_game": round(moves / args.games, 1) if args.games else None,
        "score_mean": round(statistics.fmean(scores), 2) if scores else None,
        "score_min": min(scores, default=None),
        "score_max": max(scores, default=None),
        "wins_by_seat": winners,
    }
    print(json.dumps(summary))
    return 0


def _selfplay_bots(game: Game, args: argparse.Namespace) -> int:
    """``selfplay --bots``: bots of the given levels play each other, seats rotated per game."""
    from app.bots import Level
    from app.bots.arena import play_match, rotated
    from app.bots.report import LevelTally

    try:
        levels = [Level(name.strip()) for name in args.bots.split(",")]
    except ValueError:
        print(f"--bots takes levels from {', '.join(Level)}", file=sys.stderr)
        return 2
    if len(levels) != args.players:
        print(f"--bots names {len(levels)} levels for {args.players} seats", file=sys.stderr)
        return 2
    tally = LevelTally()
    started = time.perf_counter()
    for number in range(args.games):
        result = play_match(game, rotated(levels, number), args.seed + number, think_ms=args.think_ms)
        tally.add(result)
    seconds = time.perf_counter() - started
    summary = {
        "game": game.slug,
        "players": args.players,
        "games": args.games,
        "seed": args.seed,
        "bots": [str(level) for level in levels],
        "think_ms": args.think_ms,
        "decisions": tally.decisions,
        "seconds": round(seconds, 3),
        "levels": tally.summary(),
    }
    print(json.dumps(summary))
    return 0


def _bench(args: argparse.Namespace) -> int:
    if not BENCH_SCRIPT.exists():
        print(f"{BENCH_SCRIPT} not found (run from the project directory)", file=sys.stderr)
        return 2
    return subprocess.call([sys.executable, str(BENCH_SCRIPT), *args.rest])


def _import_extra_games() -> None:
    for name in (m.strip() for m in os.environ.get(EXTRA_GAMES_ENV, "").split(",")):
        if name:
            importlib.import_module(name)


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


if __name__ == "__main__":
    raise SystemExit(main())
