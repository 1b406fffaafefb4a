"""Pairing the next round after the commit that ended the last match, off the request path.

The move (or resignation) whose commit ended a round's last match answers at once; the next
round is paired by a task of this process on its own session (``runner.advance``: under the
tournament's lock, with the round's unique row, so two servers pair it once). At most one task
per tournament runs in a process; one asked for while it runs looks again when it is done.

Nothing here needs to survive a crash: a round whose matches have all ended is found again by
the clock round's sweep (``hooks.sweep``), which runs when a worker starts and every
``clocks.TICK_SECONDS`` after.
"""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.services.tournaments import runner

log = logging.getLogger(__name__)

_tasks: dict[tuple[int, int], asyncio.Task[None]] = {}
"""(engine id, tournament id) -> the task pairing that tournament's next round."""
_again: set[tuple[int, int]] = set()


def pair_next_round(db: AsyncSession, tournament_id: int) -> None:
    """Pair the tournament's next round in the background (if its round is over by then)."""
    engine = db.bind
    assert isinstance(engine, AsyncEngine)
    key = (id(engine), tournament_id)
    task = _tasks.get(key)
    if task is not None and not task.done() and task.get_loop() is asyncio.get_running_loop():
        _again.add(key)
        return
    sessions = async_sessionmaker(engine, expire_on_commit=False)
    task = asyncio.create_task(_run(sessions, key), name=f"tournament-round-{tournament_id}")
    _tasks[key] = task
    # Forgotten when done, also when cancelled before it ran (its ``finally`` never does).
    task.add_done_callback(lambda done: _tasks.pop(key) if _tasks.get(key) is done else None)


async def _run(sessions: async_sessionmaker[AsyncSession], key: tuple[int, int]) -> None:
    try:
        while True:
            _again.discard(key)
            async with sessions() as db:
                await runner.advance(db, key[1])
            if key not in _again:
                return
    except Exception:  # a background task must not die silently; the clock's sweep retries
        log.exception("pairing the next round of tournament %s failed", key[1])


def _here() -> list[asyncio.Task[None]]:
    """The pairings under way on this event loop (a finished test's loop leaves none behind)."""
    loop = asyncio.get_running_loop()
    for key, task in list(_tasks.items()):
        if task.get_loop() is not loop and (task.done() or task.get_loop().is_closed()):
            _tasks.pop(key, None)
    return [task for task in _tasks.values() if task.get_loop() is loop]


async def settle() -> None:
    """Wait for every pairing under way in this process (tests; a worker that shuts down)."""
    while tasks := _here():
        await asyncio.gather(*tasks, return_exceptions=True)


async def abandon() -> None:
    """Cancel every pairing under way, as a crash would (their transactions roll back)."""
    tasks = _here()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    _again.clear()
