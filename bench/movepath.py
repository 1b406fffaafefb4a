"""CPU cost of the move path, in process: the app over ASGI (no sockets) on a fresh PostgreSQL database.

One match per game is played by random legal moves through the JSON API, one request at a time;
for each request the process CPU time and the wall time are recorded, grouped by how long the
match's log already is. The CPU milliseconds per request are what bounds the throughput of one
worker, and unlike wall times they hardly depend on what else runs on the machine. Run:

    .venv/bin/python bench/movepath.py [--decisions 400] [--profile out.html]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from app.web.security import CSRF_HEADER, SESSION_COOKIE  # noqa: E402
from bench.server import SECRET_KEY, BenchUser, create_database, drop_database, seed_users  # noqa: E402

BUCKETS = (0, 100, 200, 300)
GAMES = (("draco", 3), ("drachenland", 3), ("felsental", 2))


@dataclass(frozen=True)
class Cost:
    kind: str
    bucket: int
    cpu_ms: float
    wall_ms: float
    queries: int = 0


def _bucket(logged: int) -> int:
    return max(b for b in BUCKETS if logged >= b)


class QueryCounter:
    """Counts the SQL statements the app's engine sends (``before_cursor_execute``)."""

    def __init__(self) -> None:
        self.count = 0

    def attach(self, app: Any) -> None:
        from sqlalchemy import event

        def bump(*_args: Any) -> None:
            self.count += 1

        event.listen(app.state.engine.sync_engine, "before_cursor_execute", bump)


async def play(
    app: Any,
    users: list[BenchUser],
    game: str,
    seats: int,
    decisions: int,
    counter: QueryCounter | None = None,
) -> list[Cost]:
    """Play one match of ``game`` for ``decisions`` accepted decisions; the cost of each request."""
    counter = counter or QueryCounter()
    transport = httpx.ASGITransport(app=app)
    clients = [
        httpx.AsyncClient(
            transport=transport,
            base_url="http://127.0.0.1:8000",
            cookies={SESSION_COOKIE: u.token},
            headers={CSRF_HEADER: u.csrf},
        )
        for u in users[:seats]
    ]
    costs: list[Cost] = []
    rng = random.Random(7)

    async def timed(kind: str, logged: int, call: Any) -> httpx.Response:
        cpu, wall, queries = time.process_time(), time.perf_counter(), counter.count
        response: httpx.Response = await call
        costs.append(
            Cost(
                kind,
                _bucket(logged),
                (time.process_time() - cpu) * 1000,
                (time.perf_counter() - wall) * 1000,
                counter.count - queries,
            )
        )
        return response

    try:
        created = await clients[0].post("/api/matches", json={"game": game, "seats": seats, "options": {}})
        created.raise_for_status()
        match_id = created.json()["id"]
        for client in clients[1:]:
            joined = await client.post(
                f"/api/matches/{match_id}/join", json={"invite_token": created.json()["invite_token"]}
            )
            joined.raise_for_status()
        views = [(await c.get(f"/api/matches/{match_id}")).json() for c in clients]
        logged = 0
        done = 0
        while done < decisions and views[0]["status"] == "active":
            acting = next(i for i, v in enumerate(views) if v["viewer_seat"] in v["to_act"] and v["legal"])
            view = views[acting]
            body = {
                "move": rng.choice(view["legal"]),
                "expected_version": view["version"],
                "request_id": secrets.token_urlsafe(12),
            }
            response = await timed(
                "move", logged, clients[acting].post(f"/api/matches/{match_id}/moves", json=body)
            )
            response.raise_for_status()
            result = response.json()
            done += 1
            views[acting] = result["match"]
            if result["committed"]:
                costs[-1] = replace(costs[-1], kind="commit")
                logged = _logged(result["match"])
                for i, client in enumerate(clients):
                    if i != acting:
                        answer = await timed("view", logged, client.get(f"/api/matches/{match_id}"))
                        views[i] = answer.json()
                if done % 10 == 0:
                    other = (acting + 1) % len(clients)
                    await timed("page", logged, clients[other].get(f"/matches/{match_id}"))
    finally:
        for client in clients:
            await client.aclose()
    return costs


def _logged(match: dict[str, Any]) -> int:
    """Committed decisions so far: the highest logged sequence number."""
    return max((e["seq"] for e in match["log"] if not e["pending"]), default=0)


def summarise(costs: list[Cost]) -> Iterator[str]:
    groups: dict[tuple[str, int], list[Cost]] = defaultdict(list)
    for cost in costs:
        groups[(cost.kind, cost.bucket)].append(cost)
    yield (
        f"{'request':<8} {'log':>8} {'n':>5} {'cpu ms p50':>11} {'cpu ms mean':>12} {'wall ms p50':>12}"
        f" {'SQL/request':>12}"
    )
    for (kind, bucket), group in sorted(groups.items()):
        upper = next((b for b in BUCKETS if b > bucket), None)
        span = f"{bucket}-{upper}" if upper else f"{bucket}+"
        yield (
            f"{kind:<8} {span:>8} {len(group):>5} {statistics.median(c.cpu_ms for c in group):>11.2f} "
            f"{statistics.fmean(c.cpu_ms for c in group):>12.2f} "
            f"{statistics.median(c.wall_ms for c in group):>12.2f} "
            f"{statistics.fmean(c.queries for c in group):>12.1f}"
        )


async def main(decisions: int, profile: Path | None) -> None:
    name = f"drachenhort_movepath_{secrets.token_hex(4)}"
    data_dir = Path(tempfile.mkdtemp(prefix="drachenhort-movepath-"))
    url = await create_database(name)
    try:
        users = await seed_users(name, 4)
        app = create_app(Settings(database_url=url, secret_key=SECRET_KEY, data_dir=data_dir))
        profiler = None
        if profile is not None:
            from pyinstrument import Profiler

            profiler = Profiler(interval=0.0005, async_mode="enabled")
        costs: list[Cost] = []
        async with app.router.lifespan_context(app):
            counter = QueryCounter()
            counter.attach(app)
            with profiler or nullcontext():
                for game, seats in GAMES:
                    costs += await play(app, users, game, seats, decisions, counter)
        if profiler is not None and profile is not None:
            if profile.suffix == ".html":
                profile.write_text(profiler.output_html())
            else:
                profile.write_text(profiler.output_text(unicode=True))
        for line in summarise(costs):
            print(line)
    finally:
        await drop_database(name)
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--decisions", type=int, default=400, help="accepted decisions per game")
    parser.add_argument("--profile", type=Path, help="write a pyinstrument profile (.html or text)")
    args = parser.parse_args()
    asyncio.run(main(args.decisions, args.profile))
