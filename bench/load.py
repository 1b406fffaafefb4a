"""The closed-loop load of issue 12: M tables x 3 seats of Draco, real users, zero think time.

- Every seat is a user registered through the JSON API (``/api/auth/csrf``, then
  ``/api/auth/register``, which logs in): a session cookie and its CSRF token. Argon2 makes
  that slow, so ``bench.measure.Users`` registers them once into a template database, and each
  run's fresh database is a copy of it (same users, same sessions).
- A table is three seats at one match (created by one seat inviting the two others, who join);
  when it ends, the table takes its next match. Matches are made before the measured window
  (and, should a table run out, in it: ``matches_made_in_window``).
- Every seat holds the match's live stream open (``GET /api/live?match=ID``). Its ``view`` events
  are the only way a seat learns about other seats' decisions: nobody sends a GET.
- One decision in flight per table: the seat whose view says it acts posts a random legal move
  (or ``/confirm`` when its view offers confirm; with ``confirm_in_move`` the move carries
  ``"confirm": true`` and ends the turn itself when only confirm is left) with ``expected_version``, a fresh
  ``request_id`` and ``log_after`` (the newest log seq it has), and uses the answer as its new
  view. After a committing answer, the next seat acts as soon as its stream brings it the new
  version.

With ``Shape.pages`` the same tables play through the pages (``page_view`` reads what a seat
needs from the area's HTML: its version, whether it acts, the moves on its buttons, Confirm).

Measured (one monotonic clock): every decision's answer time (the mover's latency); for every
committed version, the time from the start of the mover's request until each other seat's stream
delivered a view of that version or later. Only what ends inside the window counts.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import math
import random
import re
import secrets
import sys
import time
from collections import Counter, defaultdict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from html import unescape
from typing import Any, TypeVar

import orjson

from app.db.matches import VERSION_SPAN
from bench.wire import Connection, HttpError

HOST = "127.0.0.1"
PASSWORD = "bench password 123"
DECISIONS_PER_MATCH = 170
"""About how many decisions a 3-seat Draco match takes (to make enough matches beforehand)."""
STALL_SECONDS = 15.0
T = TypeVar("T")


@dataclass(frozen=True)
class Shape:
    tables: int
    seats: int = 3
    seconds: float = 30.0
    """The measured window."""
    warmup: float = 4.0
    game: str = "draco"
    expected_decisions_per_s: float = 600.0
    """Only to make enough matches beforehand."""
    confirm_in_move: bool = False
    """Send ``"confirm": true`` with each move: a move that leaves nothing but confirm ends the
    turn in the same request (the "no confirmation" preference); otherwise confirm is a request."""
    pages: bool = False
    """Play through the pages instead of the JSON API: the form POSTs a click sends (htmx
    headers, the answer is the board area's HTML), every seat on ``/sse/live?m=ID&me=1`` (the
    pushed areas and badges every tab receives); the confirm in the move is then the user's
    "confirm my turn by itself" setting."""


@dataclass(frozen=True)
class Account:
    user_id: int
    name: str
    cookie: str
    csrf: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Cookie": self.cookie, "X-CSRF-Token": self.csrf}


def _cookies(answer_headers: dict[str, str]) -> str:
    pairs = [line.split(";", 1)[0].strip() for line in answer_headers.get("set-cookie", "").split("\n")]
    return "; ".join(p for p in pairs if p)


async def register(port: int, name: str, number: int) -> Account:
    """A new user through the API: the visitor's CSRF token, then register (which logs in).

    Each user comes from its own address (``X-Forwarded-For``, which uvicorn trusts from
    127.0.0.1), as real users do: the per-address registration throttle is not what is measured.
    """
    conn = Connection(
        HOST, port, {"X-Forwarded-For": f"10.{number // 65536 % 256}.{number // 256 % 256}.{number % 256}"}
    )
    try:
        first = await conn.request("GET", "/api/auth/csrf")
        visitor = _cookies(first.headers)
        token = first.json()["csrf_token"]
        answer = await conn.request(
            "POST",
            "/api/auth/register",
            {"name": name, "password": PASSWORD, "locale": "en"},
            headers={"Cookie": visitor, "X-CSRF-Token": token},
        )
        if answer.status != 201:
            raise HttpError(f"register {name}: {answer.status} {answer.body[:200]!r}")
        body = answer.json()
        session = [c for c in _cookies(answer.headers).split("; ") if c.startswith("drachenhort_session=")]
        return Account(body["user"]["id"], name, "; ".join(session), body["csrf_token"])
    finally:
        await conn.aclose()


@dataclass
class Recorder:
    decisions: list[tuple[float, float, bool]] = field(default_factory=list)
    """(request start, answer, committed) of every accepted decision."""
    answer_bytes: list[int] = field(default_factory=list)
    """The size of each of those answers."""
    commits: list[tuple[int, int, float, float, tuple[int, ...]]] = field(default_factory=list)
    """(match, public version, request start, answer, the other seats' user ids)."""
    arrivals: dict[tuple[int, int], list[tuple[int, float]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    """(match, user id) -> [(version, when the stream delivered it)]."""
    stale: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    matches_finished: int = 0
    matches_made_in_window: int = 0


class Seat:
    """One user at the table's current match: its connection for decisions and its newest view."""

    def __init__(self, account: Account, port: int) -> None:
        self.account = account
        self.conn = Connection(HOST, port, account.headers)
        self.port = port
        self.view: dict[str, Any] | None = None
        self.log_seq = 0

    def take(self, view: dict[str, Any], *, force: bool = False) -> None:
        """Keep ``view`` unless the seat already has a newer one (its own pending decisions)."""
        if force or self.view is None or view["version"] >= self.view["version"]:
            self.view = view
        for entry in view["log"]:
            if not entry["pending"] and entry["seq"] > self.log_seq:
                self.log_seq = entry["seq"]
        self.log_seq = max(self.log_seq, view["log_after"])

    def acts(self) -> bool:
        view = self.view
        return (
            view is not None
            and view["status"] == "active"
            and view["viewer_seat"] in view["to_act"]
            and bool(view["legal"])
        )


class Table:
    def __init__(self, seats: list[Seat], rec: Recorder, shape: Shape, rng: random.Random) -> None:
        self.seats = seats
        self.rec = rec
        self.shape = shape
        self.rng = rng
        self.matches: deque[int] = deque()
        self.news = asyncio.Event()
        self.last_commit: tuple[int, int, tuple[int, ...]] | None = None
        """(match, public version, the other seats' user ids) of the table's newest commit."""

    async def make_match(self) -> int:
        host, *guests = self.seats
        answer = await host.conn.request(
            "POST",
            "/api/matches",
            {"game": self.shape.game, "seats": len(self.seats), "invite": [g.account.name for g in guests]},
        )
        if answer.status != 201:
            raise HttpError(f"create match: {answer.status} {answer.body[:200]!r}")
        match_id = int(answer.json()["id"])
        for guest in guests:
            joined = await guest.conn.request("POST", f"/api/matches/{match_id}/join", {})
            if joined.status != 204:
                raise HttpError(f"join match: {joined.status} {joined.body[:200]!r}")
        return match_id

    async def run(self, stop_at: Callable[[], float]) -> None:
        while time.perf_counter() < stop_at():
            if self.matches:
                match_id = self.matches.popleft()
            else:
                match_id = await self.make_match()
                self.rec.matches_made_in_window += 1
            await self.play(match_id, stop_at)

    async def _listen(self, seat: Seat, match_id: int, ready: asyncio.Event) -> None:
        arrivals = self.rec.arrivals[(match_id, seat.account.user_id)]
        stream = Connection(HOST, seat.port, seat.account.headers)
        pages = self.shape.pages
        path = f"/sse/live?m={match_id}&me=1" if pages else f"/api/live?match={match_id}"
        try:
            async for event, data in stream.sse(path):
                if pages and event == "hello":
                    ready.set()  # the seat read its area before (the page it loaded)
                    continue
                if event != ("area" if pages else "view"):
                    continue
                when = time.perf_counter()
                if pages:
                    pushed = orjson.loads(data)
                    view = page_view(pushed["area"])
                else:
                    view = orjson.loads(data)
                arrivals.append((view["version"], when))
                seat.take(view)
                ready.set()
                self.news.set()
        except (HttpError, OSError, asyncio.IncompleteReadError) as error:
            self.rec.errors[f"stream {type(error).__name__}"] += 1
        finally:
            ready.set()

    async def play(self, match_id: int, stop_at: Callable[[], float]) -> None:
        for seat in self.seats:
            seat.view, seat.log_seq = None, 0
            if self.shape.pages:  # the page a player opens, then its stream
                area = await seat.conn.request("GET", f"/matches/{match_id}/area", headers=_HTMX)
                if area.status != 200:
                    raise HttpError(f"area: {area.status} {area.body[:200]!r}")
                seat.take(page_view(area.body.decode()))
        readies = [asyncio.Event() for _ in self.seats]
        listeners = [
            asyncio.create_task(self._listen(seat, match_id, ready))
            for seat, ready in zip(self.seats, readies, strict=True)
        ]
        try:
            await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), STALL_SECONDS)
            while time.perf_counter() < stop_at():
                self.news.clear()
                if any(s.view is not None and s.view["status"] != "active" for s in self.seats):
                    self.rec.matches_finished += 1
                    return
                actor = next((s for s in self.seats if s.acts()), None)
                if actor is None:
                    try:
                        await asyncio.wait_for(self.news.wait(), STALL_SECONDS)
                    except TimeoutError:
                        self.rec.errors["stalled match"] += 1
                        return
                    continue
                await self.decide(actor, match_id)
        except TimeoutError:
            self.rec.errors["stream did not start"] += 1
        finally:
            await self._caught_up(match_id)
            for task in listeners:
                task.cancel()
            for task in listeners:
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _caught_up(self, match_id: int, timeout: float = 1.0) -> None:
        """Until every seat's stream has the table's last committed version (the last push of a
        match, or of the window, still counts), or ``timeout``."""
        if self.last_commit is None or self.last_commit[0] != match_id:
            return
        _, version, users = self.last_commit
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            arrivals = [self.rec.arrivals.get((match_id, u), []) for u in users]
            if all(a and a[-1][0] >= version for a in arrivals):
                return
            self.news.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.news.wait(), max(0.0, deadline - time.perf_counter()))

    async def decide(self, actor: Seat, match_id: int) -> None:
        view = actor.view
        assert view is not None
        path, body = decision(
            match_id, view, actor.log_seq, self.rng, confirm_in_move=self.shape.confirm_in_move
        )
        started = time.perf_counter()
        try:
            if self.shape.pages:
                form = {k: str(v) for k, v in body.items() if k != "confirm"}
                form["csrf_token"] = actor.account.csrf
                answer = await actor.conn.request("POST", path[4:], headers=_HTMX, form=form)
            else:
                answer = await actor.conn.request("POST", path, body)
        except (HttpError, OSError):
            self.rec.errors["decision transport"] += 1
            await asyncio.sleep(0.1)
            return
        answered = time.perf_counter()
        if answer.status in (200, 409) and self.shape.pages:
            area = page_view(answer.body.decode())
            if answer.status == 200:
                committed = area["version"] % VERSION_SPAN == 0
                result = {"match": area, "committed": committed, "version": area["version"]}
            else:
                self.rec.stale += 1
                actor.take(area, force=True)
                return
        if answer.status == 200:
            if not self.shape.pages:
                result = answer.json()
            actor.take(result["match"], force=True)
            self.rec.decisions.append((started, answered, bool(result["committed"])))
            self.rec.answer_bytes.append(len(answer.body))
            if result["committed"]:
                public = result["version"] // VERSION_SPAN * VERSION_SPAN
                others = tuple(s.account.user_id for s in self.seats if s is not actor)
                self.rec.commits.append((match_id, public, started, answered, others))
                self.last_commit = (match_id, public, others)
        elif answer.status == 409:
            self.rec.stale += 1
            actor.take(answer.json()["match"], force=True)
        else:
            self.rec.errors[f"decision {answer.status}"] += 1
            await asyncio.sleep(0.1)


