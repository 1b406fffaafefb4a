"""Replays: any step of a match rebuilt from its seed and its move log, as the viewer saw it."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import LoggedMove, MatchStatus
from app.db.store.records import LogRow
from app.engine.protocol import Move
from app.engine.registry import get_game
from app.engine.replay import rebuild
from app.services._db import use_case
from app.services._rows import load_match, load_seats, seat_of
from app.services.errors import Conflict
from app.services.play.log import LoggedRow, visible
from app.services.schemas import ReplayView


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
    game = get_game(match.game, match.ruleset)  # rebuilt from the setup of its own ruleset
    query = select(LoggedMove).where(LoggedMove.match_id == match_id).order_by(LoggedMove.seq)
    rows = list(await db.scalars(query))
    step = max(0, min(step, len(rows)))
    moves = [(row.seat, Move.parse(row.move)) for row in rows[:step]]
    last = rebuild(game, match.players, match.options, match.seed, moves)
    shown = [LoggedRow.from_row(LogRow(r.seq, r.seat, r.move, tuple(r.events))) for r in rows[:step]]
    return ReplayView(
        match_id=match.id,
        game=match.game,
        step=step,
        steps=len(rows),
        view=game.view(last.state, viewer_seat),
        log=visible(game, shown, viewer_seat, locale),
        seat=last.seat,
        move=str(last.move) if last.move is not None else None,
        viewer_seat=viewer_seat,
    )
