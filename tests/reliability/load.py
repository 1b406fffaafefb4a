"""A small load driver for the fault tests: many matches played at once through the JSON API.

Each match is driven by one coroutine that plays every seat with random legal decisions
(undoing now and then), sending each request to a randomly chosen server. A request that fails
in transport or answers 503 is sent again, with the same request id and expected version, to
any server until it is answered: that is what a well-behaved client does, and it is how the
test knows, for every decision, the answer the server gave. The ledger records what clients
were told; the test then compares it with the database.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.reliability.support import Actor, request_id

RETRY_FOR_SECONDS = 40.0


@dataclass
class Ledger:
    """What the clients of one match were told: committed decisions and pending ones."""

    match_id: int
    log: list[tuple[int, str]] = field(default_factory=list)
    pending: list[tuple[int, str]] = field(default_factory=list)
    committed_at: list[float] = field(default_factory=list)
    """Monotonic time of every committing answer."""


@dataclass
class Tally:
    """Every answer and failure seen, by server and status."""

    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    transport_errors: Counter[str] = field(default_factory=Counter)
    bad: list[str] = field(default_factory=list)
    """Answers no client should ever get (5xx other than 503, unexpected 4xx)."""
    answers_503: list[httpx.Response] = field(default_factory=list)
    committed: int = 0
    served_by: Counter[tuple[str, int]] = field(default_factory=Counter)
    """Answers by the host a proxy named (``X-Served-By``) and status."""
    retried: Counter[int] = field(default_factory=Counter)
    """Answers sent again because of their status (502/504 from a proxy, 503)."""

    def count(self, server: str, status: int) -> int:
        return self.statuses[(server, status)]


class Load:
    """Drive ``ledgers`` (one per match) until ``stop`` is set; see the module doc."""

    def __init__(
        self,
        servers: Sequence[str],
        tally: Tally | None = None,
        undo_rate: float = 0.1,
        retry_statuses: frozenset[int] = frozenset({503}),
    ) -> None:
        """``retry_statuses``: answers sent again like a lost request (a proxy's 502 and 504 mean
        that its host died or did not answer; what the host did meanwhile, the retry learns)."""
        self.servers = list(servers)
        self.retry_statuses = retry_statuses
        self.tally = tally or Tally()
        self.stop = asyncio.Event()
        self.undo_rate = undo_rate

    async def play(self, ledger: Ledger, seats: Sequence[Actor], seed: int) -> None:
        rng = random.Random(seed)
        path = f"/api/matches/{ledger.match_id}"
        view = await self._get(seats[0], path, rng)
        while not self.stop.is_set():
            if view["status"] != "active":
                return
            seat = min(view["to_act"])
            actor = seats[seat]
            if view["viewer_seat"] != seat:
                view = await self._get(actor, path, rng)
            body: dict[str, Any] = {"expected_version": view["version"], "request_id": request_id()}
            if view["can_undo"] and rng.random() < self.undo_rate:
                action, move = "undo", None
            else:
                action, move = "moves", rng.choice(view["legal"])
                body["move"] = move
            result = await self._post(actor, f"{path}/{action}", body, rng)
            view = result["match"]
            if action == "undo":
                ledger.pending.pop()
            elif result["committed"]:
                assert move is not None
                ledger.log.extend([*ledger.pending, (seat, move)])
                ledger.pending.clear()
                ledger.committed_at.append(time.monotonic())
                self.tally.committed += 1
            else:
                assert move is not None
                ledger.pending.append((seat, move))

    async def _get(self, actor: Actor, path: str, rng: random.Random) -> dict[str, Any]:
        response = await self._send(actor, "GET", path, None, rng)
        return dict(response.json())

    async def _post(
        self, actor: Actor, path: str, body: dict[str, Any], rng: random.Random
    ) -> dict[str, Any]:
        response = await self._send(actor, "POST", path, body, rng)
        return dict(response.json())

    async def _send(
        self, actor: Actor, method: str, path: str, body: dict[str, Any] | None, rng: random.Random
    ) -> httpx.Response:
        deadline = time.monotonic() + RETRY_FOR_SECONDS
        while True:
            server = rng.choice(self.servers)
            try:
                if method == "GET":
                    response = await actor.get(path, base=server)
                else:
                    response = await actor.post(path, body, base=server)
            except httpx.TransportError as error:
                self.tally.transport_errors[server] += 1
                if time.monotonic() > deadline:
                    message = f"{method} {path}: no server answered for {RETRY_FOR_SECONDS} s"
                    raise AssertionError(message) from error
                await asyncio.sleep(0.05)
                continue
            status = response.status_code
            self.tally.statuses[(server, status)] += 1
            if "x-served-by" in response.headers:
                self.tally.served_by[(response.headers["x-served-by"], status)] += 1
            if status == 200:
                return response
            if status in self.retry_statuses:
                self.tally.retried[status] += 1
                if status == 503:
                    self.tally.answers_503.append(response)
                if time.monotonic() > deadline:
                    raise AssertionError(f"{method} {path}: still {status} after {RETRY_FOR_SECONDS} s")
                await asyncio.sleep(0.1)
                continue
            self.tally.bad.append(f"{server} {method} {path} -> {response.status_code} {response.text[:300]}")
            raise AssertionError(self.tally.bad[-1])


async def run_until(load: Load, tasks: list[asyncio.Task[None]], seconds: float) -> None:
    """Let the load run ``seconds`` more, then stop it and wait for every answer."""
    await asyncio.sleep(seconds)
    load.stop.set()
    await asyncio.gather(*tasks)


async def wait_for_commits(
    load: Load, count: int, timeout: float = 30.0, tasks: Sequence[asyncio.Task[None]] = ()
) -> None:
    """Until the load has committed ``count`` decisions; a match task that failed fails this with
    its own error, and a load whose matches have all ended says so."""
    deadline = time.monotonic() + timeout
    while load.tally.committed < count:
        for task in tasks:
            if task.done() and not task.cancelled() and task.exception() is not None:
                raise AssertionError(f"a match's load failed: {task.exception()!r}") from task.exception()
        if tasks and all(task.done() for task in tasks):
            raise AssertionError(f"every match ended after {load.tally.committed} commits (wanted {count})")
        assert time.monotonic() < deadline, f"only {load.tally.committed} commits in {timeout} s"
        await asyncio.sleep(0.02)