# --- figures --------------------------------------------------------------------------------


def decision(
    match_id: int, view: dict[str, Any], log_seq: int, rng: random.Random, *, confirm_in_move: bool
) -> tuple[str, dict[str, Any]]:
    """The mover's next request: its confirm when it may confirm, else a random legal move."""
    body: dict[str, Any] = {
        "expected_version": view["version"],
        "request_id": secrets.token_urlsafe(12),
        "log_after": log_seq,
    }
    if view["can_confirm"]:
        return f"/api/matches/{match_id}/confirm", body
    body["move"] = rng.choice([m for m in view["legal"] if m != "confirm"] or view["legal"])
    if confirm_in_move:
        body["confirm"] = True
    return f"/api/matches/{match_id}/moves", body


_HTMX = {"HX-Request": "true"}
_AREA = re.compile(r'<div id="match-area" data-match="\d+" data-version="(\d+)" data-status="(\w+)"')
_MOVE = re.compile(r'data-move="([^"]*)"')
_CONFIRM = re.compile(r'data-match-action="confirm" (disabled)?')
_LOGGED = re.compile(r'<li class="log-entry([^"]*)"[^>]*? data-seq="(\d+)"')


def page_view(html: str) -> dict[str, Any]:
    """What a seat reads off its board area (a page's answer or push), shaped as the JSON view
    the rest of the load uses: version, status, whether it acts, the moves its buttons carry,
    Confirm, and the newest committed log seq it holds."""
    found = _AREA.search(html)
    if found is None:
        raise HttpError(f"no board area in {html[:200]!r}")
    acting = 'class="your-turn"' in html
    legal = list(dict.fromkeys(unescape(m) for m in _MOVE.findall(html))) if acting else []
    confirm = _CONFIRM.search(html)
    can_confirm = acting and confirm is not None and confirm.group(1) is None
    seqs = [int(seq) for classes, seq in _LOGGED.findall(html) if "pending" not in classes.split()]
    return {
        "version": int(found.group(1)),
        "status": found.group(2),
        "viewer_seat": 0,
        "to_act": [0] if acting else [],
        "legal": legal + (["confirm"] if can_confirm else []),
        "can_confirm": can_confirm,
        "log": [],
        "log_after": max(seqs, default=0),
    }


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))  # nearest rank
    return ordered[index]


