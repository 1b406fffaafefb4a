"""Live streams held open while a table changes hands, each push compared with its viewer's GET.

A ``HeldStream`` keeps one viewer's ``/api/live`` stream open through a whole scenario and
records every ``view`` it pushes. ``Watchers.settle`` asks every viewer's own
``GET /api/matches/ID`` (what that user may see *now*) and waits until each open stream has
pushed that version; ``Watchers.problems`` then compares every push with the GET its user
got at the same version: the whole answer but the log, which a push carries only from the
previous push on (its lines must be among the GET's). A push at a version its user never
got from a GET is a problem too: nothing is left uncompared.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

import httpx

CATCH_UP_SECONDS = 5.0


@dataclass
class HeldStream:
    label: str
    client: httpx.AsyncClient
    url: str
    pushes: list[dict[str, Any]] = field(default_factory=list)
    """The views pushed since the last ``Watchers.settle`` compared them."""
    latest: int = -1
    """The newest version it pushed."""
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None
    _pushed: asyncio.Event = field(default_factory=asyncio.Event)

    async def open(self) -> None:
        ready = asyncio.Event()
        self._task = asyncio.create_task(self._read(ready))
        await asyncio.wait_for(ready.wait(), 10)

    async def _read(self, ready: asyncio.Event) -> None:
        try:
            async with self.client.stream("GET", self.url, timeout=httpx.Timeout(10.0, read=None)) as answer:
                assert answer.status_code == 200, self.url
                ready.set()
                event = ""
                async for line in answer.aiter_lines():
                    if line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:") and event == "view":
                        self.pushes.append(json.loads(line[5:]))
                        self.latest = self.pushes[-1]["version"]
                        self._pushed.set()
        finally:
            self.ended.set()
            self._pushed.set()

    async def reached(self, version: int) -> bool:
        """Wait until the stream pushed ``version`` or later (False: it ended first)."""
        async with asyncio.timeout(CATCH_UP_SECONDS):
            while self.latest < version:
                if self.ended.is_set():
                    return False
                self._pushed.clear()
                await self._pushed.wait()
        return True

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task


def _log(body: dict[str, Any]) -> list[tuple[int, str, str, bool]]:
    return [(e["seq"], e["kind"], e["text"], e["pending"]) for e in body["log"]]


def _without_log(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k not in ("log", "log_after")}


@dataclass
class Watchers:
    """Every viewer's held stream and the answers of its own GETs, by version."""

    base_url: str
    match_id: int
    streams: list[HeldStream]
    answers: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    compared: int = 0

    async def settle(self, *, announced: bool = True) -> dict[str, dict[str, Any]]:
        """Every viewer's GET now (by label), once each open stream has pushed its version
        (not ``announced``: the change was made where the server does not hear of it)."""
        now: dict[str, dict[str, Any]] = {}
        for stream in self.streams:
            for _ in range(5):
                got = await stream.client.get(f"{self.base_url}/api/matches/{self.match_id}")
                assert got.status_code == 200, got.text
                body = got.json()
                self.answers.setdefault(stream.label, {})[body["version"]] = body
                now[stream.label] = body
                try:
                    if not announced or not await stream.reached(body["version"]):
                        break
                except TimeoutError:
                    version, seen = body["version"], stream.latest
                    raise AssertionError(f"{stream.label}: GET at {version}, newest push {seen}") from None
                if stream.latest == body["version"]:
                    break  # else something changed meanwhile: ask again
        return now

    def problems(self) -> list[str]:
        """Every push that is not exactly what its user's GET of that version showed."""
        out = []
        for stream in self.streams:
            asked = self.answers.get(stream.label, {})
            for pushed in stream.pushes:
                answer = asked.get(pushed["version"])
                where = f"{stream.label}, version {pushed['version']}"
                if answer is None:
                    out.append(
                        f"{where}: pushed seat {pushed['viewer_seat']}, a version its GET never showed"
                    )
                    continue
                self.compared += 1
                if _without_log(pushed) != _without_log(answer):
                    out.append(
                        f"{where}: pushed seat {pushed['viewer_seat']} with legal {pushed['legal'][:3]}, "
                        f"its GET says seat {answer['viewer_seat']} with legal {answer['legal'][:3]}"
                    )
                extra = set(_log(pushed)) - set(_log(answer))
                if extra:
                    out.append(f"{where}: pushed log lines its GET does not show: {sorted(extra)[:3]}")
        return out

    def forget_compared(self) -> None:
        for stream in self.streams:
            stream.pushes.clear()

    async def close(self) -> None:
        for stream in self.streams:
            await stream.close()
