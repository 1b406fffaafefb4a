"""A long Drachenland match through the API: does an answer grow with the match?

One table of 3 seats on a server of its own (1 worker) plays Drachenland (~2,000 decisions when
played at random) one decision at a time, as ``bench.load`` plays: the other seats on the live
stream, every decision sent with ``log_after``. For windows of 100 decisions at the start, in
the middle and at the end: the mover's answer size in bytes, its time, and the server's CPU per
decision (the pushes to the other seats included).
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from bench import load
from bench.appserver import AppServer

WINDOW = 100


@dataclass(frozen=True)
class Point:
    first: int
    last: int
    answer_bytes: float
    answer_ms: float
    server_cpu_ms: float
    n: int


def row(p: Point) -> tuple[str, ...]:
    return (
        f"{p.first}–{p.last}",
        f"{p.answer_bytes:,.0f}",
        f"{p.answer_ms:.1f}",
        f"{p.server_cpu_ms:.2f}",
        str(p.n),
    )


class _Sizes(load.Table):
    """A table that also notes each answer's size and the server's CPU per decision."""

    def __init__(self, seats: list[load.Seat], server: AppServer) -> None:
        super().__init__(seats, load.Recorder(), load.Shape(tables=1, game="drachenland"), random.Random(3))
        self.server = server
        self.samples: list[tuple[int, float, float]] = []
        """(answer bytes, answer seconds, server CPU seconds) per decision."""

    async def decide(self, actor: load.Seat, match_id: int) -> None:
        before_cpu = self.server.cpu_seconds()
        count = len(self.rec.decisions)
        await super().decide(actor, match_id)
        if len(self.rec.decisions) > count:
            started, answered, committed = self.rec.decisions[-1]
            if committed:  # the pushes to the other seats belong to the decision
                await asyncio.sleep(0.002)
            cpu = self.server.cpu_seconds() - before_cpu
            self.samples.append((self.rec.answer_bytes[-1], answered - started, cpu))


async def run(log_dir: Path, decisions: int = 2000) -> list[Point]:
    database = f"bench_long_{secrets.token_hex(3)}"
    async with AppServer(database, 1, log_dir) as server:
        accounts = [await load.register(server.port, f"l{n}x{secrets.token_hex(3)}", n) for n in range(3)]
        table = _Sizes([load.Seat(a, server.port) for a in accounts], server)
        match_id = await table.make_match()
        deadline = time.perf_counter() + 600

        def stop_at() -> float:
            done = len(table.samples) >= decisions or time.perf_counter() > deadline
            return 0.0 if done else float("inf")

        await table.play(match_id, stop_at)
        for seat in table.seats:
            await seat.conn.aclose()
    return points(table.samples)


def points(samples: list[tuple[int, float, float]]) -> list[Point]:
    total = len(samples)
    starts = sorted({0, total // 4 // WINDOW * WINDOW, total // 2 // WINDOW * WINDOW, max(0, total - WINDOW)})
    out = []
    for start in starts:
        window = samples[start : start + WINDOW]
        if not window:
            continue
        n = len(window)
        out.append(
            Point(
                first=start + 1,
                last=start + n,
                answer_bytes=sum(s[0] for s in window) / n,
                answer_ms=1000 * sum(s[1] for s in window) / n,
                server_cpu_ms=1000 * sum(s[2] for s in window) / n,
                n=n,
            )
        )
    return out
