"""Request bodies are small and come quickly, or are refused before they cost anything.

No form or JSON request of this server needs more than a few KiB, so a body over
``max_body_bytes`` is refused with 413 before the app buffers or parses it: at once when its
``Content-Length`` says so, else (a chunked body) as soon as the bytes received pass the limit.
A body that has not arrived ``body_timeout_seconds`` after the request began is refused with
408. Both answers close the connection, because the rest of the body is never read; so does
any answer given while a body is still on its way (a route that never reads it), so a slow
sender cannot keep a connection by sending to such a route.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.errors import error_response

TOO_LARGE_REASON = "the request body is too large"
TOO_SLOW_REASON = "the request body did not arrive in time"
_CLOSE = {"Connection": "close"}


class BodyLimits:
    """Pure ASGI, outside the error handlers: caps each request body's size and arrival time."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_bytes: int,
        timeout_seconds: float,
        larger: Mapping[str, int] | None = None,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout_seconds = timeout_seconds
        self.larger = dict(larger or {})
        """Paths (exact) that take a larger body: an uploaded match record."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        max_bytes = self.larger.get(scope["path"], self.max_bytes)
        declared = _content_length(scope)
        if declared is not None and declared > max_bytes:
            response = error_response(Request(scope), 413, TOO_LARGE_REASON, _CLOSE)
            await response(scope, receive, send)
            return
        body = _Body(receive, max_bytes, asyncio.get_running_loop().time() + self.timeout_seconds)
        if declared == 0 or (declared is None and not _is_chunked(scope)):
            body.complete = True  # nothing is on its way

        async def closing_send(message: Message) -> None:
            if message["type"] == "http.response.start" and not body.complete:
                MutableHeaders(scope=message)["Connection"] = "close"
            await send(message)

        await self.app(scope, body.receive, closing_send)


class _Body:
    """The request's ``receive``, counting the body's bytes against the size and the deadline."""

    def __init__(self, receive: Receive, max_bytes: int, deadline: float) -> None:
        self._receive = receive
        self._max_bytes = max_bytes
        self._deadline = deadline
        self._received = 0
        self.complete = False

    async def receive(self) -> Message:
        if self.complete:
            return await self._receive()  # after the body: only the disconnect is left to wait for
        remaining = self._deadline - asyncio.get_running_loop().time()
        try:
            message = await asyncio.wait_for(self._receive(), timeout=max(remaining, 0))
        except TimeoutError:
            raise HTTPException(408, TOO_SLOW_REASON, headers=_CLOSE) from None
        if message["type"] == "http.request":
            self._received += len(message.get("body", b""))
            if self._received > self._max_bytes:
                raise HTTPException(413, TOO_LARGE_REASON, headers=_CLOSE)
            self.complete = not message.get("more_body", False)
        else:
            self.complete = True  # disconnected: no more body will come
        return message


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the server refuses such a request before it reaches the app
    return None


def _is_chunked(scope: Scope) -> bool:
    return any(name == b"transfer-encoding" for name, _ in scope["headers"])