@dataclass(frozen=True)
class LoadFigures:
    tables: int
    seats: int
    seconds: float
    decisions: int
    committed: int
    decisions_per_s: float
    turns_per_s: float
    mover_ms: tuple[float, float, float]
    """p50, p95, p99 of every decision's answer time."""
    others_ms: tuple[float, float, float]
    """p50, p95, p99 from the mover's request start until another seat's stream had the version."""
    others_missing: int
    stale: int
    errors: dict[str, int]
    matches_finished: int
    matches_made_in_window: int
    loadgen_cpu_pct: float


def figures(rec: Recorder, shape: Shape, window: tuple[float, float], loadgen_cpu: float) -> LoadFigures:
    start, end = window
    seconds = end - start
    decisions = [(s, a) for s, a, _ in rec.decisions if start <= a <= end]
    commits = [c for c in rec.commits if start <= c[3] <= end]
    others: list[float] = []
    missing = 0
    for match_id, version, started, _answered, users in commits:
        for user in users:
            seen = rec.arrivals.get((match_id, user), [])
            at = bisect.bisect_left([v for v, _ in seen], version)
            if at < len(seen):
                others.append((seen[at][1] - started) * 1000)
            else:
                missing += 1
    mover = [(a - s) * 1000 for s, a in decisions]
    return LoadFigures(
        tables=shape.tables,
        seats=shape.seats,
        seconds=seconds,
        decisions=len(decisions),
        committed=len(commits),
        decisions_per_s=len(decisions) / seconds,
        turns_per_s=len(commits) / seconds,
        mover_ms=(percentile(mover, 50), percentile(mover, 95), percentile(mover, 99)),
        others_ms=(percentile(others, 50), percentile(others, 95), percentile(others, 99)),
        others_missing=missing,
        stale=rec.stale,
        errors=dict(rec.errors),
        matches_finished=rec.matches_finished,
        matches_made_in_window=rec.matches_made_in_window,
        loadgen_cpu_pct=100 * loadgen_cpu / seconds,
    )


