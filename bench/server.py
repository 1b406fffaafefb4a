"""The move path over real HTTP: uvicorn on a fresh PostgreSQL database, driven by a load generator.

What it does (``python bench/server.py --workers 1 2``; ``bench/run.py`` calls ``run``):

- creates a bench database (dropped at the end), migrates it, and seeds users with sessions
  (directly in the database: argon2 is deliberately slow and not what is measured here);
- serves the app with ``uvicorn app.main:create_app --factory --workers N`` on 127.0.0.1;
- plays many concurrent matches of all three games through the JSON API, each simulated player
  holding its match's SSE stream open and choosing a random legal move from the API's answer;
  a phase is bounded in time and stops by itself;
- a move round trip is submit -> committed answer -> the nudge arriving on every other player's
  SSE stream (the slowest of them);
- the board page (``GET /matches/{id}``, full HTML) is sampled while the players play, and on the
  idle server for the matches with the longest logs;
- ``pgbench -N`` on the same database with as many clients as the app can hold connections;
- memory (RSS) per worker after 1,000 active matches were loaded through the API.

Prints figures; asserts nothing about time (the machine is shared and noisy).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import random
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import httpx
import psutil
from argon2 import PasswordHasher

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.db.migrate import upgrade_to_head  # noqa: E402
from app.web.security import CSRF_HEADER, SESSION_COOKIE, csrf_token  # noqa: E402

ADMIN_DSN = os.environ.get("BENCH_ADMIN_DSN", "postgresql://postgres@127.0.0.1:5432/postgres")
SECRET_KEY = "bench-secret-key-not-for-production"
PASSWORD = "bench password 123"
PAGE_SAMPLE_SECONDS = 0.5
"""How often a board page is fetched while the players play (a page costs several decisions' CPU)."""
POOL_PER_WORKER = 15
"""SQLAlchemy's default pool: 5 connections plus 10 overflow per worker process."""

TABLES: tuple[tuple[str, int], ...] = (
    ("felsental", 2),
    ("draco", 3),
    ("drachenland", 3),
    ("draco", 2),
    ("drachenland", 2),
    ("draco", 4),
)
"""The tables the load generator seats players at, in turn (game, seats)."""


# --- database -----------------------------------------------------------------------------


def _dsn(database: str) -> str:
    base, _, _ = ADMIN_DSN.rpartition("/")
    return f"{base}/{database}"


async def create_database(name: str) -> str:
    """A fresh, migrated database; returns its SQLAlchemy URL."""
    conn = await asyncpg.connect(ADMIN_DSN)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    url = _dsn(name).replace("postgresql://", "postgresql+asyncpg://", 1)
    await asyncio.to_thread(upgrade_to_head, url)
    return url


async def drop_database(name: str) -> None:
    conn = await asyncpg.connect(ADMIN_DSN)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


@dataclass(frozen=True)
class BenchUser:
    id: int
    name: str
    token: str
    csrf: str


async def seed_users(database: str, count: int, first: int = 0) -> list[BenchUser]:
    """Users with one open session each, written straight into the database."""
    password_hash = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1).hash(PASSWORD)
    now = datetime.now(UTC)
    conn = await asyncpg.connect(_dsn(database))
    users = []
    try:
        async with conn.transaction():
            for number in range(first, first + count):
                name = f"bench{number:04d}"
                user_id = await conn.fetchval(
                    "INSERT INTO users (name, name_key, password_hash, locale, is_admin, created_at)"
                    " VALUES ($1, $1, $2, 'en', false, $3) RETURNING id",
                    name,
                    password_hash,
                    now,
                )
                token = secrets.token_urlsafe(32)
                await conn.execute(
                    "INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at)"
                    " VALUES ($1, $2, $3, $3, $4)",
                    hashlib.sha256(token.encode()).hexdigest(),
                    user_id,
                    now,
                    now + timedelta(days=30),
                )
                users.append(BenchUser(user_id, name, token, csrf_token(SECRET_KEY, f"s:{token}")))
    finally:
        await conn.close()
    return users


