"""Where the rest of the server tells tournaments that something happened: a match ended
(the move path, a resignation), or the clock's round came (deadlines, rounds left to close)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, exists, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import aliased

from app.db.models import Match, MatchStatus
from app.db.tournaments import Tournament, TournamentMatch, TournamentStatus
from app.services.tournaments import jobs, runner


async def match_ended(db: AsyncSession, match_id: int) -> None:
    """A match ended (committed): if it was the last running one of a tournament's round, the
    next round is paired in the background, so the request that ended it does not wait."""
    same_round = aliased(TournamentMatch)
    still_running = (
        select(same_round.match_id)
        .join(Match, Match.id == same_round.match_id)
        .where(
            same_round.tournament_id == TournamentMatch.tournament_id,
            same_round.round == TournamentMatch.round,
            Match.status.in_([MatchStatus.ACTIVE, MatchStatus.OPEN]),
        )
    )
    tournament_id = await db.scalar(
        select(TournamentMatch.tournament_id).where(
            TournamentMatch.match_id == match_id, ~exists(still_running)
        )
    )
    await db.rollback()  # end the read
    if tournament_id is not None:
        jobs.pair_next_round(db, tournament_id)


async def sweep(sessionmaker: async_sessionmaker[AsyncSession], now: datetime) -> list[int]:
    """Start tournaments whose sign-up closed (or cancel them, too few players) and close every
    round whose matches have all ended (a crash between a match's end and its hook). Returns
    the tournaments changed."""
    from app.services.tournaments import service  # service builds on runner and this module

    changed: list[int] = []
    async with sessionmaker() as db:
        due = list(
            await db.scalars(
                select(Tournament.id).where(
                    Tournament.status == TournamentStatus.SIGNUP, Tournament.signup_until <= now
                )
            )
        )
        running_match = (
            select(TournamentMatch.match_id)
            .join(Match, Match.id == TournamentMatch.match_id)
            .where(
                and_(
                    TournamentMatch.tournament_id == Tournament.id,
                    TournamentMatch.round == Tournament.current_round,
                    Match.status.in_([MatchStatus.ACTIVE, MatchStatus.OPEN]),
                )
            )
        )
        ready = list(
            await db.scalars(
                select(Tournament.id).where(
                    Tournament.status == TournamentStatus.RUNNING, ~exists(running_match)
                )
            )
        )
    for tournament_id in due:
        async with sessionmaker() as db:
            if await service.start_when_due(db, tournament_id=tournament_id, now=now):
                changed.append(tournament_id)
    for tournament_id in ready:
        async with sessionmaker() as db:
            if await runner.advance(db, tournament_id):
                changed.append(tournament_id)
    return changed