# --- one run --------------------------------------------------------------------------------


def progress(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


async def _bounded(jobs: list[Awaitable[T]], concurrency: int) -> list[T]:
    """Await ``jobs``, at most ``concurrency`` at a time."""
    gate = asyncio.Semaphore(concurrency)

    async def one(job: Awaitable[T]) -> T:
        async with gate:
            return await job

    return list(await asyncio.gather(*(one(j) for j in jobs)))


async def register_many(port: int, count: int) -> list[Account]:
    accounts = await _bounded(
        [register(port, f"b{n:04d}x{secrets.token_hex(3)}", n) for n in range(count)], 4
    )
    progress(f"  {len(accounts)} users registered")
    return accounts


async def _auto_confirm(port: int, account: Account, on: bool) -> None:
    conn = Connection(HOST, port, account.headers)
    try:
        form = {"csrf_token": account.csrf, "auto_confirm": "1" if on else "", "language": "en"}
        answer = await conn.request("POST", "/settings", form=form)
        if answer.status != 200:
            raise HttpError(f"settings: {answer.status} {answer.body[:200]!r}")
    finally:
        await conn.aclose()


async def run(
    port: int,
    shape: Shape,
    on_window: Callable[[bool], Awaitable[None]],
    accounts: list[Account],
    *,
    seed: int = 12,
) -> LoadFigures:
    """Make matches, play; ``on_window(True)`` opens the window, ``(False)`` closes it."""
    accounts = accounts[: shape.tables * shape.seats]
    rec = Recorder()
    rng = random.Random(seed)
    tables = [
        Table([Seat(a, port) for a in accounts[t * shape.seats : (t + 1) * shape.seats]], rec, shape, rng)
        for t in range(shape.tables)
    ]
    total_s = shape.warmup + shape.seconds
    per_table = shape.expected_decisions_per_s * total_s / shape.tables / DECISIONS_PER_MATCH
    ahead = max(1, int(per_table) + 1)

    async def fill(table: Table) -> None:
        for _ in range(ahead):
            table.matches.append(await table.make_match())

    if shape.pages:  # the pages confirm in the move by the user's setting
        await _bounded([_auto_confirm(port, a, shape.confirm_in_move) for a in accounts], 8)
    await _bounded([fill(t) for t in tables], 8)

    # One GET per table, one after another, before the streams open: the app makes its move-path
    # pool lazily, and many first calls at once each make one (PostgresStore._connection),
    # which fills max_connections at 50 x 3. This measures the steady state, not that race.
    for table in tables:
        await table.seats[0].conn.request("GET", f"/api/matches/{table.matches[0]}")
    progress(f"  {ahead * len(tables)} matches made; playing")
    deadline = [float("inf")]
    workers = [asyncio.create_task(t.run(lambda: deadline[0])) for t in tables]
    await asyncio.sleep(shape.warmup)
    await on_window(True)
    cpu_start, start = time.process_time(), time.perf_counter()
    await asyncio.sleep(shape.seconds)
    end, cpu_end = time.perf_counter(), time.process_time()
    await on_window(False)
    deadline[0] = end
    _done, pending = await asyncio.wait(workers, timeout=STALL_SECONDS)
    progress(f"  window closed; {len(pending)} tables did not stop in time")
    for task in pending:
        task.cancel()
    for table in tables:
        for seat in table.seats:
            await seat.conn.aclose()
    for task in workers:
        if task.done() and not task.cancelled() and task.exception() is not None:
            rec.errors[f"table {type(task.exception()).__name__}"] += 1
    return figures(rec, shape, (start, end), cpu_end - cpu_start)
