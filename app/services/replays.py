"""Replays: any step of a started match, rebuilt from its seed and move log, as a seat saw it."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import LoggedMove, MatchStatus
from app.engine.protocol import Event, Move
from app.engine.registry import get_game
from app.engine.replay import rebuild
from app.services import _logcache
from app.services._db import use_case
from app.services._rows import load_match, load_seats, load_seats_named, seat_of, seat_outs
from app.services.errors import Conflict
from app.services.schemas import ReplayView, SeatOut


@use_case
async def replay(
    db: AsyncSession, *, match_id: int, viewer_id: int | None, step: int, locale: str
) -> ReplayView:
    """The match after ``step`` logged decisions (0 = the setup), as the viewer saw it then.

    ``step`` is clamped to the logged range. Rebuilt from the seed and the move log.
    """
    match = await load_match(db, match_id)
    if (
        match.status not in (MatchStatus.ACTIVE, MatchStatus.FINISHED, MatchStatus.ABORTED)
        or match.seed is None
    ):
        raise Conflict("this match has not started: there is nothing to replay")
    seats = (await load_seats(db, [match_id]))[match_id]
    viewer_seat = seat_of(seats, viewer_id)
    game = get_game(match.game)
    rows = await _log_rows(db, match_id)
    step = max(0, min(step, len(rows)))
    moves = [(row.seat, Move.parse(row.move)) for row in rows[:step]]
    last = rebuild(game, match.players, match.options, match.seed, moves)
    logged = [
        _logcache.LoggedRow(row.seq, row.seat, tuple(Event.from_json(e) for e in row.events))
        for row in rows[:step]
    ]
    return ReplayView(
        match_id=match.id,
        game=match.game,
        step=step,
        steps=len(rows),
        view=game.view(last.state, viewer_seat),
        log=_logcache.visible_entries(game, logged, viewer_seat, locale),
        seat=last.seat,
        move=str(last.move) if last.move is not None else None,
        viewer_seat=viewer_seat,
    )


@use_case
async def get_seats(db: AsyncSession, *, match_id: int) -> list[SeatOut]:
    """The match's seats with their occupants' names (what a replay page shows beside the board)."""
    await load_match(db, match_id)
    seats, names = await load_seats_named(db, match_id)
    return seat_outs(seats, names)


async def _log_rows(db: AsyncSession, match_id: int) -> list[LoggedMove]:
    """All logged decisions in order (views read the log through ``_logcache``)."""
    query = select(LoggedMove).where(LoggedMove.match_id == match_id).order_by(LoggedMove.seq)
    return list(await db.scalars(query))
