"""Statistics pages read the tables ``tallies`` keeps; none counts matches per request.

A player's page is a few indexed reads whatever their history: their rows of
``player_game_stats`` (the best rating kept there too), their ratings, their top opponents
(``opponent_stats``, a window over their rows), and the newest ``GRAPH_POINTS`` of the rating
history per game (one backward range of ``rating_history (user_id, game, id)``).
Head-to-head adds the pair's rows and a page of their common matches (walking the first
player's matches newest first through ``seats (user_id, match_id)``).
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app.db.accounts import User
from app.db.async_play import Rating
from app.db.matches import Match, MatchSeat, MatchStatus
from app.db.stats import GameTally, OpponentStats, PlayerGameStats
from app.engine.registry import UnknownGame, get_game
from app.services import tallies
from app.services._db import use_case
from app.services._rows import game_title, load_seats, summary, user_names
from app.services.errors import InvalidInput, NotFound
from app.services.names import key as name_key
from app.services.play_schemas import RatingPoint
from app.services.ratings import ordinal, rating_points
from app.services.social_schemas import (
    DragonOut,
    GameStatsOut,
    OpponentOut,
    PlayerGameStatsOut,
    PlayerStatsOut,
    SeatWinsOut,
    TableStatsOut,
    VersusGameOut,
    VersusOut,
)

GRAPH_POINTS = 200
FAVOURITES = 5
VERSUS_PAGE = 20
MAX_PAGE = 10_000


@use_case
async def player_stats(db: AsyncSession, *, name: str, locale: str = "en") -> PlayerStatsOut:
    user = await _user(db, name)
    rows = list(
        await db.scalars(
            select(PlayerGameStats).where(PlayerGameStats.user_id == user.id).order_by(PlayerGameStats.game)
        )
    )
    rated = {r.game: r for r in await db.scalars(select(Rating).where(Rating.user_id == user.id))}
    favourites = await _favourites(db, user.id)
    games = []
    for row in rows:
        rating = rated.get(row.game)
        games.append(
            PlayerGameStatsOut(
                game=row.game,
                game_title=game_title(row.game, locale),
                played=row.played,
                won=row.won,
                win_rate=round(row.won / row.played, 4) if row.played else 0.0,
                average_rank=round(row.rank_sum / row.played, 2) if row.played else 0.0,
                average_score=round(row.score_sum / row.scored, 2) if row.scored else None,
                rating=ordinal(rating.mu, rating.sigma) if rating and rating.games else None,
                best_rating=row.best_rating,
                rated_matches=rating.games if rating else 0,
                streak=row.streak,
                best_streak=row.best_streak,
                favourite_opponents=favourites.get(row.game, []),
                rating_history=await _graph(db, user.id, row.game) if rating and rating.games else [],
            )
        )
    return PlayerStatsOut(
        name=user.name, bot=user.bot_level is not None, member_since=user.created_at, games=games
    )


@use_case
async def versus(
    db: AsyncSession,
    *,
    name: str,
    other: str,
    page: int = 1,
    viewer_id: int | None = None,
    locale: str = "en",
) -> VersusOut:
    """Head-to-head of ``name`` against ``other``: wins, losses, draws per game and a page of
    their finished matches, newest first."""
    if not 1 <= page <= MAX_PAGE:
        raise InvalidInput(f"a page is a number from 1 to {MAX_PAGE}")
    a, b = await _user(db, name), await _user(db, other)
    if a.id == b.id:
        raise InvalidInput("head-to-head needs two different players")
    rows = list(
        await db.scalars(
            select(OpponentStats)
            .where(OpponentStats.user_id == a.id, OpponentStats.other_id == b.id)
            .order_by(OpponentStats.game)
        )
    )
    mine, theirs = aliased(MatchSeat), aliased(MatchSeat)
    common = (
        select(Match)
        .join(mine, mine.match_id == Match.id)
        .join(theirs, theirs.match_id == Match.id)
        .where(mine.user_id == a.id, theirs.user_id == b.id, Match.status == MatchStatus.FINISHED)
        .order_by(mine.match_id.desc())
        .offset((page - 1) * VERSUS_PAGE)
        .limit(VERSUS_PAGE + 1)
    )
    matches = list((await db.scalars(common)).unique())
    more, matches = len(matches) > VERSUS_PAGE, matches[:VERSUS_PAGE]
    seats = await load_seats(db, [m.id for m in matches])
    names = await user_names(db, [s for group in seats.values() for s in group])
    return VersusOut(
        name=a.name,
        other=b.name,
        played=sum(r.played for r in rows),
        won=sum(r.won for r in rows),
        lost=sum(r.lost for r in rows),
        drawn=sum(r.drawn for r in rows),
        games=[
            VersusGameOut(
                game=r.game,
                game_title=game_title(r.game, locale),
                played=r.played,
                won=r.won,
                lost=r.lost,
                drawn=r.drawn,
            )
            for r in rows
        ],
        matches=[summary(m, seats[m.id], names, viewer_id) for m in matches],
        page=page,
        more=more,
    )


@use_case
async def game_stats(db: AsyncSession, *, game: str, locale: str = "en") -> GameStatsOut:
    """Everybody's matches of ``game`` per table size: seat wins, length, Draco's summit."""
    try:
        get_game(game)
    except UnknownGame as error:
        raise NotFound(str(error)) from None
    rows = (
        await db.execute(
            select(GameTally.players, GameTally.key, GameTally.count)
            .where(GameTally.game == game)
            .order_by(GameTally.players, GameTally.key)
        )
    ).tuples()
    by_size: dict[int, dict[str, float]] = {}
    for players, key, count in rows:
        by_size.setdefault(players, {})[key] = count
    tables = []
    for players, counts in sorted(by_size.items()):
        matches = int(counts.get(tallies.MATCHES, 0))
        if not matches:
            continue
        wins = [int(counts.get(f"{tallies.WIN}{seat}", 0)) for seat in range(players)]
        summit = sorted(
            (
                (k.removeprefix(tallies.SUMMIT), int(v))
                for k, v in counts.items()
                if k.startswith(tallies.SUMMIT)
            ),
            key=lambda item: (-item[1], item[0]),
        )
        seconds = counts.get(tallies.SECONDS)
        tables.append(
            TableStatsOut(
                players=players,
                matches=matches,
                seat_wins=[
                    SeatWinsOut(seat=seat, wins=w, rate=round(w / matches, 4)) for seat, w in enumerate(wins)
                ],
                average_decisions=round(counts.get(tallies.DECISIONS, 0) / matches, 1),
                average_days=round(seconds / matches / 86400, 2) if seconds is not None else None,
                summit=[
                    DragonOut(dragon=d, name=_dragon_name(d, locale), count=c, rate=round(c / matches, 4))
                    for d, c in summit
                ],
            )
        )
    return GameStatsOut(
        game=game, game_title=game_title(game, locale), matches=sum(t.matches for t in tables), tables=tables
    )


def _dragon_name(dragon: str, locale: str) -> str:
    from app.games.draco.text import dragon_name  # only Draco's statistics name dragons

    return dragon_name(dragon, "de" if locale == "de" else "en")


async def _user(db: AsyncSession, name: str) -> User:
    user = None
    if name.strip() and len(name) <= 60:
        user = await db.scalar(select(User).where(User.name_key == name_key(name)))
    if user is None:
        raise NotFound(f"there is no player called {name.strip()[:60]!r}")
    return user


async def _favourites(db: AsyncSession, user_id: int) -> dict[str, list[OpponentOut]]:
    """The most met opponents per game (one query: a window over the player's rows)."""
    place = (
        func.row_number()
        .over(partition_by=OpponentStats.game, order_by=(OpponentStats.played.desc(), OpponentStats.other_id))
        .label("place")
    )
    ranked = select(OpponentStats, place).where(OpponentStats.user_id == user_id).subquery()
    rows = await db.execute(
        select(ranked, User.name)
        .join(User, User.id == ranked.c.other_id)
        .where(ranked.c.place <= FAVOURITES)
        .order_by(ranked.c.game, ranked.c.place)
    )
    out: dict[str, list[OpponentOut]] = {}
    for row in rows.mappings():
        out.setdefault(row["game"], []).append(
            OpponentOut(
                name=row["name"], played=row["played"], won=row["won"], lost=row["lost"], drawn=row["drawn"]
            )
        )
    return out


async def _graph(db: AsyncSession, user_id: int, game: str) -> list[RatingPoint]:
    return await rating_points(db, user_id=user_id, game=game, limit=GRAPH_POINTS)
