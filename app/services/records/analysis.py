"""Analyses of finished matches: started on first request, computed in the bot pool in the
background, cached in ``match_analyses`` with their progress.

Never for a match that runs — an analysis of a running match would be a bot playing for
whoever reads it — so every request for one is refused (403) until the match has finished.
The work runs in ``app.bots.pool``'s processes, chunk by chunk, so the event loop stays free
and the page shows how far it has got. A worker that dies mid-way leaves a ``running`` row that
stops moving; after ``STALE_AFTER`` the next request starts it again from where it stopped.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.bots.analysis import analyse_steps
from app.bots.games import NoBotForGame, bot_game
from app.bots.pool import get_pool
from app.db.models import LoggedMove, Match, MatchStatus
from app.db.records import AnalysisState, MatchAnalysis
from app.db.types import utcnow
from app.services._db import use_case
from app.services._rows import load_match
from app.services.errors import Forbidden, NotFound
from app.services.replays import step_ends

CHUNK = 8
"""Steps per pool job: progress is written after each."""
STALE_AFTER = timedelta(minutes=3)
NOT_FINISHED = "a match is analysed once it has finished"
NO_BOT = "no bot analyses this game"

log = logging.getLogger(__name__)
_tasks: set[asyncio.Task[None]] = set()
"""The analyses this process runs (kept referenced until they end)."""
_running: set[tuple[int, int]] = set()
"""(engine id, match id) of those: one task per match and database in a process."""


@dataclass(frozen=True, slots=True)
class AnalysisView:
    state: str
    steps: int
    done: int
    items: list[dict[str, Any]]


@use_case
async def analysis(db: AsyncSession, *, match_id: int) -> AnalysisView:
    """The analysis so far of a finished match, started if it has not been (403 while it runs)."""
    match = await load_match(db, match_id)
    if match.status != MatchStatus.FINISHED or match.seed is None:
        raise Forbidden(NOT_FINISHED)
    try:
        bot_game(match.game)
    except NoBotForGame:
        raise NotFound(NO_BOT) from None
    row = await db.get(MatchAnalysis, match_id, populate_existing=True)
    if row is None:
        row = await _create(db, match)
    if row.state == AnalysisState.RUNNING and row.updated_at < utcnow() - STALE_AFTER:
        _start(db, match_id)  # its worker died: go on from where it stopped
    return AnalysisView(row.state, row.steps, row.done, list(row.items))


async def _create(db: AsyncSession, match: Match) -> MatchAnalysis:
    moves = await _moves(db, match.id)
    row = MatchAnalysis(
        match_id=match.id,
        state=AnalysisState.RUNNING,
        steps=len(step_ends(moves)),
        done=0,
        items=[],
        updated_at=utcnow(),
    )
    db.add(row)
    try:
        await db.commit()
    except IntegrityError:  # another request made it at the same moment
        await db.rollback()
        found = await db.get(MatchAnalysis, match.id, populate_existing=True)
        assert found is not None
        return found
    _start(db, match.id)
    return row


def _start(db: AsyncSession, match_id: int) -> None:
    key = (id(db.bind), match_id)
    if key in _running:
        return
    _running.add(key)
    task = asyncio.create_task(_run(async_sessionmaker(db.bind, expire_on_commit=False), match_id, key))
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


async def _run(sessions: async_sessionmaker[AsyncSession], match_id: int, key: tuple[int, int]) -> None:
    try:
        async with sessions() as db:
            match = await db.get(Match, match_id)
            row = await db.get(MatchAnalysis, match_id)
            if match is None or row is None or match.seed is None:
                return
            moves = await _moves(db, match_id)
            slug, ruleset, players, options, seed = (
                match.game,
                match.ruleset,
                match.players,
                match.options,
                match.seed,
            )
            done, items = row.done, list(row.items)
        ends = step_ends(moves)
        loop = asyncio.get_running_loop()
        while done < len(ends) or not items or not items[-1].get("final"):
            last = min(done + CHUNK, len(ends))
            chunk = await loop.run_in_executor(
                get_pool(), analyse_steps, slug, ruleset, players, options, seed, moves, ends, done + 1, last
            )
            items.extend(chunk)
            done = last
            finished = done == len(ends)
            async with sessions() as db:
                await db.execute(
                    update(MatchAnalysis)
                    .where(MatchAnalysis.match_id == match_id)
                    .values(
                        items=items,
                        done=done,
                        updated_at=utcnow(),
                        state=AnalysisState.DONE if finished else AnalysisState.RUNNING,
                    )
                )
                await db.commit()
            if finished:
                break
    except Exception:  # a bug must not leave the row looking busy for ever
        log.exception("analysis of match %s failed", match_id)
        async with sessions() as db:
            await db.execute(
                update(MatchAnalysis)
                .where(MatchAnalysis.match_id == match_id)
                .values(state=AnalysisState.FAILED)
            )
            await db.commit()
    finally:
        _running.discard(key)


async def _moves(db: AsyncSession, match_id: int) -> list[tuple[int, str]]:
    rows = await db.execute(
        select(LoggedMove.seat, LoggedMove.move)
        .where(LoggedMove.match_id == match_id)
        .order_by(LoggedMove.seq)
    )
    return [(seat, move) for seat, move in rows.tuples()]


async def wait_for_analyses() -> None:
    """Let the running analyses of this process end (tests)."""
    while _tasks:
        await asyncio.gather(*list(_tasks), return_exceptions=True)
