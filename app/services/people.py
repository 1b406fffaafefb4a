"""Finding people by name: by the start of the name as names compare (case and width folded),
and by the start of its look-alike skeleton (``names.skeleton``), so ``AIice`` finds ``alice``."""

from __future__ import annotations

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.accounts import User
from app.db.async_play import Rating, UserSettings
from app.db.stats import PlayerGameStats
from app.services._db import use_case
from app.services._rows import has_control_characters
from app.services.errors import InvalidInput
from app.services.names import key as name_key
from app.services.names import skeleton
from app.services.ratings import ordinal
from app.services.social_schemas import PlayerFound, SearchOut

PAGE = 20
MAX_PAGE = 500
QUERY_MAX = 40


@use_case
async def search(db: AsyncSession, *, query: str, page: int = 1) -> SearchOut:
    """People (and bots) whose name starts like ``query``, by name, with games and ratings."""
    typed = query.strip()
    if not typed:
        raise InvalidInput("type the start of a name")
    if len(typed) > QUERY_MAX or has_control_characters(typed):
        raise InvalidInput(f"a name has at most {QUERY_MAX} characters")
    if not 1 <= page <= MAX_PAGE:
        raise InvalidInput(f"a page is a number from 1 to {MAX_PAGE}")
    disabled = select(UserSettings.user_id).where(UserSettings.disabled.is_(True))
    found = (
        (
            await db.execute(
                select(User.id, User.name, User.bot_level)
                .where(
                    or_(
                        User.name_key.startswith(name_key(typed), autoescape=True),
                        User.name_skeleton.startswith(skeleton(typed), autoescape=True),
                    ),
                    User.id.not_in(disabled),
                )
                .order_by(User.name_key)
                .offset((page - 1) * PAGE)
                .limit(PAGE + 1)
            )
        )
        .tuples()
        .all()
    )
    more, found = len(found) > PAGE, found[:PAGE]
    ids = [i for i, _, _ in found]
    ratings: dict[int, dict[str, float]] = {}
    played: dict[int, dict[str, int]] = {}
    if ids:
        for r in await db.scalars(select(Rating).where(Rating.user_id.in_(ids), Rating.games > 0)):
            ratings.setdefault(r.user_id, {})[r.game] = round(ordinal(r.mu, r.sigma), 2)
        for s in await db.scalars(select(PlayerGameStats).where(PlayerGameStats.user_id.in_(ids))):
            played.setdefault(s.user_id, {})[s.game] = s.played
    return SearchOut(
        query=typed,
        players=[
            PlayerFound(name=n, bot=level is not None, ratings=ratings.get(i, {}), played=played.get(i, {}))
            for i, n, level in found
        ],
        page=page,
        more=more,
    )
