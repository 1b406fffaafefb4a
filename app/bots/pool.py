"""Bot decisions off the event loop: a lazily created process pool.

A search is pure Python and holds the GIL for its whole budget, so a thread would stall every
request of the worker; a process does not. The pool is made on first use (never at import),
its size comes from ``DRACHENHORT_BOT_PROCESSES`` (default 1: this machine has two cores and the
web worker needs one), and its processes are started with ``spawn``: forking a process that
runs an event loop and holds database connections copies both into the child.
Only the observation (plain JSON-ready data) and the move text cross the process boundary.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

from app.bots.budget import Budget, Level
from app.bots.observation import Observation
from app.engine.protocol import Move

PROCESSES_ENV = "DRACHENHORT_BOT_PROCESSES"
_pool: ProcessPoolExecutor | None = None


def get_pool(processes: int | None = None) -> ProcessPoolExecutor:
    """The shared pool, created on first use (``processes`` only counts then)."""
    global _pool
    if _pool is None:
        size = processes or int(os.environ.get(PROCESSES_ENV, "1"))
        _pool = ProcessPoolExecutor(
            max_workers=max(1, size), mp_context=multiprocessing.get_context("spawn"), initializer=_warm_up
        )
    return _pool


def shutdown_pool() -> None:
    """Stop the pool's processes (an app's lifespan end, a test's teardown)."""
    global _pool
    if _pool is not None:
        _pool.shutdown(wait=True, cancel_futures=True)
        _pool = None


async def decide_async(
    obs: Observation,
    level: Level,
    seed: int,
    budget: Budget | None = None,
    *,
    pool: ProcessPoolExecutor | None = None,
) -> Move:
    """``decide`` in a worker process; the event loop stays free while the bot thinks."""
    loop = asyncio.get_running_loop()
    text = await loop.run_in_executor(pool or get_pool(), _decide_text, obs, level, seed, budget)
    return Move.parse(text)


def _decide_text(obs: Observation, level: Level, seed: int, budget: Budget | None) -> str:
    from app.bots.decide import decide

    return str(decide(obs, level, seed, budget))


ORPHAN_CHECK_SECONDS = 1.0


def _warm_up() -> None:
    _exit_when_orphaned(os.getppid())
    # Import the games and the search once per process, not during the first decision.
    import app.bots.decide  # noqa: F401
    from app.bots.games import bot_game

    for slug in ("draco", "drachenland", "felsental"):
        bot_game(slug)


def _exit_when_orphaned(parent: int) -> None:
    """End this worker when the process that made the pool is gone.

    A pool shut down properly stops its workers, but a server killed outright (SIGKILL, OOM)
    does not; its idle workers would wait forever on a queue their siblings keep open.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="orphan-watch", daemon=True).start()
