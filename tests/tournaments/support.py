"""Helpers for tournament tests: players, a tournament's current matches, playing them out."""

from __future__ import annotations

import random

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Match, MatchSeat, MatchStatus
from app.db.tournaments import TournamentMatch
from app.services import play
from app.services.schemas import UserOut
from app.services.tournaments import jobs, service
from tests.support.db import new_request_id


async def play_to_the_end(db: AsyncSession, match_id: int, users: list[UserOut], seed: int) -> None:
    """Random legal decisions through the move path until the match ends; a decision other
    than confirming is preferred where there is one, which keeps toy matches short."""
    chooser = random.Random(seed)
    view = await play.get_match(db, match_id=match_id, viewer_id=users[0].id, locale="en")
    for _ in range(400):
        if view.status != "active":
            return
        user = users[view.to_act[0]]
        if view.viewer_seat != view.to_act[0]:
            view = await play.get_match(db, match_id=match_id, viewer_id=user.id, locale="en")
        moves = [m for m in view.legal if m != "confirm"] or view.legal
        answer = await play.submit_move(
            db,
            match_id=match_id,
            user_id=user.id,
            expected_version=view.version,
            move=chooser.choice(moves),
            request_id=new_request_id(),
            locale="en",
        )
        view = answer.match
    raise AssertionError("the match did not end")


async def round_matches(db: AsyncSession, tournament_id: int, number: int) -> list[int]:
    rows = await db.scalars(
        select(TournamentMatch.match_id)
        .where(TournamentMatch.tournament_id == tournament_id, TournamentMatch.round == number)
        .order_by(TournamentMatch.table_no)
    )
    return list(rows)


async def seated(db: AsyncSession, match_id: int, users: dict[int, UserOut]) -> list[UserOut]:
    seats = await db.scalars(select(MatchSeat).where(MatchSeat.match_id == match_id).order_by(MatchSeat.seat))
    return [users[s.user_id] for s in seats if s.user_id is not None]


async def play_round(db: AsyncSession, tournament_id: int, users: dict[int, UserOut], seed: int) -> None:
    """Play every running match of the tournament's current round to its end (random moves),
    then wait for the next round's pairing (it runs in the background)."""
    await jobs.settle()
    t = await service.get_tournament(db, tournament_id=tournament_id, viewer_id=None)
    for match_id in await round_matches(db, tournament_id, t.current_round):
        status = await db.scalar(select(Match.status).where(Match.id == match_id))
        if status == MatchStatus.ACTIVE:
            await play_to_the_end(db, match_id, await seated(db, match_id, users), seed + match_id)
        db.expire_all()
    await jobs.settle()


async def play_all(db: AsyncSession, tournament_id: int, users: dict[int, UserOut], seed: int = 1) -> None:
    for _ in range(30):
        t = await service.get_tournament(db, tournament_id=tournament_id, viewer_id=None)
        if t.status != "running":
            return
        await play_round(db, tournament_id, users, seed)
    raise AssertionError("the tournament did not end")
