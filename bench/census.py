"""Statements and transactions per decision, counted by PostgreSQL: one table, one at a time.

A server of its own on a database that logs every statement (``log_statement = all``, that
database only), so the load runs are not slowed by the logging. One table of 3 seats plays
Draco through the API exactly as in ``bench.load``, but one decision at a time: after each, once
every other seat's stream has the new version, the statements logged since the decision began
are its own (those of the pushes included). Then views are fetched (``GET /api/matches/ID``)
and counted the same way.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench import load, pgstats
from bench.appserver import AppServer

KINDS = ("committing", "pending", "view", "stream open")


@dataclass
class Census:
    workers: int
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    seen: dict[str, pgstats.Statements] = field(default_factory=dict)
    last_match: int = 0
    pg_stat_statements: bool = False
    """Whether pg_stat_statements could be used (it needs shared_preload_libraries)."""

    def add(self, kind: str, statements: pgstats.Statements, times: int = 1) -> None:
        self.counts[kind] += times
        self.seen.setdefault(kind, pgstats.Statements()).add(statements)

    def per(self, kind: str) -> tuple[float, float, dict[str, float]]:
        """(statements, transactions, statements by first word) per ``kind``."""
        n = self.counts.get(kind, 0)
        s = self.seen.get(kind, pgstats.Statements())
        if not n:
            return float("nan"), float("nan"), {}
        return s.total / n, s.transactions / n, {k: v / n for k, v in sorted(s.by_kind.items())}


async def _settled(table: load.Table, match_id: int, version: int) -> None:
    """Until every seat's stream delivered ``version`` (or 2 s passed)."""
    deadline = time.perf_counter() + 2.0
    while time.perf_counter() < deadline:
        if all(
            any(v >= version for v, _ in table.rec.arrivals.get((match_id, s.account.user_id), []))
            for s in table.seats
        ):
            return
        table.news.clear()
        try:
            await asyncio.wait_for(table.news.wait(), max(0.0, deadline - time.perf_counter()))
        except TimeoutError:
            return


async def run(workers: int, decisions: int, views: int, log_dir: Path) -> Census:
    database = f"bench_census_w{workers}_{secrets.token_hex(3)}"
    census = Census(workers)
    async with AppServer(database, workers, log_dir, log_statements=True) as server:
        census.pg_stat_statements = await pgstats.pg_stat_statements_usable(database)
        accounts = [await load.register(server.port, f"c{n}x{secrets.token_hex(3)}", n) for n in range(3)]
        table = load.Table(
            [load.Seat(a, server.port) for a in accounts],
            load.Recorder(),
            load.Shape(tables=1),
            random.Random(7),
        )
        while census.counts["committing"] + census.counts["pending"] < decisions:
            await _one_match(table, census, database, decisions)
        await _views(table, census, database, views)
        for seat in table.seats:
            await seat.conn.aclose()
    return census


async def _one_match(table: load.Table, census: Census, database: str, decisions: int) -> None:
    match_id = await table.make_match()
    log = pgstats.StatementLog(database)
    readies = [asyncio.Event() for _ in table.seats]
    for seat in table.seats:
        seat.view, seat.log_seq = None, 0
    listeners = [
        asyncio.create_task(table._listen(s, match_id, r)) for s, r in zip(table.seats, readies, strict=True)
    ]
    try:
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 10)
        await asyncio.sleep(0.05)
        census.add("stream open", log.take(), len(table.seats))
        while census.counts["committing"] + census.counts["pending"] < decisions:
            actor = next((s for s in table.seats if s.acts()), None)
            if actor is None:
                table.news.clear()
                if any(s.view is not None and s.view["status"] != "active" for s in table.seats):
                    return
                await asyncio.wait_for(table.news.wait(), 5)
                continue
            before = len(table.rec.commits)
            await table.decide(actor, match_id)
            committed = len(table.rec.commits) > before
            if committed:
                await _settled(table, match_id, table.rec.commits[-1][1])
            await asyncio.sleep(0.02)
            census.add("committing" if committed else "pending", log.take())
    finally:
        for task in listeners:
            task.cancel()
        await asyncio.gather(*listeners, return_exceptions=True)
        census.last_match = match_id


async def _views(table: load.Table, census: Census, database: str, views: int) -> None:
    match_id = census.last_match
    log = pgstats.StatementLog(database)
    for n in range(views):
        seat = table.seats[n % len(table.seats)]
        answer = await seat.conn.request("GET", f"/api/matches/{match_id}?log_after={seat.log_seq}")
        if answer.status == 200:
            await asyncio.sleep(0.01)
            census.add("view", log.take())


def rows(census: Census) -> list[tuple[str, str, str]]:
    out = []
    for kind in KINDS:
        statements, transactions, by_kind = census.per(kind)
        words = ", ".join(f"{k} {v:.2f}" for k, v in by_kind.items() if v >= 0.005)
        target = {"committing": "≤ 6 statements", "view": "≤ 2, no BEGIN/ROLLBACK"}.get(kind, "")
        out.append(
            (
                f"statements per {kind} ({census.workers} worker{'s' if census.workers > 1 else ''},"
                f" n={census.counts[kind]})",
                f"{statements:.2f} stmts, {transactions:.2f} xacts ({words})",
                target,
            )
        )
    return out
