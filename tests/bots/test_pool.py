"""``decide_async`` thinks in another process: same move as ``decide``, and the loop stays free."""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

import pytest

from app.bots import Budget, Level, decide, decide_async
from tests.bots.positions import random_positions


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
