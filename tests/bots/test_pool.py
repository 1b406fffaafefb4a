"""``decide_async`` thinks in another process: same move as ``decide``, and the loop stays free."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from app.bots import Budget, Level, decide, decide_async
from tests.bots.positions import random_positions

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pool() -> Iterator[ProcessPoolExecutor]:
    executor = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    yield executor
    executor.shutdown(wait=True)


async def test_decide_async_gives_the_move_decide_gives(pool: ProcessPoolExecutor) -> None:
    position = list(random_positions("draco", 3, {}, 0, every=4, limit=3))[-1]
    obs = position.observe(position.acting)
    budget = Budget(iterations=30)
    assert await decide_async(obs, Level.STRONG, 4, budget, pool=pool) == decide(obs, Level.STRONG, 4, budget)


async def test_the_event_loop_keeps_running_while_a_bot_thinks(pool: ProcessPoolExecutor) -> None:
    position = next(random_positions("felsental", 2, {}, 0, every=1, limit=1))
    obs = position.observe(position.acting)
    await decide_async(obs, Level.STRONG, 1, Budget(iterations=1), pool=pool)  # the process is up
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    started = time.perf_counter()
    await decide_async(obs, Level.STRONG, 1, Budget(ms=300), pool=pool)
    elapsed = time.perf_counter() - started
    task.cancel()
    assert elapsed >= 0.3
    # A search on the loop's own thread would allow no tick at all until it returned.
    assert ticks >= 10


def test_a_bot_worker_ends_when_its_server_is_killed(tmp_path: Path) -> None:
    """A server killed outright leaves no bot process behind (they used to wait forever)."""
    script = (
        "import os, sys, time\n"
        "from app.bots.pool import get_pool\n"
        "print(get_pool().submit(os.getpid).result(), flush=True)\n"
        "time.sleep(60)\n"
    )
    server = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ}
    )
    try:
        assert server.stdout is not None
        worker = int(server.stdout.readline())
        assert _alive(worker)
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=10)
        deadline = time.monotonic() + 15
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(worker), "the bot worker outlived its killed server"
    finally:
        server.kill()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A worker that exited but is not reaped yet (its parent is gone: init reaps it) is a zombie.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[-1][0] != "Z"
    except FileNotFoundError:  # no /proc (not Linux), or it is gone now
        return os.path.exists(f"/proc/{pid}") or not os.path.isdir("/proc")