async def longest_matches(database: str, limit: int) -> list[tuple[int, int, list[int]]]:
    """(match id, logged decisions, seated user ids) of the active matches with the longest logs."""
    conn = await asyncpg.connect(_dsn(database))
    try:
        rows = await conn.fetch(
            "SELECT m.id, count(mv.seq) AS n FROM matches m JOIN moves mv ON mv.match_id = m.id"
            " WHERE m.status = 'active' GROUP BY m.id ORDER BY n DESC LIMIT $1",
            limit,
        )
        out = []
        for row in rows:
            seats = await conn.fetch("SELECT user_id FROM seats WHERE match_id = $1 ORDER BY seat", row["id"])
            out.append((row["id"], row["n"], [s["user_id"] for s in seats]))
        return out
    finally:
        await conn.close()


async def active_matches(database: str) -> list[tuple[int, int]]:
    """(match id, a seated user id) of every active match."""
    conn = await asyncpg.connect(_dsn(database))
    try:
        rows = await conn.fetch(
            "SELECT m.id, min(s.user_id) AS user_id FROM matches m JOIN seats s ON s.match_id = m.id"
            " WHERE m.status = 'active' GROUP BY m.id ORDER BY m.id"
        )
        return [(r["id"], r["user_id"]) for r in rows]
    finally:
        await conn.close()


# --- the server -----------------------------------------------------------------------------


class UvicornServer:
    """``uvicorn app.main:create_app --factory --workers N`` on a free loopback port."""

    def __init__(self, database_url: str, workers: int, data_dir: Path, profile: Path | None = None) -> None:
        self.database_url = database_url
        self.profile = profile
        self.workers = workers
        self.data_dir = data_dir
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {
            **os.environ,
            "DRACHENHORT_DATABASE_URL": self.database_url,
            "DRACHENHORT_SECRET_KEY": SECRET_KEY,
            "DRACHENHORT_DATA_DIR": str(self.data_dir),
            "DRACHENHORT_BASE_URL": self.base_url,
        }
        env.pop("DATABASE_URL", None)
        target = "app.main:create_app"
        if self.profile is not None:
            target = "bench.profile_app:create"
            env["BENCH_PROFILE"] = str(self.profile)
        command = [
            sys.executable, "-m", "uvicorn", target, "--factory",
            "--host", "127.0.0.1", "--port", str(self.port), "--workers", str(self.workers),
            "--log-level", "warning", "--timeout-graceful-shutdown", "3",
        ]  # fmt: skip
        log = (self.data_dir / f"uvicorn-{self.workers}.log").open("ab")
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"uvicorn exited; see {log.name}")
            with contextlib.suppress(httpx.HTTPError):
                answer = httpx.get(f"{self.base_url}/healthz", timeout=1)
                if answer.status_code == 200 and len(self.worker_processes()) >= self.workers:
                    return
            time.sleep(0.2)
        raise RuntimeError("uvicorn did not become ready in 30 s")

    def worker_processes(self) -> list[psutil.Process]:
        """The processes that serve requests (the master itself when there is one worker)."""
        assert self.process is not None
        master = psutil.Process(self.process.pid)
        if self.workers == 1:
            return [master]
        return [child for child in master.children() if "resource_tracker" not in " ".join(child.cmdline())]

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=120 if self.profile else 15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# --- the load generator ---------------------------------------------------------------------


@dataclass
class Recorder:
    """Everything one phase observed, with monotonic timestamps."""

    window: tuple[float, float] = (0.0, float("inf"))
    commits: list[tuple[int, int, int, int, float, float]] = field(default_factory=list)
    """(match, version, submitting user, other players, submitted, answered)."""
    arrivals: dict[tuple[int, int], dict[int, float]] = field(default_factory=lambda: defaultdict(dict))
    """(match, version) -> user -> when the nudge arrived on that user's SSE stream."""
    decisions: list[float] = field(default_factory=list)
    """Answer time of every accepted decision (pending or committed)."""
    views: list[float] = field(default_factory=list)
    pages: list[float] = field(default_factory=list)
    stale = 0
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    matches_started = 0
    matches_finished = 0
    nudge_timeouts = 0

    def in_window(self, when: float) -> bool:
        return self.window[0] <= when <= self.window[1]

    def error(self, what: str) -> None:
        self.errors[what] += 1


class Player:
    """One simulated user: an HTTP client with the session cookie and the CSRF header."""

    def __init__(self, user: BenchUser, base_url: str) -> None:
        self.user = user
        self.client = httpx.AsyncClient(
            base_url=base_url,
            cookies={SESSION_COOKIE: user.token},
            headers={CSRF_HEADER: user.csrf},
            timeout=httpx.Timeout(60.0),
            limits=httpx.Limits(max_connections=4, max_keepalive_connections=4),
        )

    async def aclose(self) -> None:
        await self.client.aclose()


