"""Every benchmark in one run: ``make bench`` (``python bench/run.py``). Figures, never asserts.

1. engines: decisions/s, random games/s, cold rebuild of a 300-decision match (``bench/engines.py``);
2. the statement census: statements and transactions per committing decision, pending decision,
   view and stream open, counted from PostgreSQL's own log (``bench/census.py``);
3. the move path under the closed loop of issue 12 (``bench/load.py``): Draco, M tables x 3
   seats, real users, the other seats on ``/api/live``; at 10 x 3 and 50 x 3 with 1 and 2
   uvicorn workers, each run followed by boardgame.io 0.50.2 + PostgreSQL at the same shape
   (``bench/peer.py``), so every ratio Drachenhort / boardgame.io is of two runs side by side
   (both confirm modes: the confirm as a request of its own, and sent in the move; issue 24.4's
   targets ≥ 1.0× and ≥ 1.5× are printed beside them); with 1 worker the same load then goes
   through the pages (form POSTs as a click sends them, every seat on ``/sse/live``), its
   server CPU per decision printed beside the JSON run's of the same mode (target ≤ 1.5×).
   Issue 24.4's figures alone: ``bench/run.py --only load --workers 1 --tables 10 50``;
4. the answer of a long Drachenland match: size and server time at decision 1 vs ~2,000
   (``bench/longmatch.py``);
5. a replay step of a finished Drachenland match of ~2,900 steps: CPU and bytes at step 10,
   1,000 and 2,800 (``bench/replay_step.py``).

The machine is shared: each figure carries the load average at the start and the end of its
window. ``--quick`` is a ~2-minute smoke run; ``--json FILE`` also writes the raw figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import sys
import time
from collections.abc import Coroutine, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import census, engines, load, longmatch, measure, peer, replay_step  # noqa: E402
from bench.load import progress  # noqa: E402
from bench.measure import RunFigures  # noqa: E402

LOG_DIR = Path(os.environ.get("BENCH_LOG_DIR", str(ROOT / "var" / "bench")))


def machine() -> str:
    model = "unknown CPU"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    load1, load5, _ = os.getloadavg()
    return (
        f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load average {load1:.1f}/{load5:.1f}"
    )


def print_table(title: str, header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    print(f"\n{title}")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)) + " |")


def _ms(values: tuple[float, float, float]) -> str:
    return "/".join("–" if math.isnan(v) else f"{v:.0f}" if v >= 10 else f"{v:.1f}" for v in values)


def _num(value: float, digits: int = 1) -> str:
    return "–" if math.isnan(value) else f"{value:,.{digits}f}"


RUN_HEADER = (
    "run",
    "turns/s",
    "decisions/s",
    "mover p50/p95/p99 ms",
    "others p50/p95/p99 ms",
    "server ms/decision",
    "server ms/turn",
    "PG ms/decision",
    "all postgres ms/turn",
    "xacts/decision",
    "WAL B/turn",
    "load avg",
    "loadgen %",
)


def run_row(f: RunFigures) -> tuple[str, ...]:
    name = f"{f.system} {f.tables}×3" + (f" w{f.workers}{_mode(f)}" if f.system == "drachenhort" else "")
    return (
        name,
        _num(f.turns_per_s),
        _num(f.decisions_per_s),
        _ms(f.mover_ms),
        _ms(f.others_ms),
        _num(f.server_ms_per_decision, 2),
        _num(f.server_ms_per_turn, 2),
        _num(f.pg_ms_per_decision, 2),
        _num(f.pg_all_ms_per_turn, 2),
        _num(f.xacts_per_decision, 2),
        _num(f.wal_bytes_per_turn, 0),
        f"{f.loadavg[0]:.1f}→{f.loadavg[1]:.1f}",
        _num(f.loadgen_cpu_pct, 0),
    )


def _mode(f: RunFigures) -> str:
    return (" pages" if f.pages else "") + (" +confirm" if f.confirm_in_move else "")


TARGET = {False: 1.0, True: 1.5}
"""Issue 24.4: committed turns/s against the peer, confirm apart and confirm in the move."""


def ratio_row(ours: RunFigures, theirs: RunFigures) -> tuple[str, ...]:
    def ratio(a: float, b: float) -> str:
        return "–" if not b or math.isnan(a) or math.isnan(b) else f"{a / b:.2f}×"

    return (
        f"{ours.tables}×3 w{ours.workers}{_mode(ours)}",
        ratio(ours.turns_per_s, theirs.turns_per_s),
        f"≥ {TARGET[ours.confirm_in_move]:.1f}×" if ours.workers == 1 and not ours.pages else "",
        ratio(ours.server_ms_per_decision, theirs.server_ms_per_decision),
        ratio(ours.server_ms_per_turn, theirs.server_ms_per_turn),
        ratio(ours.pg_all_ms_per_turn, theirs.pg_all_ms_per_turn),
        ratio(ours.others_ms[1], theirs.others_ms[1]),
        f"{ours.loadavg[0]:.1f}/{theirs.loadavg[0]:.1f}",
    )


def pages_row(json_run: RunFigures, pages_run: RunFigures) -> tuple[str, ...]:
    def ratio(a: float, b: float) -> str:
        return "–" if not b or math.isnan(a) or math.isnan(b) else f"{a / b:.2f}×"

    return (
        f"{json_run.tables}×3 w{json_run.workers}{_mode(json_run)}",
        f"{_num(json_run.server_ms_per_decision, 2)} / {_num(pages_run.server_ms_per_decision, 2)}",
        ratio(pages_run.server_ms_per_decision, json_run.server_ms_per_decision),
        f"{_num(json_run.server_ms_per_turn, 2)} / {_num(pages_run.server_ms_per_turn, 2)}",
        ratio(pages_run.server_ms_per_turn, json_run.server_ms_per_turn),
        f"{_num(json_run.turns_per_s)} / {_num(pages_run.turns_per_s)}",
        f"{_ms(json_run.others_ms)} / {_ms(pages_run.others_ms)}",
    )


def _in_run_order(pairs: Sequence[tuple[RunFigures, RunFigures | None]]) -> list[RunFigures]:
    """Every run once (a peer run is shared by the two Drachenhort runs around it)."""
    runs: list[RunFigures] = []
    for pair in pairs:
        runs += [f for f in pair if f is not None and not any(f is r for r in runs)]
    return runs


def _attempt(run: Coroutine[Any, Any, RunFigures]) -> RunFigures | None:
    """The run's figures, or None (said on stderr) when it failed: the other runs still go."""
    try:
        return asyncio.run(run)
    except Exception as error:
        progress(f"  FAILED: {type(error).__name__}: {error}")
        return None


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="a ~2-minute smoke run of every part")
    parser.add_argument("--tables", type=int, nargs="+", help="default: 10 50 (quick: 10)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, help="the measured window of each run (default 30, quick 8)")
    parser.add_argument("--no-peer", action="store_true", help="Drachenhort only")
    parser.add_argument(
        "--confirm",
        choices=["apart", "in-move", "both"],
        default="both",
        help="Drachenhort's mover: confirm as its own request, sent with the move, or both (default)",
    )
    parser.add_argument(
        "--no-pages", action="store_true", help="no runs through the pages (form POSTs, /sse/live)"
    )
    parser.add_argument("--only", choices=["engines", "census", "load", "long", "replay"], nargs="+")
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    parser.add_argument(
        "--profile", type=Path, help="then one more 10×3 run, 1 worker under pyinstrument (.txt or .html)"
    )
    args = parser.parse_args()
    parts = set(args.only or ["engines", "census", "load", "long", "replay"])
    seconds = args.seconds or (8.0 if args.quick else 30.0)
    tables = args.tables or ([10] if args.quick else [10, 50])
    modes = {"apart": [False], "in-move": [True], "both": [False, True]}[args.confirm]
    started = time.monotonic()
    before = machine()
    raw: dict[str, object] = {"machine": before}
    LOG_DIR.mkdir(parents=True, exist_ok=True)

    engine_figures: list[engines.EngineFigures] = []
    if "engines" in parts:
        progress("engines")
        engine_figures = engines.run(0.3 if args.quick else 1.0)
        raw["engines"] = [asdict(f) for f in engine_figures]

    censuses: list[census.Census] = []
    if "census" in parts:
        for workers in [1] if args.quick else sorted(set(args.workers)):
            progress(f"statement census, {workers} worker(s)")
            censuses.append(asyncio.run(census.run(workers, 60 if args.quick else 300, 20, LOG_DIR)))
        raw["census"] = [{"workers": c.workers, **{k: c.per(k) for k in census.KINDS}} for c in censuses]

    pairs: list[tuple[RunFigures, RunFigures | None]] = []
    page_pairs: list[tuple[RunFigures, RunFigures]] = []
    if "load" in parts:
        why_not = "--no-peer" if args.no_peer else peer.available()
        if why_not is None:
            peer.prepare()
        progress(f"registering {max(tables) * 3} users through the API (once: argon2 is slow)")
        users = asyncio.run(measure.Users.register(max(tables) * 3, LOG_DIR))
        try:
            for count in tables:
                for workers in args.workers:
                    # Confirm as its own request, the peer, then confirm sent with the move: both
                    # of ours are compared with the peer run between them.
                    ours = []
                    for confirm_in_move in modes:
                        shape = load.Shape(
                            tables=count,
                            seconds=seconds,
                            warmup=3.0 if args.quick else 4.0,
                            confirm_in_move=confirm_in_move,
                        )
                        how = "confirm in the move" if confirm_in_move else "confirm apart"
                        progress(f"drachenhort {count}×3, {workers} worker(s), {how}, {seconds:.0f} s")
                        ours.append(_attempt(measure.drachenhort(shape, workers, users, LOG_DIR)))
                        if confirm_in_move == modes[0] and why_not is None:
                            progress(f"boardgame.io + PostgreSQL {count}×3, {seconds:.0f} s")
                            theirs = _attempt(peer.run(count, seconds, LOG_DIR))
                        elif confirm_in_move == modes[0]:
                            theirs = None
                    pairs += [(figures, theirs) for figures in ours if figures is not None]
                    if workers != 1 or args.no_pages:
                        continue
                    # The same load through the pages, beside the JSON run of its confirm mode.
                    for confirm_in_move, json_run in zip(modes, ours, strict=True):
                        shape = load.Shape(
                            tables=count,
                            seconds=seconds,
                            warmup=3.0 if args.quick else 4.0,
                            confirm_in_move=confirm_in_move,
                            pages=True,
                        )
                        how = "confirm in the move" if confirm_in_move else "confirm apart"
                        progress(f"drachenhort pages {count}×3, 1 worker, {how}, {seconds:.0f} s")
                        through_pages = _attempt(measure.drachenhort(shape, 1, users, LOG_DIR))
                        if through_pages is not None and json_run is not None:
                            page_pairs.append((json_run, through_pages))
            if args.profile:
                progress(f"profiled drachenhort 10×3, 1 worker -> {args.profile}")
                shape = load.Shape(tables=10, seconds=seconds, confirm_in_move=modes[-1])
                profiled = asyncio.run(
                    measure.drachenhort(shape, 1, users, LOG_DIR, profile=args.profile.resolve())
                )
                raw["profiled"] = asdict(profiled)
        finally:
            asyncio.run(users.drop())
        raw["runs"] = [[asdict(a), asdict(b) if b else None] for a, b in pairs]
        raw["pages"] = [[asdict(a), asdict(b)] for a, b in page_pairs]
        if why_not is not None:
            progress(f"peer not run: {why_not}")

    long_figures: list[longmatch.Point] = []
    if "long" in parts:
        progress("long Drachenland match")
        long_figures = asyncio.run(longmatch.run(LOG_DIR, 300 if args.quick else 2000))
        raw["long"] = [asdict(p) for p in long_figures]

    replay_figures: replay_step.Figures | None = None
    if "replay" in parts:
        progress("replay steps of a long Drachenland match")
        replay_figures = replay_step.run_fresh(1_000 if args.quick else 2_900, 5 if args.quick else 15)
        raw["replay"] = asdict(replay_figures)

    elapsed = time.monotonic() - started
    print(f"Drachenhort bench ({time.strftime('%Y-%m-%d %H:%M')}, {elapsed:.0f} s)")
    print(f"machine: {before}; at the end: load average {os.getloadavg()[0]:.1f}")
    if engine_figures:
        print_table(
            "engines",
            ("game", "seats", "decisions/s", "games/s", "decisions/game", "rebuild"),
            [
                (
                    f.game,
                    str(f.players),
                    f"{f.decisions_per_s:,.0f}",
                    f"{f.games_per_s:.1f}",
                    f"{f.mean_decisions:.0f}",
                    f"{f.rebuild_ms:.1f} ms / {f.rebuild_decisions} decisions",
                )
                for f in engine_figures
            ],
        )
    if censuses:
        print_table(
            "statements per request, counted by PostgreSQL (log_statement = all; one table, one at a time;"
            f" pg_stat_statements {'usable' if censuses[0].pg_stat_statements else 'not loaded'})",
            ("what", "per request", "target"),
            [row for c in censuses for row in census.rows(c)],
        )
    if pairs:
        print_table(
            "closed loop, zero think time: Draco, 3 seats (Drachenhort; +confirm: moves sent with"
            ' "confirm": true); cards, 3 seats (boardgame.io + bgio-postgres)',
            RUN_HEADER,
            [run_row(f) for f in _in_run_order(pairs)] + [run_row(b) for _, b in page_pairs],
        )
        compared = [(a, b) for a, b in pairs if b is not None]
        if compared:
            print_table(
                "Drachenhort ÷ boardgame.io, pairwise (each Drachenhort run and the peer run next to it)",
                (
                    "shape",
                    "turns/s",
                    "target",
                    "server CPU/decision vs /move",
                    "server CPU/turn vs /move",
                    "all-postgres CPU/turn vs /move",
                    "others p95",
                    "load avg (ours/peer)",
                ),
                [ratio_row(a, b) for a, b in compared],
            )
    if page_pairs:
        print_table(
            "the same load through the pages (htmx form POSTs, the /sse/live area and badge pushes)"
            " beside the JSON API (/api/live views), JSON / pages; target: pages ≤ 1.5× the JSON CPU",
            (
                "shape",
                "server ms/decision",
                "pages ÷ JSON",
                "server ms/turn",
                "pages ÷ JSON",
                "turns/s",
                "others p50/p95/p99 ms",
            ),
            [pages_row(a, b) for a, b in page_pairs],
        )
    if pairs:
        runs = [*(a for a, _ in pairs), *(b for _, b in page_pairs)]
        notes = [(run_row(a)[0], json.dumps(a.notes, default=str)) for a in runs]
        print_table("notes (Drachenhort runs)", ("run", "notes"), notes)
    if long_figures:
        print_table(
            "a long Drachenland match, 3 seats: the mover's answer by decision number (log_after sent)",
            ("decisions", "answer bytes (mean)", "answer ms (mean)", "server CPU ms/decision", "n"),
            [longmatch.row(p) for p in long_figures],
        )
    if replay_figures:
        print_table(
            f"a replay step of a finished Drachenland match ({replay_figures.decisions:,} decisions,"
            f" {replay_figures.steps:,} steps), as a spectator's GET /api/matches/ID/replay/STEP",
            (
                "step",
                "CPU ms (median)",
                "wall ms (median)",
                "answer bytes",
                "vs the first step (CPU / bytes)",
            ),
            replay_step.rows(replay_figures),
        )
    if args.json:
        args.json.write_text(json.dumps(raw, indent=1, default=str))


if __name__ == "__main__":
    main()
