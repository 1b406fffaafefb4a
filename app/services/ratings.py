"""Ratings per game with OpenSkill (Plackett-Luce, placement-based, any number of players).

``rate_match`` runs inside the transaction that ends a match by other means (a resignation, a
draw, a vote), so that match and its rating changes commit together. The move path commits the
decision that ends a match by its rules in one statement of its own and rates it right after
with ``rate_finished``; the clock round rates any match a crash left unrated. Either way the
history's unique (user, match) makes a second rating of one match impossible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.async_play import Rating, RatingChange
from app.db.models import Match, MatchSeat, MatchStatus, User
from app.db.types import utcnow
from app.engine.registry import UnknownGame, get_game
from app.services import tallies
from app.services._db import use_case
from app.services._rows import game_title, load_match, load_seats
from app.services.errors import NotFound
from app.services.play_schemas import RankingRow, RatingOut, RatingPoint

MODEL = PlackettLuce()
RANKING_LIMIT = 200


def ordinal(mu: float, sigma: float) -> float:
    """The conservative estimate the ranking sorts by."""
    return mu - 3 * sigma


def is_rated(game: str, options: Mapping[str, Any]) -> bool:
    """A match is rated unless an option marked ``rated=False`` is off its default.

    (Felsental's single-leg option is such an option: only the two-leg match is rated.)
    """
    try:
        info = get_game(game).info
    except UnknownGame:
        return False
    return all(o.rated or options.get(o.key, o.default) == o.default for o in info.options)


async def rate_match(db: AsyncSession, match: Match, seats: Sequence[MatchSeat]) -> list[RatingChange]:
    """Update the players' ratings for a finished rated match (inside the caller's transaction).

    Every way a match ends comes here, so the statistics count it here too (``tallies``),
    rated or not."""
    if match.status != MatchStatus.FINISHED or not match.result:
        return []
    await tallies.record(db, match, seats)
    if not is_rated(match.game, match.options):
        return []
    users = [s.user_id for s in seats]
    if any(u is None for u in users) or len(set(users)) != len(users) or len(users) < 2:
        return []
    if await db.scalar(select(func.count()).where(RatingChange.match_id == match.id)):
        return []
    ids = [u for u in users if u is not None]
    if await db.scalar(select(func.count()).where(User.id.in_(ids), User.bot_level.is_not(None))):
        return []  # a match with computer opponents rates nobody
    ranks: list[int] = [int(r) for r in match.result["ranks"]]
    rows = {
        r.user_id: r
        for r in await db.scalars(
            select(Rating).where(Rating.user_id.in_(ids), Rating.game == match.game).with_for_update()
        )
    }
    now = utcnow()
    for user_id in ids:
        if user_id not in rows:
            fresh = MODEL.rating()
            rows[user_id] = Rating(user_id=user_id, game=match.game, mu=fresh.mu, sigma=fresh.sigma, games=0)
            db.add(rows[user_id])
    before = [(rows[u].mu, rows[u].sigma) for u in ids]
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
    after = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    changes = []
    for user_id, rank, (mu, sigma), team in zip(ids, ranks, before, after, strict=True):
        row = rows[user_id]
        row.mu, row.sigma, row.games, row.updated_at = team[0].mu, team[0].sigma, row.games + 1, now
        changes.append(
            RatingChange(
                user_id=user_id,
                game=match.game,
                match_id=match.id,
                rank=rank,
                mu_before=mu,
                sigma_before=sigma,
                mu_after=team[0].mu,
                sigma_after=team[0].sigma,
                created_at=now,
            )
        )
    db.add_all(changes)
    await db.flush()
    await tallies.note_ratings(
        db, match.game, {c.user_id: ordinal(c.mu_after, c.sigma_after) for c in changes}
    )
    return changes


@use_case
async def rate_finished(db: AsyncSession, *, match_id: int) -> bool:
    """Rate a finished match unless it is rated already (or unrated); True when it was rated now."""
    match = await load_match(db, match_id)
    seats = (await load_seats(db, [match_id]))[match_id]
    try:
        changes = await rate_match(db, match, seats)
        await db.commit()
    except IntegrityError:
        await db.rollback()  # rated meanwhile by another process
        return False
    return bool(changes)


@use_case
async def ranking(db: AsyncSession, *, game: str, locale: str = "en") -> list[RankingRow]:
    """The game's players by ordinal, best first."""
    try:
        get_game(game)
    except UnknownGame as error:
        raise NotFound(str(error)) from None
    rows = await db.execute(
        select(Rating, User.name)
        .join(User, User.id == Rating.user_id)
        .where(Rating.game == game, Rating.games > 0)
        .order_by((Rating.mu - 3 * Rating.sigma).desc(), User.name_key)
        .limit(RANKING_LIMIT)
    )
    return [
        RankingRow(position=i, user_id=r.user_id, name=name, rating=rating_out(r, locale))
        for i, (r, name) in enumerate(rows.tuples(), start=1)
    ]


@use_case
async def user_ratings(db: AsyncSession, *, user_id: int, locale: str = "en") -> list[RatingOut]:
    rows = await db.scalars(select(Rating).where(Rating.user_id == user_id).order_by(Rating.game))
    return [rating_out(r, locale) for r in rows]


HISTORY_PAGE = 50
"""Rating points per history page."""


@use_case
async def history(db: AsyncSession, *, user_id: int, game: str, page: int = 1) -> list[RatingPoint]:
    """The user's rating after each rated match of ``game``, oldest first, ``HISTORY_PAGE`` at
    a time: page 1 holds the newest points, page 2 those before them, and so on."""
    return await rating_points(
        db, user_id=user_id, game=game, limit=HISTORY_PAGE, offset=(max(1, page) - 1) * HISTORY_PAGE
    )


async def rating_points(
    db: AsyncSession, *, user_id: int, game: str, limit: int, offset: int = 0
) -> list[RatingPoint]:
    """``limit`` rating points of the user in ``game`` after skipping the ``offset`` newest,
    oldest first (the index on (user_id, game, id) reads just them)."""
    newest_first = await db.scalars(
        select(RatingChange)
        .where(RatingChange.user_id == user_id, RatingChange.game == game)
        .order_by(RatingChange.id.desc())
        .offset(offset)
        .limit(limit)
    )
    return [
        RatingPoint(
            match_id=r.match_id,
            rank=r.rank,
            mu_before=r.mu_before,
            mu_after=r.mu_after,
            sigma_after=r.sigma_after,
            ordinal_after=ordinal(r.mu_after, r.sigma_after),
            created_at=r.created_at,
        )
        for r in list(newest_first)[::-1]
    ]


def rating_out(row: Rating, locale: str = "en") -> RatingOut:
    return RatingOut(
        game=row.game,
        game_title=game_title(row.game, locale),
        mu=row.mu,
        sigma=row.sigma,
        ordinal=ordinal(row.mu, row.sigma),
        games=row.games,
    )