class Stream:
    """One player's open SSE stream of one match."""

    def __init__(self) -> None:
        self.version = -1
        self.changed = asyncio.Event()
        self.ready = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def newer_than(self, version: int, timeout: float) -> bool:
        """Wait until a nudge names a version above ``version``; False on timeout."""
        deadline = time.perf_counter() + timeout
        while self.version <= version:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                return False
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), remaining)
        return True


async def _listen(player: Player, match_id: int, stream: Stream, rec: Recorder) -> None:
    event = ""
    try:
        async with player.client.stream("GET", f"/sse/matches/{match_id}", timeout=None) as response:
            stream.ready.set()
            async for line in response.aiter_lines():
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:") and event == "match":
                    now = time.perf_counter()
                    version = int(json.loads(line[5:])["version"])
                    rec.arrivals[(match_id, version)].setdefault(player.user.id, now)
                    if version > stream.version:
                        stream.version = version
                        stream.changed.set()
    except httpx.HTTPError:
        rec.error("sse")
    finally:
        stream.ready.set()


@dataclass(frozen=True)
class Pace:
    """Think time before each decision, uniform in [low, high] seconds."""

    low: float = 0.0
    high: float = 0.0

    def pick(self, rng: random.Random) -> float:
        return rng.uniform(self.low, self.high) if self.high > 0 else 0.0


async def _play_seat(
    player: Player,
    match_id: int,
    stream: Stream,
    others: int,
    rec: Recorder,
    pace: Pace,
    deadline: float,
    rng: random.Random,
) -> None:
    view = await _get_view(player, match_id, rec)
    while view is not None and view["status"] == "active" and time.perf_counter() < deadline:
        if view["viewer_seat"] in view["to_act"] and view["legal"]:
            think = pace.pick(rng)
            if think:
                await asyncio.sleep(think)
            body = {
                "move": rng.choice(view["legal"]),
                "expected_version": view["version"],
                "request_id": secrets.token_urlsafe(12),
            }
            submitted = time.perf_counter()
            try:
                response = await player.client.post(f"/api/matches/{match_id}/moves", json=body)
            except httpx.HTTPError:
                rec.error("move transport")
                view = await _get_view(player, match_id, rec)
                continue
            answered = time.perf_counter()
            if response.status_code == 200:
                result = response.json()
                view = result["match"]
                if rec.in_window(answered):
                    rec.decisions.append(answered - submitted)
                if result["committed"]:
                    rec.commits.append(
                        (match_id, result["version"], player.user.id, others, submitted, answered)
                    )
            elif response.status_code == 409:
                rec.stale += 1
                view = response.json()["match"]
            else:
                rec.error(f"move {response.status_code}")
                await asyncio.sleep(0.05)
                view = await _get_view(player, match_id, rec)
        else:
            wait = min(10.0, deadline - time.perf_counter())
            if wait <= 0:
                break
            if not await stream.newer_than(view["version"], wait) and time.perf_counter() < deadline:
                rec.nudge_timeouts += 1
            view = await _get_view(player, match_id, rec)


async def _get_view(player: Player, match_id: int, rec: Recorder) -> dict[str, Any] | None:
    started = time.perf_counter()
    try:
        response = await player.client.get(f"/api/matches/{match_id}")
    except httpx.HTTPError:
        rec.error("view transport")
        return None
    if response.status_code != 200:
        rec.error(f"view {response.status_code}")
        return None
    if rec.in_window(time.perf_counter()):
        rec.views.append(time.perf_counter() - started)
    view: dict[str, Any] = response.json()
    return view


async def _join_all(players: list[Player], summary: dict[str, Any], rec: Recorder) -> int | None:
    match_id = int(summary["id"])
    for player in players[1:]:
        response = await player.client.post(
            f"/api/matches/{match_id}/join", json={"invite_token": summary["invite_token"]}
        )
        if response.status_code != 204:
            rec.error(f"join {response.status_code}")
            return None
    return match_id


