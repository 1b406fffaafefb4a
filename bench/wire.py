"""A lean HTTP/1.1 client on asyncio streams, for the load generator (httpx costs too much CPU).

One ``Connection`` is one keep-alive TCP connection, one request at a time. ``Connection.sse``
opens a server-sent-events stream on its own connection and yields ``(event, data)``. Only
what the bench needs: ``Content-Length`` and chunked bodies, no TLS, no redirects.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import urlencode

import orjson


class HttpError(Exception):
    """The connection broke or the server answered something we cannot read."""


class Answer:
    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return orjson.loads(self.body)


class Connection:
    """Keep-alive HTTP/1.1 to ``host:port``; reconnects when the server closed it."""

    def __init__(self, host: str, port: int, headers: Mapping[str, str] | None = None) -> None:
        self.host = host
        self.port = port
        self.headers = dict(headers or {})
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None or self._writer.is_closing():
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        return self._reader, self._writer

    def _head(
        self,
        method: str,
        path: str,
        body: bytes | None,
        extra: Mapping[str, str] | None,
        content_type: str = "application/json",
    ) -> bytes:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        for name, value in {**self.headers, **(extra or {})}.items():
            lines.append(f"{name}: {value}")
        if body is not None:
            lines.append(f"Content-Type: {content_type}")
            lines.append(f"Content-Length: {len(body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    async def request(
        self,
        method: str,
        path: str,
        payload: Any = None,
        headers: Mapping[str, str] | None = None,
        *,
        form: Mapping[str, str] | None = None,
    ) -> Answer:
        """``payload`` goes as JSON, ``form`` as a browser's form (urlencoded)."""
        content_type = "application/json"
        body = None if payload is None else orjson.dumps(payload)
        if form is not None:
            body, content_type = urlencode(form).encode(), "application/x-www-form-urlencoded"
        for attempt in (1, 2):
            reader, writer = await self._open()
            try:
                writer.write(self._head(method, path, body, headers, content_type) + (body or b""))
                status, answer_headers = await _read_head(reader)
                content = b"" if status in (204, 304) else await _read_body(reader, answer_headers)
            except (ConnectionError, asyncio.IncompleteReadError, HttpError) as error:
                await self.aclose()
                if attempt == 2:
                    raise HttpError(f"{method} {path}: {error}") from error
                continue
            if answer_headers.get("connection", "").lower() == "close":
                await self.aclose()
            return Answer(status, answer_headers, content)
        raise AssertionError("unreachable")

    async def sse(self, path: str) -> AsyncIterator[tuple[str, bytes]]:
        """The events of a stream as ``(event name, data)``; ends when the server closes it."""
        reader, writer = await asyncio.open_connection(self.host, self.port)
        try:
            writer.write(self._head("GET", path, None, {"Accept": "text/event-stream"}))
            status, headers = await _read_head(reader)
            if status != 200:
                raise HttpError(f"GET {path}: {status} {await _read_body(reader, headers)!r}")
            event, data, pending = "message", b"", b""
            async for piece in _body_pieces(reader, headers):
                pending += piece
                *lines, pending = pending.split(b"\n")
                for raw in lines:
                    line = raw.rstrip(b"\r")
                    if not line:
                        if data:
                            yield event, data
                        event, data = "message", b""
                    elif line.startswith(b"event:"):
                        event = line[6:].strip().decode()
                    elif line.startswith(b"data:"):
                        data = data + b"\n" + line[5:].lstrip() if data else line[5:].lstrip()
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def aclose(self) -> None:
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    raw = await reader.readuntil(b"\r\n\r\n")
    status_line, *header_lines = raw.decode("latin-1").split("\r\n")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[1].isdigit():
        raise HttpError(f"bad status line {status_line!r}")
    headers: dict[str, str] = {}
    for line in header_lines:
        if ":" in line:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            joiner = "\n" if name == "set-cookie" else ", "  # cookie dates hold commas
            headers[name] = f"{headers[name]}{joiner}{value.strip()}" if name in headers else value.strip()
    return int(parts[1]), headers


async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    return b"".join([piece async for piece in _body_pieces(reader, headers)])


async def _body_pieces(reader: asyncio.StreamReader, headers: dict[str, str]) -> AsyncIterator[bytes]:
    if "chunked" in headers.get("transfer-encoding", "").lower():
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";", 1)[0].strip(), 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                return
            chunk = await reader.readexactly(size + 2)
            yield chunk[:-2]
    elif "content-length" in headers:
        length = int(headers["content-length"])
        if length:
            yield await reader.readexactly(length)
    else:
        while piece := await reader.read(65536):
            yield piece
