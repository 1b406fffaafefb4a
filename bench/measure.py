"""One measured run of either system, as the same figures (``RunFigures``).

``drachenhort(tables, workers)``: a fresh database, uvicorn with N workers, the load of
``bench.load``; during the window the server's CPU, PostgreSQL's CPU and ``pg_stat_database``
are read. ``bench.peer`` makes the same figures for boardgame.io.
"""

from __future__ import annotations

import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]

from bench import load, pgstats
from bench.appserver import AppServer


@dataclass(frozen=True)
class RunFigures:
    system: str
    tables: int
    workers: int
    seconds: float
    decisions_per_s: float
    turns_per_s: float
    mover_ms: tuple[float, float, float]
    others_ms: tuple[float, float, float]
    server_ms_per_decision: float
    server_ms_per_turn: float
    server_cpu_pct: float
    pg_ms_per_decision: float
    """CPU of the backends of the run's own database."""
    pg_all_ms_per_turn: float
    """CPU of every postgres process on the machine (what load.js measures; neighbours included)."""
    xacts_per_decision: float
    rows_per_decision: dict[str, float]
    wal_bytes_per_turn: float
    loadavg: tuple[float, float]
    """1-minute load average at the start and at the end of the window."""
    loadgen_cpu_pct: float
    notes: dict[str, object] = field(default_factory=dict)
    confirm_in_move: bool = False
    """Drachenhort: moves sent with ``"confirm": true`` (a decision per turn, mostly)."""
    pages: bool = False
    """Drachenhort: played through the pages (form POSTs, ``/sse/live``), not the JSON API."""


@dataclass
class Probe:
    """What the server and PostgreSQL used during the window."""

    server: AppServer
    database: str
    wall: float = 0.0
    server_cpu: float = 0.0
    pg_cpu: tuple[float, float, int] = (0.0, 0.0, 0)
    counters: dict[str, int] = field(default_factory=dict)
    loadavg: tuple[float, float] = (0.0, 0.0)
    backends: tuple[int, int] = (0, 0)
    _pg: pgstats.PgCpu | None = None
    _db: pgstats.DbCounters | None = None
    _conn: asyncpg.Connection | None = None
    _started: float = 0.0

    async def __call__(self, opening: bool) -> None:
        if opening:
            # One connection for the whole window, made before it: a full PostgreSQL
            # (other people's tests share it) must not refuse the probe at the end.
            self._conn = conn = await pgstats.connect()
            self.loadavg = (os.getloadavg()[0], 0.0)
            self._db = await pgstats.DbCounters.read(conn, self.database)
            self._pg = pgstats.PgCpu(self.database)
            await self._pg.start(conn)
            self.server_cpu = self.server.cpu_seconds()
            self._started = time.perf_counter()
        else:
            assert self._pg is not None and self._db is not None and self._conn is not None
            conn = self._conn
            self.wall = time.perf_counter() - self._started
            self.server_cpu = self.server.cpu_seconds() - self.server_cpu
            self.pg_cpu = await self._pg.stop(conn)
            self.backends = self._pg.backends
            after = await pgstats.DbCounters.read(conn, self.database)
            self.counters = await after.since(self._db, conn)
            self.loadavg = (self.loadavg[0], os.getloadavg()[0])
            await conn.close()


@dataclass(frozen=True)
class Users:
    """Users registered through the API once (argon2 makes that slow) in a template database."""

    template: str
    accounts: list[load.Account]

    @classmethod
    async def register(cls, count: int, log_dir: Path) -> Users:
        template = f"bench_users_{secrets.token_hex(3)}"
        async with AppServer(template, 1, log_dir, keep=True) as server:
            accounts = await load.register_many(server.port, count)
        return cls(template, accounts)

    async def drop(self) -> None:
        await pgstats.drop_database(self.template)


async def drachenhort(
    shape: load.Shape, workers: int, users: Users, log_dir: Path, *, profile: Path | None = None
) -> RunFigures:
    """One run on a fresh database (a copy of the users' template), its own uvicorn;
    ``profile``: pyinstrument the (one) worker and write its report there."""
    database = f"bench_{shape.tables}x{shape.seats}_w{workers}_{secrets.token_hex(3)}"
    async with AppServer(database, workers, log_dir, template=users.template, profile=profile) as server:
        probe = Probe(server, database)
        figures = await load.run(server.port, shape, probe, users.accounts)
    # Rates over the probe's own window; per decision with the load's decisions per second.
    dps, tps = figures.decisions_per_s, figures.turns_per_s
    per_s = 1 / probe.wall if probe.wall else 0.0
    pg_own, pg_all, lost = probe.pg_cpu
    c = probe.counters

    def per_decision(value: float) -> float:
        return value * per_s / dps if dps else float("nan")

    return RunFigures(
        confirm_in_move=shape.confirm_in_move,
        pages=shape.pages,
        system="drachenhort",
        tables=shape.tables,
        workers=workers,
        seconds=figures.seconds,
        decisions_per_s=dps,
        turns_per_s=tps,
        mover_ms=figures.mover_ms,
        others_ms=figures.others_ms,
        server_ms_per_decision=1000 * per_decision(probe.server_cpu),
        server_ms_per_turn=1000 * probe.server_cpu * per_s / tps if tps else float("nan"),
        server_cpu_pct=100 * probe.server_cpu * per_s,
        pg_ms_per_decision=1000 * per_decision(pg_own),
        pg_all_ms_per_turn=1000 * pg_all * per_s / tps if tps else float("nan"),
        xacts_per_decision=per_decision(c.get("xact_commit", 0) + c.get("xact_rollback", 0)),
        rows_per_decision={
            k: per_decision(c.get(k, 0)) for k in ("tup_fetched", "tup_inserted", "tup_updated")
        },
        wal_bytes_per_turn=c.get("wal_bytes", 0) * per_s / tps if tps else float("nan"),
        loadavg=probe.loadavg,
        loadgen_cpu_pct=figures.loadgen_cpu_pct,
        notes={
            "rollbacks_per_decision": round(per_decision(c.get("xact_rollback", 0)), 2),
            "others_missing": figures.others_missing,
            "stale": figures.stale,
            "errors": figures.errors,
            "matches_finished": figures.matches_finished,
            "matches_made_in_window": figures.matches_made_in_window,
            "pg_backends_lost": lost,
            "pg_backends": probe.backends,
            "decisions_per_turn": round(dps / tps, 2) if tps else None,
        },
    )
