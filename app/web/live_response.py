"""The response of a live stream: server-sent events from an async iterator of frames.

Lean on purpose: a worker holds thousands of idle streams, and sse-starlette's response ran
four tasks per stream (the stream, its pings, the client's going away, the server's
shutdown) in an anyio task group; here the request's own task sends every frame (pings come
from the iterator on a fixed beat) and one small task waits for the
client to go away, which ends the stream's subscription (its ``end``), so the iterator
stops at its next wait and everything it held is given back at once. When the server shuts
down (uvicorn's ``should_exit``, seen through its SIGTERM handler as sse-starlette does), one
watcher per process ends every open stream, so the shutdown does not wait for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import weakref
from collections.abc import AsyncIterator

from sse_starlette import ServerSentEvent
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from app.services.live import Subscription

PING = b": ping\r\n\r\n"
"""A comment: keeps proxies from closing an idle stream, ignored by EventSource."""
HEADERS = {"Cache-Control": "no-store", "Connection": "keep-alive", "X-Accel-Buffering": "no"}


def framed(event: str, data: str) -> bytes:
    """One server-sent event as it goes out. JSON has no line breaks, so the data is one line;
    framing it here once (and keeping the bytes for every stream of the same viewer) spares
    each stream the encoding of a large view."""
    if "\n" in data or "\r" in data:
        return ServerSentEvent(data, event=event).encode()
    return f"event: {event}\r\ndata: {data}\r\n\r\n".encode()


class LiveResponse(Response):
    media_type = "text/event-stream"

    def __init__(self, frames: AsyncIterator[bytes], subscription: Subscription) -> None:
        self.frames = frames
        self.subscription = subscription
        self.status_code = 200
        self.background = None
        self.init_headers(HEADERS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        _open.add(self.subscription)
        _watch_for_shutdown()
        gone = asyncio.create_task(self._until_gone(receive))
        try:
            start = {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
            await send(start)
            async for frame in self.frames:
                if gone.done():
                    break
                await send({"type": "http.response.body", "body": frame, "more_body": True})
            if not gone.done():
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            gone.cancel()
            with contextlib.suppress(BaseException):
                await gone
            aclose = getattr(self.frames, "aclose", None)
            if aclose is not None:
                await aclose()

    async def _until_gone(self, receive: Receive) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        self.subscription.end()


_open: weakref.WeakSet[Subscription] = weakref.WeakSet()
_watcher: asyncio.Task[None] | None = None
SHUTDOWN_POLL_SECONDS = 0.5


def _watch_for_shutdown() -> None:
    global _watcher
    if _watcher is None or _watcher.done():
        _watcher = asyncio.get_running_loop().create_task(_until_shutdown())


async def _until_shutdown() -> None:
    """End every open stream once the server is told to stop (while any is open)."""
    while _open:
        server = getattr(signal.getsignal(signal.SIGTERM), "__self__", None)
        if getattr(server, "should_exit", False):
            for subscription in list(_open):
                subscription.end()
            return
        await asyncio.sleep(SHUTDOWN_POLL_SECONDS)
