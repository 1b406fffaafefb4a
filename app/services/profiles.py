"""A player's page: ratings, results per game, running and finished matches (filterable)."""

from __future__ import annotations

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app.db.models import Match, MatchSeat, MatchStatus, User
from app.db.stats import OpponentStats, PlayerGameStats
from app.services import ratings
from app.services._db import use_case
from app.services._rows import game_title, load_seats, summary, user_names
from app.services.errors import InvalidInput, NotFound
from app.services.names import key as name_key
from app.services.play_schemas import GameResults, ProfileOut

PROFILE_PAGE = 20
"""Running and finished matches per profile page (newest first; further pages on request)."""
OPPONENTS_SHOWN = 100
"""The opponent filter's choices: the people met most often (a bot meets everybody)."""
MAX_PAGE = 10_000


@use_case
async def get_profile(
    db: AsyncSession,
    *,
    name: str,
    viewer_id: int | None,
    game: str | None = None,
    opponent: str | None = None,
    locale: str = "en",
    running_page: int = 1,
    finished_page: int = 1,
) -> ProfileOut:
    """The user called ``name`` (a person or a bot alike); running and finished matches a page
    each (``PROFILE_PAGE``, newest first), the finished ones filtered by game slug and opponent."""
    for number in (running_page, finished_page):
        if not 1 <= number <= MAX_PAGE:
            raise InvalidInput(f"a page is a number from 1 to {MAX_PAGE}")
    user = await db.scalar(select(User).where(User.name_key == name_key(name)))
    if user is None:
        raise NotFound(f"there is no player called {name!r}")
    seated = select(MatchSeat.match_id).where(MatchSeat.user_id == user.id)
    running_query = select(Match).where(
        Match.id.in_(seated), Match.status.in_([MatchStatus.OPEN, MatchStatus.ACTIVE])
    )
    running, running_more = await _page(db, running_query.order_by(Match.id.desc()), running_page)
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
    finished, finished_more = await _page(
        db, done_query.order_by(Match.finished_at.desc(), Match.id.desc()), finished_page
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
        running_page=running_page,
        running_more=running_more,
        finished=[summary(m, seats[m.id], names, viewer_id) for m in finished],
        finished_page=finished_page,
        finished_more=finished_more,
        games_played=games_played,
        opponents=opponents,
    )


async def _page(db: AsyncSession, query: Select[tuple[Match]], number: int) -> tuple[list[Match], bool]:
    """Page ``number`` (from 1) of ``query``'s matches, and whether a further page has more."""
    rows = list(await db.scalars(query.offset((number - 1) * PROFILE_PAGE).limit(PROFILE_PAGE + 1)))
    return rows[:PROFILE_PAGE], len(rows) > PROFILE_PAGE


async def _results(
    db: AsyncSession, user_id: int, locale: str
) -> tuple[list[GameResults], list[str], list[str]]:
    """Per game: finished matches, wins (first place, shared or not), average rank; and the
    opponent filter's names. Read from the statistics kept when a match ends (``tallies``):
    counting a player's matches here scanned the matches table on every visit."""
    rows = list(
        await db.scalars(
            select(PlayerGameStats)
            .where(PlayerGameStats.user_id == user_id, PlayerGameStats.played > 0)
            .order_by(PlayerGameStats.game)
        )
    )
    results = [
        GameResults(
            game=row.game,
            game_title=game_title(row.game, locale),
            played=row.played,
            won=row.won,
            average_rank=round(row.rank_sum / row.played, 2),
        )
        for row in rows
    ]
    # The people met most often (a bot meets everybody: its rows are many, the page shows 100).
    met = func.sum(OpponentStats.played)
    other = await db.scalars(
        select(User.name)
        .join(OpponentStats, OpponentStats.other_id == User.id)
        .where(OpponentStats.user_id == user_id)
        .group_by(User.id, User.name)
        .order_by(met.desc(), User.name_key)
        .limit(OPPONENTS_SHOWN)
    )
    return results, [r.game for r in rows], sorted(set(other), key=str.casefold)


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