async def _table(
    players: list[Player],
    game: str,
    rec: Recorder,
    pace: Pace,
    deadline: float,
    rng: random.Random,
    live: dict[int, list[Player]],
) -> None:
    """Play matches at one table, one after another, until the deadline."""
    while time.perf_counter() < deadline:
        creator = players[0]
        response = await creator.client.post(
            "/api/matches", json={"game": game, "seats": len(players), "options": {}}
        )
        if response.status_code != 201:
            rec.error(f"create {response.status_code}")
            await asyncio.sleep(0.5)
            continue
        summary = response.json()
        match_id = int(summary["id"])
        streams = {p.user.id: Stream() for p in players}
        for p in players:
            streams[p.user.id].task = asyncio.create_task(_listen(p, match_id, streams[p.user.id], rec))
        await asyncio.gather(*(s.ready.wait() for s in streams.values()))
        if await _join_all(players, summary, rec) is None:
            await asyncio.sleep(0.5)
        else:
            rec.matches_started += 1
            live[match_id] = players
            await asyncio.gather(
                *(
                    _play_seat(p, match_id, streams[p.user.id], len(players) - 1, rec, pace, deadline, rng)
                    for p in players
                )
            )
            live.pop(match_id, None)
            if time.perf_counter() < deadline:
                rec.matches_finished += 1
        for s in streams.values():
            assert s.task is not None
            s.task.cancel()
        await asyncio.gather(*(s.task for s in streams.values() if s.task), return_exceptions=True)


async def _sample_pages(
    live: dict[int, list[Player]], rec: Recorder, deadline: float, rng: random.Random
) -> None:
    """Fetch a player's full board page now and then, as a browser opening the match does."""
    while time.perf_counter() < deadline:
        await asyncio.sleep(PAGE_SAMPLE_SECONDS)
        if not live:
            continue
        match_id = rng.choice(list(live))
        player = rng.choice(live.get(match_id) or [])
        started = time.perf_counter()
        try:
            response = await player.client.get(f"/matches/{match_id}")
        except httpx.HTTPError:
            rec.error("page transport")
            continue
        if response.status_code != 200:
            rec.error(f"page {response.status_code}")
        elif rec.in_window(time.perf_counter()):
            rec.pages.append(time.perf_counter() - started)


def seat_tables(players: list[Player]) -> list[tuple[str, list[Player]]]:
    """Split the players into tables of the games in ``TABLES``, in turn."""
    tables: list[tuple[str, list[Player]]] = []
    index = 0
    position = 0
    while len(players) - position >= 2:
        game, seats = TABLES[index % len(TABLES)]
        left = len(players) - position
        if left - seats == 1 or seats > left:
            seats = left if left <= 4 else seats - 1
            game = "draco" if seats > 2 else game
        tables.append((game, players[position : position + seats]))
        position += seats
        index += 1
    return tables


@dataclass(frozen=True)
class PhaseFigures:
    users: int
    tables: int
    pace: Pace
    seconds: float
    moves_per_s: float
    decisions_per_s: float
    round_trip_ms: tuple[float, float, float]
    decision_ms: tuple[float, float, float]
    view_ms: tuple[float, float, float]
    page_ms: tuple[float, float, float]
    commits: int
    missing_nudges: int
    stale: int
    errors: dict[str, int]
    matches_finished: int
    server_cpu_ms_per_decision: float = float("nan")
    """Worker CPU time (all workers) in the window per accepted decision: what one decision costs."""
    loadgen_cpu_share: float = float("nan")
    """CPU seconds the load generator itself used per second of the window (1.0 = a whole core)."""


async def run_phase(
    base_url: str,
    users: list[BenchUser],
    pace: Pace,
    seconds: float,
    warmup: float,
    seed: int = 1,
    workers: list[psutil.Process] | None = None,
) -> PhaseFigures:
    """Seat ``users`` at tables and let them play for ``warmup + seconds``; measure the last part."""
    rng = random.Random(seed)
    players = [Player(u, base_url) for u in users]
    tables = seat_tables(players)
    rec = Recorder()
    start = time.perf_counter()
    rec.window = (start + warmup, start + warmup + seconds)
    deadline = rec.window[1]
    live: dict[int, list[Player]] = {}
    cpu: dict[str, float] = {}

    async def meter() -> None:
        await asyncio.sleep(warmup)
        cpu["server"], cpu["loadgen"] = _cpu(workers or []), time.process_time()
        await asyncio.sleep(seconds)
        cpu["server"], cpu["loadgen"] = (
            _cpu(workers or []) - cpu["server"],
            time.process_time() - cpu["loadgen"],
        )

    try:
        await asyncio.wait_for(
            asyncio.gather(
                meter(),
                *(
                    _table(ps, game, rec, pace, deadline, random.Random(rng.random()), live)
                    for game, ps in tables
                ),
                _sample_pages(live, rec, deadline, rng),
            ),
            timeout=warmup + seconds + 60,
        )
    finally:
        await asyncio.gather(*(p.aclose() for p in players), return_exceptions=True)
    figures = _figures(rec, len(users), len(tables), pace, seconds)
    decisions = len(rec.decisions)
    return replace(
        figures,
        server_cpu_ms_per_decision=cpu["server"] * 1000 / decisions
        if decisions and workers
        else float("nan"),
        loadgen_cpu_share=cpu["loadgen"] / seconds,
    )


