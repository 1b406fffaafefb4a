"""Request bodies are capped in size and in time (issue 19.3), against a real uvicorn process.

Raw sockets, because the point is what a hostile client does with the connection: announce a
huge body, stream one without a length, or send it a byte a second.
"""

from __future__ import annotations

import select
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from app.config import Settings
from tests.support.server import Server

pytestmark = pytest.mark.serial  # times the server's answers to slow bodies: alone, not beside busy workers

BODY_TIMEOUT = 2.0
"""The server's ``body_timeout_seconds`` here (short, so the slow sender's test is quick)."""
LIMIT = 64 * 1024
"""The default ``max_body_bytes``."""
HUGE = 200 * 1024 * 1024
MIB = 1024 * 1024
MOVES = "/api/matches/1/moves"


@pytest.fixture(scope="module")
def body_server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    env = {"DRACHENHORT_BODY_TIMEOUT_SECONDS": str(BODY_TIMEOUT)}
    with Server(database_url, tmp_path_factory.mktemp("body-server"), env=env) as running:
        yield running


def _connect(server: Server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=30)


def _head(path: str, *headers: str) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _answer(sock: socket.socket) -> tuple[int, bytes, bool]:
    """The status and head of the response, and whether the server then closed the connection."""
    data = b""
    deadline = time.monotonic() + 30
    closed = False
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = next(
            (
                int(v)
                for k, _, v in (h.partition(b":") for h in head.split(b"\r\n"))
                if k.lower() == b"content-length"
            ),
            None,
        )
        if length is not None and len(body) >= length:
            break
    head = data.partition(b"\r\n\r\n")[0]
    if not closed:
        sock.settimeout(5)
        try:
            closed = sock.recv(1) == b""
        except (ConnectionResetError, TimeoutError):
            closed = True  # reset: closed; a timeout: kept open, which the callers refuse
    assert data, "no answer"
    return int(head.split()[1]), head, closed


class _PeakRss:
    """The highest resident set size a process reaches while this is open (sampled every 5 ms)."""

    def __init__(self, pid: int) -> None:
        self.process = psutil.Process(pid)
        self.peak = self.process.memory_info().rss
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.process.memory_info().rss)
            time.sleep(0.005)

    def __enter__(self) -> _PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def _send_all_you_can(sock: socket.socket, total: int) -> int:
    """Send up to ``total`` bytes of body until the server stops taking them; the bytes sent."""
    chunk = b"[" + b"1," * (MIB // 2 - 1) + b"1"
    sent = 0
    sock.settimeout(5)
    try:
        while sent < total:
            sock.sendall(chunk)
            sent += len(chunk)
    except (BrokenPipeError, ConnectionResetError, TimeoutError):
        pass
    return sent


def test_a_200_mib_body_is_refused_before_it_is_read(body_server: Server) -> None:
    """Announced with its length, with no cookie and no CSRF token (the probe's request): 413 at
    once, the connection closed, and the worker's memory stays where it was."""
    assert body_server.process is not None
    with _connect(body_server) as warm:  # the first refusal renders and caches what it needs
        warm.sendall(_head(MOVES, f"Content-Length: {LIMIT + 1}"))
        assert _answer(warm)[0] == 413
    with _PeakRss(body_server.process.pid) as rss, _connect(body_server) as sock:
        before = rss.peak
        started = time.monotonic()
        sock.sendall(_head(MOVES, f"Content-Length: {HUGE}"))
        status, head, closed = _answer(sock)
        answered_in = time.monotonic() - started
        sent = _send_all_you_can(sock, HUGE)
    assert (status, closed) == (413, True), head
    assert b"connection: close" in head.lower()
    assert answered_in < 2.0
    assert sent < HUGE / 4, f"the server took {sent / MIB:.0f} MiB it had refused"
    grown = (rss.peak - before) / MIB
    assert grown < 4, f"the worker grew by {grown:.1f} MiB"


def test_a_chunked_body_over_the_limit_is_refused_as_it_passes_it(body_server: Server) -> None:
    """No length announced: the server counts what arrives and stops at the limit, not at the end."""
    assert body_server.process is not None
    with _PeakRss(body_server.process.pid) as rss, _connect(body_server) as sock:
        before = rss.peak
        sock.sendall(_head(MOVES, "Transfer-Encoding: chunked"))
        sent = 0
        piece = b"1," * 8192
        frame = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
        sock.settimeout(5)
        try:
            while sent < HUGE and not select.select([sock], [], [], 0)[0]:
                sock.sendall(frame)
                sent += len(piece)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass
        status, head, closed = _answer(sock)
    assert (status, closed) == (413, True), head
    assert sent < 32 * MIB, f"the server read {sent / MIB:.0f} MiB before refusing"
    assert (rss.peak - before) / MIB < 4


def test_a_body_within_the_limit_is_read_as_before(body_server: Server) -> None:
    """Just under the limit, the request goes on to the usual checks (here: no CSRF token)."""
    body = b'{"pad": "' + b"x" * (LIMIT - 20) + b'"}'
    with _connect(body_server) as sock:
        sock.sendall(_head(MOVES, f"Content-Length: {len(body)}") + body)
        status, head, _ = _answer(sock)
    assert status == 403, head


@pytest.mark.parametrize("path", [MOVES, "/healthz", "/no/such/page"])
def test_a_body_sent_a_byte_a_second_is_cut_off(body_server: Server, path: str) -> None:
    """408 once the body is ``BODY_TIMEOUT`` late, or, where the route never reads a body, its
    answer closes the connection: a slow sender holds nothing."""
    with _connect(body_server) as sock:
        started = time.monotonic()
        sock.sendall(_head(path, "Content-Length: 100") + b"{")
        sock.settimeout(0.1)
        status = 0
        while time.monotonic() - started < BODY_TIMEOUT * 5:
            readable = select.select([sock], [], [], 1.0)[0]
            if readable:
                status, head, closed = _answer(sock)
                break
            try:
                sock.sendall(b" ")
            except (BrokenPipeError, ConnectionResetError):
                break
        waited = time.monotonic() - started
    if path == MOVES:
        assert status == 408, f"no 408 in {waited:.1f} s"
        assert BODY_TIMEOUT - 0.5 < waited < BODY_TIMEOUT + 2.0
    else:
        assert status in (404, 405)
    assert closed and b"connection: close" in head.lower()


def test_the_limits_are_settings(tmp_path: Path) -> None:
    defaults = Settings(data_dir=tmp_path)
    assert (defaults.max_body_bytes, defaults.body_timeout_seconds) == (LIMIT, 10.0)
    settings = Settings(data_dir=tmp_path, max_body_bytes=4096, body_timeout_seconds=3)
    assert (settings.max_body_bytes, settings.body_timeout_seconds) == (4096, 3)
