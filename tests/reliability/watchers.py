"""Spectators and players holding ``/api/live`` streams through a proxy, reconnecting as browsers do.

A ``Watch`` follows one match: it opens the stream, notes every ``view`` event's version and
which host serves it (the proxy's ``X-Served-By``), and when the stream ends or fails (its host
died, the proxy restarted) it opens it again after a short pause, as an ``EventSource`` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass, field

import httpx

RECONNECT_PAUSE = 0.2
"""Between a lost stream and the next try (a browser's EventSource waits its retry time)."""


@dataclass
class Watch:
    match_id: int
    label: str
    version: int = -1
    """The newest version this viewer was shown."""
    connected: bool = False
    connects: int = 0
    """Streams opened (the first one included)."""
    hosts: list[str] = field(default_factory=list)
    """The host that served each stream opened."""
    refused: list[int] = field(default_factory=list)
    """Statuses of attempts the proxy or a host refused (a stream is tried again)."""

    @property
    def reconnects(self) -> int:
        return max(0, self.connects - 1)


class Watchers:
    """Runs ``Watch``es over ``client``s until ``stop()``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.watches: list[Watch] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._stop = asyncio.Event()

    def follow(self, client: httpx.AsyncClient, match_id: int, label: str) -> Watch:
        watch = Watch(match_id, label)
        self.watches.append(watch)
        self._tasks.append(asyncio.create_task(self._run(client, watch)))
        return watch

    async def _run(self, client: httpx.AsyncClient, watch: Watch) -> None:
        url = f"{self.url}/api/live?match={watch.match_id}"
        while not self._stop.is_set():
            try:
                # No read timeout: a stream is quiet between versions (pings every 15 s).
                timeout = httpx.Timeout(5.0, read=None)
                async with client.stream("GET", url, timeout=timeout) as response:
                    if response.status_code != 200:
                        watch.refused.append(response.status_code)
                    else:
                        watch.connected = True
                        watch.connects += 1
                        watch.hosts.append(response.headers.get("x-served-by", "?"))
                        await self._read(response, watch)
            except httpx.TransportError:
                pass
            finally:
                watch.connected = False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), RECONNECT_PAUSE)

    async def _read(self, response: httpx.Response, watch: Watch) -> None:
        event = ""
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event == "view":
                view = json.loads(line.split(":", 1)[1])
                watch.version = max(watch.version, int(view["version"]))
            elif not line:
                event = ""

    def opened(self, host: str | None = None) -> dict[int, int]:
        """Streams opened so far by each watch (index) that a host holds now (``host``: that one)."""
        return {
            i: w.connects
            for i, w in enumerate(self.watches)
            if w.connected and (host is None or w.hosts[-1] == host)
        }

    async def converged(
        self, targets: dict[int, int], since: float, limit: float, reopen: dict[int, int] | None = None
    ) -> float:
        """Seconds from ``since`` until every watch is connected and shows at least its match's
        version in ``targets``, and each watch in ``reopen`` (from ``opened``) has opened a new
        stream; AssertionError (naming the laggards) after ``limit`` seconds."""
        deadline = since + limit
        reopen = reopen or {}
        while True:
            behind = [
                w
                for i, w in enumerate(self.watches)
                if not w.connected or w.version < targets[w.match_id] or w.connects <= reopen.get(i, -1)
            ]
            now = time.monotonic()
            if not behind:
                return now - since
            if now > deadline:
                described = ", ".join(
                    f"{w.label} (match {w.match_id}: shows {w.version}, latest {targets[w.match_id]}, "
                    f"{'connected' if w.connected else 'not connected'}, {w.connects} stream(s) "
                    f"opened, the last via {w.hosts[-1:]})"
                    for w in behind
                )
                raise AssertionError(f"{len(behind)} stream(s) behind after {limit} s: {described}")
            await asyncio.sleep(0.02)

    async def stop(self) -> None:
        self._stop.set()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