def _cpu(processes: list[psutil.Process]) -> float:
    total = 0.0
    for process in processes:
        with contextlib.suppress(psutil.Error):
            times = process.cpu_times()
            total += times.user + times.system
    return total


def _figures(rec: Recorder, users: int, tables: int, pace: Pace, seconds: float) -> PhaseFigures:
    round_trips = []
    missing = 0
    commits = 0
    for match_id, version, user_id, others, submitted, answered in rec.commits:
        if not rec.in_window(answered):
            continue
        commits += 1
        seen = {u: t for u, t in rec.arrivals.get((match_id, version), {}).items() if u != user_id}
        if len(seen) < others:
            missing += 1
            continue
        round_trips.append(max(max(seen.values()), answered) - submitted)
    return PhaseFigures(
        users=users,
        tables=tables,
        pace=pace,
        seconds=seconds,
        moves_per_s=commits / seconds,
        decisions_per_s=len(rec.decisions) / seconds,
        round_trip_ms=percentiles(round_trips),
        decision_ms=percentiles(rec.decisions),
        view_ms=percentiles(rec.views),
        page_ms=percentiles(rec.pages),
        commits=commits,
        missing_nudges=missing,
        stale=rec.stale,
        errors=dict(rec.errors),
        matches_finished=rec.matches_finished,
    )


def percentiles(samples: list[float]) -> tuple[float, float, float]:
    """p50, p95, p99 in milliseconds (NaN without samples)."""
    if len(samples) < 2:
        value = samples[0] * 1000 if samples else float("nan")
        return (value, value, value)
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return (cuts[49] * 1000, cuts[94] * 1000, cuts[98] * 1000)


# --- idle page renders, memory, pgbench ----------------------------------------------------


async def idle_pages(
    base_url: str, database: str, users: dict[int, BenchUser], rounds: int = 30
) -> tuple[tuple[float, float, float], int]:
    """Board page render times on the idle server for the matches with the longest logs."""
    longest = await longest_matches(database, 5)
    samples: list[float] = []
    decisions = 0
    for match_id, logged, seated in longest:
        decisions = max(decisions, logged)
        player = Player(users[seated[0]], base_url)
        try:
            await player.client.get(f"/matches/{match_id}")  # warm the template cache
            for _ in range(rounds):
                started = time.perf_counter()
                response = await player.client.get(f"/matches/{match_id}")
                if response.status_code == 200:
                    samples.append(time.perf_counter() - started)
        finally:
            await player.aclose()
    return percentiles(samples), decisions


async def load_active_matches(
    base_url: str,
    database: str,
    users: list[BenchUser],
    target: int = 1000,
    concurrency: int = 16,
    budget: float = 120.0,
) -> int:
    """Make sure ``target`` matches are active, then fetch each one once through the API."""
    by_id = {u.id: u for u in users}
    active = await active_matches(database)
    missing = max(0, target - len(active))
    players = [Player(u, base_url) for u in users[:32]]
    games = [("draco", 2), ("felsental", 2), ("drachenland", 2)]
    semaphore = asyncio.Semaphore(concurrency)
    rec = Recorder()

    give_up = time.perf_counter() + budget

    async def make(number: int) -> None:
        a, b = players[(2 * number) % len(players)], players[(2 * number + 1) % len(players)]
        async with semaphore:
            if time.perf_counter() > give_up:
                return  # a slow machine: report the matches that are there
            game, seats = games[number % len(games)]
            response = await a.client.post("/api/matches", json={"game": game, "seats": seats, "options": {}})
            if response.status_code == 201:
                await _join_all([a, b], response.json(), rec)

    try:
        await asyncio.gather(*(make(n) for n in range(missing)))
        active = (await active_matches(database))[:target]
        loaders = {uid: Player(by_id[uid], base_url) for uid in {u for _, u in active} if uid in by_id}

        async def load(match_id: int, user_id: int) -> None:
            async with semaphore:
                await loaders[user_id].client.get(f"/api/matches/{match_id}")

        await asyncio.gather(*(load(m, u) for m, u in active if u in loaders))
        await asyncio.gather(*(p.aclose() for p in loaders.values()))
    finally:
        await asyncio.gather(*(p.aclose() for p in players))
    return len(active)


