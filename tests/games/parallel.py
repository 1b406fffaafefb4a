"""Self-play batches on every core, shared by the three games' ``slow`` self-play tests.

The work is cut into many small batches that ``workers`` spawned processes take one at a
time, so both cores of the CI machine stay busy to the end even when one batch runs long
(a fork of the threaded pytest process is not safe, hence spawn). Each batch reports the CPU
time it used, so the test can print decisions per CPU second next to the wall time.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

R = TypeVar("R")

WORKERS_VARIABLE = "SELFPLAY_WORKERS"


def count_from_env(variable: str, default: int) -> int:
    """The number of games to play: ``default``, or more when ``variable`` asks for more.

    The count can be raised for long local runs, never lowered below the project's standard.
    """
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return default
    value = int(raw)
    if value < default:
        raise ValueError(
            f"{variable}={value}: the self-play count can be raised, not lowered below {default}"
        )
    return value


def batches(start: int, count: int, size: int) -> list[range]:
    """``range(start, start + count)`` cut into consecutive ranges of at most ``size`` seeds."""
    return [range(s, min(s + size, start + count)) for s in range(start, start + count, size)]


def default_workers() -> int:
    """Every core this process may use (``SELFPLAY_WORKERS`` overrides)."""
    raw = os.environ.get(WORKERS_VARIABLE, "").strip()
    if raw:
        return max(1, int(raw))
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


@dataclass(frozen=True)
class Run:
    """The batch results in job order, with the wall time and the CPU time of all batches."""

    results: list[Any]
    workers: int
    wall: float
    cpu: float

    def report(self, name: str, games: int, decisions: int, extra: str = "") -> str:
        """One line of figures for the test output (``pytest -s`` shows it)."""
        return (
            f"\n{name} self-play: {games} games, {decisions} decisions{extra}; {self.workers} workers, "
            f"{self.wall:.1f} s wall, {self.cpu:.1f} s CPU, {decisions / max(self.cpu, 1e-9):,.0f} decisions "
            f"per CPU second, {decisions / max(self.wall, 1e-9):,.0f} per wall second"
        )


def _timed(function: Callable[..., R], args: tuple[Any, ...]) -> tuple[R, float]:
    started = time.process_time()
    result = function(*args)
    return result, time.process_time() - started


def run_batches(
    function: Callable[..., R], jobs: Sequence[tuple[Any, ...]], workers: int | None = None
) -> Run:
    """``function(*job)`` for every job in spawned worker processes; the results in job order.

    ``function`` must be importable by the workers (a module-level function of a test module).
    Put long jobs first: a worker that is free takes the next job in order.
    """
    workers = min(workers or default_workers(), len(jobs))
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(_timed, function, tuple(job)) for job in jobs]
        timed = [future.result() for future in futures]
    return Run(
        results=[result for result, _ in timed],
        workers=workers,
        wall=time.perf_counter() - started,
        cpu=sum(cpu for _, cpu in timed),
    )
