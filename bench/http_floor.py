"""What an HTTP request costs a worker before any route does work: the floor under every decision.

One uvicorn worker of the app (as ``bench/appserver.py`` starts it, on a fresh PostgreSQL
database) answers ``GET /healthz`` over eight keep-alive connections; the requests come from a
client process of their own, and the worker's CPU per request is printed. That is uvicorn's
HTTP protocol, the ASGI bridge, the middleware, FastAPI's routing and a tiny JSON answer: what
each decision sent over HTTP pays in addition to its own work. The same is then measured for a
bare ASGI app of three lines under the same uvicorn: the part that is uvicorn's own.
boardgame.io takes its moves over a socket.io connection that stays open (issue 24.4).

    .venv/bin/python -m bench.http_floor [--requests 20000] [--connections 8]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psutil  # type: ignore[import-untyped]  # noqa: E402
from starlette.types import Receive, Scope, Send  # noqa: E402

from bench.appserver import AppServer, free_port, process_tree_cpu  # noqa: E402

REQUEST = b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n"


async def bare(scope: Scope, receive: Receive, send: Send) -> None:
    """The least an ASGI app can answer: uvicorn's own cost per request, nothing else."""
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


async def _client(port: int, requests: int, connections: int) -> None:
    async def one(count: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            for _ in range(count):
                writer.write(REQUEST)
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                await reader.readexactly(length)
        finally:
            writer.close()

    await asyncio.gather(*(one(requests // connections) for _ in range(connections)))


async def _drive(what: str, port: int, server: psutil.Process, requests: int, connections: int) -> float:
    """Send the requests (a tenth first, to warm the worker up); print and return the worker's
    CPU seconds a request."""
    for count in (requests // 10, requests):
        cpu_before, started = process_tree_cpu(server), time.monotonic()
        command = [sys.executable, "-m", "bench.http_floor", "--client", str(port)]
        command += ["--requests", str(count), "--connections", str(connections)]
        await asyncio.to_thread(subprocess.run, command, cwd=ROOT, check=True)
        cpu = process_tree_cpu(server) - cpu_before
        seconds = time.monotonic() - started
    print(
        f"{what}: {count} requests over {connections} keep-alive connections, {count / seconds:.0f}/s, "
        f"worker CPU {cpu / count * 1e6:.0f} µs a request"
    )
    return cpu / count


async def measure(requests: int, connections: int) -> None:
    with tempfile.TemporaryDirectory() as logs:
        async with AppServer("bench_http_floor", 1, Path(logs)) as app:
            whole = await _drive("the app, GET /healthz", app.port, app.master(), requests, connections)
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "bench.http_floor:bare", "--port", str(port)]
    command += ["--no-access-log", "--log-level", "warning"]
    process = subprocess.Popen(command, cwd=ROOT)
    try:
        await _listening(port)
        own = await _drive("a bare ASGI app", port, psutil.Process(process.pid), requests, connections)
    finally:
        process.terminate()
        process.wait(timeout=10)
    print(f"uvicorn's own part: {own / whole:.0%}; the app's stack above it {(whole - own) * 1e6:.0f} µs")


async def _listening(port: int) -> None:
    """Wait up to 10 s until something accepts connections on ``port``."""
    for _ in range(100):
        with contextlib.suppress(OSError):
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        await asyncio.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after 10 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--client", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        asyncio.run(_client(args.client, args.requests, args.connections))
    else:
        asyncio.run(measure(args.requests, args.connections))


if __name__ == "__main__":
    main()