def pgbench(database: str, clients: int, seconds: int) -> float:
    """``pgbench -N`` transactions per second on ``database`` (tables made once per database)."""
    base = ["-h", "127.0.0.1", "-p", "5432", "-U", "postgres"]
    subprocess.run(
        ["pgbench", *base, "-i", "-q", "-s", "4", database],
        check=True,
        capture_output=True,
    )
    done = subprocess.run(
        ["pgbench", *base, "-N", "-n", "-c", str(clients), "-j", "2", "-T", str(seconds), database],
        check=True,
        capture_output=True,
        text=True,
    )
    found = re.search(r"tps = ([0-9.]+)", done.stdout)
    if found is None:
        raise RuntimeError(f"no tps in pgbench's output:\n{done.stdout}\n{done.stderr}")
    return float(found.group(1))


# --- one configuration ----------------------------------------------------------------------


@dataclass(frozen=True)
class ServerFigures:
    workers: int
    paced: PhaseFigures
    saturated: list[PhaseFigures]
    idle_page_ms: tuple[float, float, float]
    idle_page_decisions: int
    pgbench_clients: int
    pgbench_tps: float
    active_matches: int
    rss_idle_mb: list[float]
    rss_loaded_mb: list[float]

    @property
    def best(self) -> PhaseFigures:
        return max(self.saturated, key=lambda p: p.moves_per_s)

    @property
    def ratio(self) -> float:
        return self.best.moves_per_s / self.pgbench_tps if self.pgbench_tps else float("nan")


@dataclass(frozen=True)
class Plan:
    paced_users: int = 100
    pace: Pace = Pace(0.5, 1.5)
    paced_seconds: float = 20.0
    saturation_users: tuple[int, ...] = (50, 100)
    saturation_seconds: float = 12.0
    warmup: float = 4.0
    pgbench_seconds: int = 8
    memory_matches: int = 1000


async def bench_workers(
    workers: int,
    database: str,
    url: str,
    users: list[BenchUser],
    plan: Plan,
    data_dir: Path,
    profile: Path | None = None,
) -> ServerFigures:
    server = UvicornServer(url, workers, data_dir, profile)
    await asyncio.to_thread(server.start)
    try:
        rss_idle = [p.memory_info().rss / 2**20 for p in server.worker_processes()]
        _say(f"{workers} worker(s): {plan.paced_users} users, think {plan.pace.low}-{plan.pace.high} s")
        workers_now = server.worker_processes()
        paced = await run_phase(
            server.base_url,
            users[: plan.paced_users],
            plan.pace,
            plan.paced_seconds,
            plan.warmup,
            workers=workers_now,
        )
        _say(f"  {_phase_line(paced)}")
        saturated = []
        for count in plan.saturation_users:
            _say(f"{workers} worker(s): {count} users, no think time")
            phase = await run_phase(
                server.base_url,
                users[:count],
                Pace(),
                plan.saturation_seconds,
                plan.warmup,
                workers=workers_now,
            )
            _say(f"  {_phase_line(phase)}")
            saturated.append(phase)
        page_ms, page_decisions = await idle_pages(server.base_url, database, {u.id: u for u in users})
        _say(f"  idle board page p50/p95 {page_ms[0]:.1f}/{page_ms[1]:.1f} ms (log {page_decisions})")
        loaded = await load_active_matches(server.base_url, database, users, plan.memory_matches)
        rss_loaded = [p.memory_info().rss / 2**20 for p in server.worker_processes()]
        _say(
            f"  {loaded} active matches loaded: RSS per worker {', '.join(f'{r:.0f}' for r in rss_loaded)} MB"
        )
    finally:
        await asyncio.to_thread(server.stop)
    best = max(saturated, key=lambda p: p.moves_per_s)
    clients = max(2, min(best.tables, POOL_PER_WORKER * workers))
    tps = await asyncio.to_thread(pgbench, database, clients, plan.pgbench_seconds)
    _say(f"  pgbench -N -c {clients}: {tps:.0f} tps")
    return ServerFigures(
        workers, paced, saturated, page_ms, page_decisions, clients, tps, loaded, rss_idle, rss_loaded
    )


