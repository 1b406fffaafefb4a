"""What hostile request bodies cost a worker: size and time limits (issue 19.3), with figures.

One uvicorn worker on a fresh PostgreSQL database, raw sockets, no cookie and no CSRF token
(the probe's requests), against ``POST /api/matches/1/moves``:

- a 200 MiB body announced by ``Content-Length``, and one sent chunked without a length: how
  soon the answer comes, how much of the body the server took, the worker's RSS before and at
  its peak (sampled every 5 ms);
- ``--slow`` connections sending their body a byte a second: how long the server keeps them
  (each gives up after ``--give-up`` seconds);
- a body just under the limit: the median time of its refusal (read and decoded before the
  CSRF check, as FastAPI orders it).

    .venv/bin/python bench/bodies.py [--slow 200] [--huge-mib 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

import psutil  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.appserver import AppServer  # noqa: E402

MIB = 1024 * 1024
PATH = "/api/matches/1/moves"


def head(*headers: str) -> bytes:
    lines = [f"POST {PATH} HTTP/1.1", "Host: bench", "Content-Type: application/json", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


class PeakRss:
    def __init__(self, process: psutil.Process) -> None:
        self.process = process
        self.before: int = process.memory_info().rss
        self.peak = self.before
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.process.memory_info().rss)
            time.sleep(0.005)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        grown: float = (self.peak - self.before) / MIB
        return grown


def huge(port: int, worker: psutil.Process, size: int, chunked: bool) -> None:
    rss = PeakRss(worker)
    started = time.monotonic()
    sent = 0
    status = b"?"
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head("Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}"))
        piece = b"1," * (MIB // 4)
        frame = f"{len(piece):x}\r\n".encode() + piece + b"\r\n" if chunked else piece
        sock.settimeout(10)
        answered = None
        try:
            while sent < size:
                sock.sendall(frame)
                sent += len(piece)
        except OSError:
            pass
        try:
            status = sock.recv(64).split(b" ")[1]
            answered = time.monotonic() - started
        except (OSError, IndexError):
            pass
    grown = rss.stop()
    kind = "chunked, no length" if chunked else "Content-Length"
    took = f"{answered:.2f} s" if answered is not None else "no answer"
    print(
        f"{size // MIB} MiB body ({kind}): {status.decode()} within {took}, "
        f"{sent / MIB:.1f} MiB sent before the server stopped taking it, "
        f"worker RSS {rss.before / MIB:.0f} MiB -> peak +{grown:.1f} MiB"
    )


async def slow(port: int, count: int, give_up: float) -> None:
    async def one() -> float:
        started = time.monotonic()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(head("Content-Length: 1000") + b"{")
        try:
            while not reader.at_eof() and time.monotonic() - started < give_up:
                try:
                    if await asyncio.wait_for(reader.read(4096), timeout=1.0) == b"":
                        break
                except TimeoutError:
                    writer.write(b" ")
                    await writer.drain()
        except OSError:
            pass
        writer.close()
        return time.monotonic() - started

    held = await asyncio.gather(*(one() for _ in range(count)))
    print(
        f"{count} slow-body connections (a byte a second): held {min(held):.1f}-{max(held):.1f} s "
        f"(median {statistics.median(held):.1f} s)"
    )


def near_limit(port: int, rounds: int = 30) -> None:
    body = b'{"pad": "' + b"x" * (64 * 1024 - 20) + b'"}'
    times = []
    for _ in range(rounds):
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            started = time.monotonic()
            sock.sendall(head(f"Content-Length: {len(body)}") + body)
            status = sock.recv(64).split(b" ")[1]
            times.append(time.monotonic() - started)
    median_ms = statistics.median(times) * 1000
    print(f"64 KiB body without a CSRF token: {status.decode()} in {median_ms:.1f} ms (median)")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--slow", type=int, default=200, help="slow-body connections at once")
    parser.add_argument("--huge-mib", type=int, default=200)
    parser.add_argument("--give-up", type=float, default=30.0, help="a slow sender stops after this many s")
    args = parser.parse_args()
    database = f"bench_bodies_{os.getpid()}"
    async with AppServer(database, 1, ROOT / "var" / "bench") as server:
        worker = server.master()
        near_limit(server.port, rounds=3)  # warm: the first refusal renders what it needs
        for chunked in (False, True):
            await asyncio.to_thread(huge, server.port, worker, args.huge_mib * MIB, chunked)
        near_limit(server.port)
        await slow(server.port, args.slow, args.give_up)


if __name__ == "__main__":
    asyncio.run(main())
