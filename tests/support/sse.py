"""Reading server-sent events from a real server over httpx."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx


class EventStream:
    """The events of one open stream, in order: ``await stream.next("view")``."""

    def __init__(self, response: httpx.Response) -> None:
        self._lines = response.aiter_lines()
        self.seen: list[tuple[str, Any]] = []

    async def next(self, *names: str, timeout: float = 5.0) -> tuple[str, Any]:
        """The next event named one of ``names`` (any when none), its data decoded from JSON."""
        return await asyncio.wait_for(self._next(names), timeout)

    async def _next(self, names: tuple[str, ...]) -> tuple[str, Any]:
        event, data = "message", []
        async for line in self._lines:
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:"):
                data.append(line.split(":", 1)[1].removeprefix(" "))
            elif not line and data:
                decoded = json.loads("\n".join(data))
                self.seen.append((event, decoded))
                if not names or event in names:
                    return event, decoded
                event, data = "message", []
        raise AssertionError("the stream ended")


@asynccontextmanager
async def event_stream(client: httpx.AsyncClient, path: str) -> AsyncIterator[EventStream]:
    """Open ``path`` as a stream (asserting it is one) for the body of the ``async with``."""
    async with client.stream("GET", path, timeout=httpx.Timeout(10.0, read=None)) as response:
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        yield EventStream(response)
