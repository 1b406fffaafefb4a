"""Replays: any step of a started match, rebuilt from its seed and move log, as a seat saw it.

A step is a decision a player would count: each logged decision, except that a confirm
belongs to the step it ends (the decision before it, by the same seat). Step numbers only
ever grow as a match goes on, so a link to ``?step=N`` keeps showing the same position.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import LoggedMove, MatchStatus
from app.db.store.records import LogRow
from app.engine.protocol import CONFIRM, Move
from app.engine.registry import get_game
from app.engine.replay import rebuild
from app.services._db import use_case
from app.services._rows import load_match, load_seats_named, seat_of, seat_outs
from app.services.errors import Conflict
from app.services.play.log import LoggedRow, visible
from app.services.schemas import MatchStatusName, ReplayView


@use_case
async def replay(
    db: AsyncSession, *, match_id: int, viewer_id: int | None, step: int, locale: str
) -> ReplayView:
    """The match after ``step`` steps (0 = the setup), as the viewer saw it then.

    ``step`` is clamped to the steps so far. Rebuilt from the seed and the move log.
    """
    match = await load_match(db, match_id)
    if (
        match.status not in (MatchStatus.ACTIVE, MatchStatus.FINISHED, MatchStatus.ABORTED)
        or match.seed is None
    ):
        raise Conflict("this match has not started: there is nothing to replay")
    seats, names = await load_seats_named(db, match_id)
    viewer_seat = seat_of(seats, viewer_id)
    game = get_game(match.game, match.ruleset)  # rebuilt from the setup of its own ruleset
    rows = await _log_rows(db, match_id)
    ends = step_ends([(row.seat, row.move) for row in rows])
    step = max(0, min(step, len(ends)))
    upto = ends[step - 1] if step else 0
    start = ends[step - 2] if step > 1 else 0
    moves = [(row.seat, Move.parse(row.move)) for row in rows[:upto]]
    last = rebuild(game, match.players, match.options, match.seed, moves)
    logged = [LoggedRow.from_row(LogRow(r.seq, r.seat, r.move, tuple(r.events))) for r in rows[:upto]]
    return ReplayView(
        match_id=match.id,
        game=match.game,
        status=cast(MatchStatusName, match.status),
        step=step,
        steps=len(ends),
        view=game.view(last.state, viewer_seat),
        log=visible(game, logged, viewer_seat, locale),
        step_log=visible(game, logged[start:], viewer_seat, locale) if step else [],
        seat=rows[start].seat if step else None,
        move=rows[start].move if step else None,
        viewer_seat=viewer_seat,
        seats=seat_outs(seats, names),
    )


def step_ends(decisions: Sequence[tuple[int, str]]) -> list[int]:
    """Where each step ends in the logged (seat, move) list: the index after its last decision."""
    confirm = str(CONFIRM)
    ends: list[int] = []
    for index, (seat, move) in enumerate(decisions):
        if move == confirm and ends and decisions[index - 1][0] == seat:
            ends[-1] = index + 1
        else:
            ends.append(index + 1)
    return ends


async def _log_rows(db: AsyncSession, match_id: int) -> list[LoggedMove]:
    """All logged decisions in order (views read only the newest through ``play.loaded``)."""
    query = select(LoggedMove).where(LoggedMove.match_id == match_id).order_by(LoggedMove.seq)
    return list(await db.scalars(query))
