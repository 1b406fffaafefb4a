"""A player's page: ratings, results per game, running and finished matches (filterable)."""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app.db.models import Match, MatchSeat, MatchStatus, User
from app.services import ratings
from app.services._db import use_case
from app.services._rows import game_title, load_seats, summary, user_names
from app.services.errors import NotFound
from app.services.names import key as name_key
from app.services.play_schemas import GameResults, ProfileOut

FINISHED_SHOWN = 100


@use_case
async def get_profile(
    db: AsyncSession,
    *,
    name: str,
    viewer_id: int | None,
    game: str | None = None,
    opponent: str | None = None,
    locale: str = "en",
) -> ProfileOut:
    """The user called ``name``; finished matches filtered by game slug and opponent name."""
    user = await db.scalar(select(User).where(User.name_key == name_key(name)))
    if user is None:
        raise NotFound(f"there is no player called {name!r}")
    seated = select(MatchSeat.match_id).where(MatchSeat.user_id == user.id)
    running = list(
        await db.scalars(
            select(Match)
            .where(Match.id.in_(seated), Match.status.in_([MatchStatus.OPEN, MatchStatus.ACTIVE]))
            .order_by(Match.id.desc())
        )
    )
    done_query = select(Match).where(
        Match.id.in_(seated), Match.status.in_([MatchStatus.FINISHED, MatchStatus.ABORTED])
    )
    if game:
        done_query = done_query.where(Match.game == game)
    if opponent:
        other_seat, other_user = aliased(MatchSeat), aliased(User)
        done_query = done_query.where(
            Match.id.in_(
                select(other_seat.match_id)
                .join(other_user, other_user.id == other_seat.user_id)
                .where(other_user.name_key == name_key(opponent), other_user.id != user.id)
            )
        )
    finished = list(
        await db.scalars(done_query.order_by(Match.finished_at.desc(), Match.id.desc()).limit(FINISHED_SHOWN))
    )
    results, games_played, opponents = await _results(db, user.id, locale)
    seats = await load_seats(db, [m.id for m in running + finished])
    names = await user_names(db, [s for rows in seats.values() for s in rows])
    return ProfileOut(
        user_id=user.id,
        name=user.name,
        member_since=user.created_at,
        ratings=await ratings.user_ratings(db, user_id=user.id, locale=locale),
        results=results,
        running=[summary(m, seats[m.id], names, viewer_id) for m in running],
        finished=[summary(m, seats[m.id], names, viewer_id) for m in finished],
        games_played=games_played,
        opponents=opponents,
    )


async def _results(
    db: AsyncSession, user_id: int, locale: str
) -> tuple[list[GameResults], list[str], list[str]]:
    """Per game: finished matches, wins (first place, shared or not), average rank."""
    rows = await db.execute(
        select(Match.id, Match.game, MatchSeat.rank)
        .join(MatchSeat, MatchSeat.match_id == Match.id)
        .where(MatchSeat.user_id == user_id, Match.status == MatchStatus.FINISHED)
    )
    ranks: dict[str, list[int]] = defaultdict(list)
    match_ids = []
    for match_id, game, rank in rows.tuples():
        match_ids.append(match_id)
        if rank is not None:
            ranks[game].append(rank)
    results = [
        GameResults(
            game=game,
            game_title=game_title(game, locale),
            played=len(values),
            won=sum(1 for r in values if r == 1),
            average_rank=round(sum(values) / len(values), 2),
        )
        for game, values in sorted(ranks.items())
    ]
    other = await db.scalars(
        select(User.name)
        .join(MatchSeat, MatchSeat.user_id == User.id)
        .where(MatchSeat.match_id.in_(match_ids), User.id != user_id)
        .distinct()
    )
    return results, sorted(ranks), sorted(set(other), key=str.casefold)


@use_case
async def is_new_player(db: AsyncSession, *, user_id: int) -> bool:
    """Whether the user has not finished a match yet (the match page then says what to click)."""
    finished = (
        select(MatchSeat.match_id)
        .join(Match, Match.id == MatchSeat.match_id)
        .where(MatchSeat.user_id == user_id, Match.status == MatchStatus.FINISHED)
        .limit(1)
    )
    return await db.scalar(finished) is None
