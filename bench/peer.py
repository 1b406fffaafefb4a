"""The peer: boardgame.io 0.50.2 + bgio-postgres, run by its own scripts (``../shared/peer-bench``).

The folder is read-only: ``make bench`` copies it to ``$BENCH_PEER_DIR`` (default
``/work/peer-bench``) and runs ``npm ci`` there once. Each run gets a fresh database, its server
(``NODE_ENV=production node server.js --storage postgres``) and its load generator
(``node load.js``, the configuration of its RESULTS.md: the 3-seat hidden-hand card game,
60-move games, M tables, closed loop, zero think time). Its figures come from load.js's JSON:
moves/s in the steady window, other-seat latency from emitting the move, the server's CPU from
/proc, every postgres process's CPU (neighbours included, as load.js measures it), and the
``pg_stat_database`` commits per move.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import secrets
import shutil
import subprocess
from pathlib import Path
from typing import Any

from bench import pgstats
from bench.load import progress
from bench.measure import RunFigures

SOURCE = Path(os.environ.get("BENCH_PEER_SOURCE", "/work/shared/peer-bench"))
PEER_DIR = Path(os.environ.get("BENCH_PEER_DIR", "/work/peer-bench"))
MOVES_PER_GAME = 60


def available() -> str | None:
    """None when the peer can run, else why not."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return "node/npm not found"
    if not (PEER_DIR / "load.js").exists() and not (SOURCE / "load.js").exists():
        return f"neither {PEER_DIR} nor {SOURCE} holds the peer bench"
    return None


def prepare() -> None:
    """Copy the read-only peer folder out and ``npm ci`` in the copy (once)."""
    if not (PEER_DIR / "load.js").exists():
        shutil.copytree(SOURCE, PEER_DIR, ignore=shutil.ignore_patterns("node_modules", "results"))
        for path in [PEER_DIR, *PEER_DIR.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)
    if not (PEER_DIR / "node_modules" / "boardgame.io").exists():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"], cwd=PEER_DIR, check=True, capture_output=True
        )


async def _start_server(url: str, log: Path) -> tuple[subprocess.Popen[bytes], int]:
    env = {**os.environ, "NODE_ENV": "production"}
    command = ["node", "server.js", "--port", "0", "--storage", "postgres", "--pg-url", url]
    out = log.open("wb")
    server = subprocess.Popen(command, cwd=PEER_DIR, env=env, stdout=out, stderr=subprocess.STDOUT)
    for _ in range(300):
        text = log.read_text() if log.exists() else ""
        for line in text.splitlines():
            if line.startswith("READY"):
                return server, int(line.split()[1])
        if server.poll() is not None:
            raise RuntimeError(f"peer server exited: {text}")
        await asyncio.sleep(0.1)
    server.kill()
    raise RuntimeError("peer server did not start")


async def run(
    tables: int, seconds: float, log_dir: Path, *, expected_moves_per_s: float = 400.0
) -> RunFigures:
    """One run of boardgame.io + PostgreSQL at ``tables`` x 3 seats for about ``seconds``."""
    database = f"bench_peer_{tables}x3_{secrets.token_hex(3)}"
    url = pgstats.dsn(database)
    games = max(tables * 2, math.ceil(expected_moves_per_s * seconds / MOVES_PER_GAME))
    await pgstats.fresh_database(database)
    log_dir.mkdir(parents=True, exist_ok=True)
    out = log_dir / f"{database}.json"
    server, port = await _start_server(url, log_dir / f"{database}-server.log")
    before = os.getloadavg()[0]
    try:
        command = [
            "node", "load.js", "--port", str(port), "--game", "cards", "--slots", str(tables),
            "--games", str(games), "--moves", str(MOVES_PER_GAME), "--duration", str(int(seconds)),
            "--server-pid", str(server.pid), "--pg-url", url, "--label", database, "--out", str(out),
        ]  # fmt: skip
        progress(f"  boardgame.io: {games} games of {MOVES_PER_GAME} moves, {tables} tables")
        loader = await asyncio.create_subprocess_exec(
            *command, cwd=PEER_DIR, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
        )
        text, _ = await loader.communicate()
        (log_dir / f"{database}.txt").write_bytes(text)
        if loader.returncode != 0:
            raise RuntimeError(f"peer load.js failed: {text.decode()[-2000:]}")
    finally:
        server.terminate()
        await asyncio.to_thread(server.wait, 10)
        await pgstats.drop_database(database)
    return figures(json.loads(out.read_text()), tables, (before, os.getloadavg()[0]))


def figures(result: dict[str, Any], tables: int, loadavg: tuple[float, float]) -> RunFigures:
    play, cpu, lat = result["play"], result["cpu"], result["latency_ms"]
    moves = max(1, play["committed_moves"])
    wall = cpu["wall_s"]
    pg = result.get("pg_delta") or {}
    server_ms = (cpu["server_cpu_pct"] or 0) / 100 * wall * 1000 / moves

    def triple(d: dict[str, float]) -> tuple[float, float, float]:
        return (d["p50"], d["p95"], d["p99"])

    per_move = {k: pg.get(k, 0) / moves for k in ("tup_fetched", "tup_inserted", "tup_updated")}
    return RunFigures(
        system="boardgame.io",
        tables=tables,
        workers=1,
        seconds=play["steady_window_s"],
        decisions_per_s=play["moves_per_s_steady"],
        turns_per_s=play["moves_per_s_steady"],
        mover_ms=triple(lat["own_ack"]),
        others_ms=triple(lat["other_seat"]),
        server_ms_per_decision=server_ms,
        server_ms_per_turn=server_ms,
        server_cpu_pct=cpu["server_cpu_pct"] or 0.0,
        pg_ms_per_decision=float("nan"),
        pg_all_ms_per_turn=cpu["postgres_cpu_pct"] / 100 * wall * 1000 / moves,
        xacts_per_decision=(pg.get("xact_commit", 0) + pg.get("xact_rollback", 0)) / moves,
        rows_per_decision=per_move,
        wal_bytes_per_turn=pg.get("wal_bytes", 0) / moves,
        loadavg=loadavg,
        loadgen_cpu_pct=cpu["loadgen_cpu_pct"],
        notes={
            "games_completed": play["games_completed"],
            "games_stalled": play["games_stalled"],
            "moves_per_s_overall": play["moves_per_s_overall"],
            "machine_steal_pct": cpu.get("machine_steal_pct"),
            "stored": result.get("pg_stored"),
        },
    )
