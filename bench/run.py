"""Every benchmark in one run, printed as ONE table: ``make bench`` (``python bench/run.py``).

- engines: decisions/s, random games/s and the cold rebuild of a 300-decision match, per game
  and player count (``bench/engines.py``);
- the move path over HTTP with 1 and 2 uvicorn workers on a fresh PostgreSQL database, the board
  page, ``pgbench -N`` on the same database and memory per worker (``bench/server.py``).

Figures, not tests: nothing here fails on a slow machine. ``--quick`` is a one-minute smoke run;
``--json FILE`` also writes the raw figures (to compare before and after a change).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import time
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import engines, server  # noqa: E402

REBUILD_TARGET_MS = 20.0


def machine() -> str:
    """CPU model, cores, memory, and how busy the machine was (other work skews every figure)."""
    model = "unknown CPU"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as meminfo:
        total_kb = int(meminfo.readline().split()[1])
    load = os.getloadavg()
    return (
        f"{model}, {os.cpu_count()} cores, {total_kb / 2**20:.0f} GB, Python {platform.python_version()}, "
        f"load average {load[0]:.1f}/{load[1]:.1f}"
    )


def engine_rows(figures: list[engines.EngineFigures]) -> list[tuple[str, str, str]]:
    rows = []
    for f in figures:
        met = "" if f.rebuild_decisions < 300 else ("✓" if f.rebuild_ms < REBUILD_TARGET_MS else "✗")
        rows.append(
            (
                f"engine {f.game} {f.players}p: decisions/s, games/s, rebuild {f.rebuild_decisions} dec.",
                f"{f.decisions_per_s:,.0f}, {f.games_per_s:.1f}, {f.rebuild_ms:.1f} ms",
                f"rebuild < {REBUILD_TARGET_MS:.0f} ms {met}".rstrip(),
            )
        )
    return rows


def print_table(rows: list[tuple[str, str, str]], header: str) -> None:
    width = max(len(r[0]) for r in rows)
    value_width = max(len(r[1]) for r in rows)
    print(header)
    print(f"{'measure':<{width}} | {'value':<{value_width}} | target")
    print(f"{'-' * width}-+-{'-' * value_width}-+-{'-' * 16}")
    for measure, value, target in rows:
        print(f"{measure:<{width}} | {value:<{value_width}} | {target}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="a short smoke run of every part")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    args = parser.parse_args()
    started = time.monotonic()
    before = machine()
    print("engines ...", file=sys.stderr, flush=True)
    engine_figures = engines.run(0.3 if args.quick else 1.0)
    plan = server.QUICK if args.quick else server.Plan()
    server_figures = asyncio.run(server.run(tuple(args.workers), plan))
    rows = engine_rows(engine_figures) + list(server.iter_rows(server_figures))
    elapsed = time.monotonic() - started
    print_table(
        rows,
        f"Drachenhort bench ({time.strftime('%Y-%m-%d %H:%M')}, {elapsed:.0f} s)\n"
        f"machine: {before}; at the end: load average {os.getloadavg()[0]:.1f}",
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "machine": before,
                    "engines": [asdict(f) for f in engine_figures],
                    "server": [asdict(f) for f in server_figures],
                },
                indent=1,
                default=str,
            )
        )


if __name__ == "__main__":
    main()