async def run(
    workers: tuple[int, ...] = (1, 2), plan: Plan | None = None, profile: Path | None = None
) -> list[ServerFigures]:
    """Every configuration on one fresh bench database (dropped afterwards)."""
    plan = plan or Plan()
    name = f"drachenhort_bench_{os.getpid()}"
    data_dir = Path(tempfile.mkdtemp(prefix="drachenhort-bench-"))
    url = await create_database(name)
    try:
        count = max(plan.paced_users, *plan.saturation_users, 32)
        users = await seed_users(name, count)
        return [await bench_workers(w, name, url, users, plan, data_dir, profile) for w in workers]
    finally:
        await drop_database(name)
        shutil.rmtree(data_dir, ignore_errors=True)


def _phase_line(p: PhaseFigures) -> str:
    rt = p.round_trip_ms
    return (
        f"{p.moves_per_s:.0f} moves/s, {p.decisions_per_s:.0f} decisions/s, round trip p50/p95/p99 "
        f"{rt[0]:.0f}/{rt[1]:.0f}/{rt[2]:.0f} ms, decision p95 {p.decision_ms[1]:.0f} ms, "
        f"view p95 {p.view_ms[1]:.0f} ms, page p95 {p.page_ms[1]:.0f} ms, "
        f"server CPU {p.server_cpu_ms_per_decision:.1f} ms/decision, "
        f"load generator {p.loadgen_cpu_share:.2f} core, "
        f"{p.tables} tables, missing nudges {p.missing_nudges}, stale {p.stale}, errors {p.errors}"
    )


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def iter_rows(figures: list[ServerFigures]) -> Iterator[tuple[str, str, str]]:
    """(measure, value, target) rows for the one table ``bench/run.py`` prints."""
    for f in figures:
        w = f"{f.workers}w"
        p = f.paced
        rt = p.round_trip_ms
        yield (
            f"{w} move round trip p50/p95/p99, {p.users} users (think {p.pace.low:g}-{p.pace.high:g} s)",
            f"{rt[0]:.1f} / {rt[1]:.1f} / {rt[2]:.1f} ms  ({p.moves_per_s:.0f} moves/s)",
            "p95 < 50 ms",
        )
        for s in f.saturated:
            rs = s.round_trip_ms
            yield (
                f"{w} committed moves/s, {s.users} users, no think time",
                f"{s.moves_per_s:.0f} ({s.decisions_per_s:.0f} decisions/s, round trip p95 {rs[1]:.0f} ms, "
                f"server CPU {s.server_cpu_ms_per_decision:.1f} ms/decision)",
                "",
            )
        yield (f"{w} pgbench -N, {f.pgbench_clients} clients", f"{f.pgbench_tps:.0f} tps", "")
        yield (f"{w} committed moves/s ÷ pgbench tps", f"{f.ratio:.3f}", "≥ 0.33")
        yield (
            f"{w} board page p50/p95 under load / idle (log {f.idle_page_decisions})",
            f"{p.page_ms[0]:.1f}/{p.page_ms[1]:.1f} / {f.idle_page_ms[0]:.1f}/{f.idle_page_ms[1]:.1f} ms",
            "< 15 ms",
        )
        yield (
            f"{w} RSS per worker, idle → {f.active_matches} active matches loaded",
            ", ".join(f"{a:.0f} → {b:.0f} MB" for a, b in zip(f.rss_idle_mb, f.rss_loaded_mb, strict=False)),
            "",
        )


QUICK = Plan(
    paced_users=20,
    paced_seconds=5,
    saturation_users=(20,),
    saturation_seconds=5,
    warmup=2,
    pgbench_seconds=3,
    memory_matches=100,
)
"""A smoke run of every part in about a minute."""


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--quick", action="store_true", help="short phases (a smoke run)")
    parser.add_argument("--profile", type=Path, help="profile one worker with pyinstrument into this file")
    args = parser.parse_args()
    results = asyncio.run(
        run((1,) if args.profile else tuple(args.workers), QUICK if args.quick else Plan(), args.profile)
    )
    for measure, value, target in iter_rows(results):
        print(f"{measure:<70} {value:<50} {target}")
