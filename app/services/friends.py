"""Friends and blocks: ask, accept, decline, remove; block and unblock; who is online.

A person may block another: the blocked one can then neither invite them to a table
(``lobby``), nor write in the chat of a match they play (``play.chat``), nor ask to be their
friend. Blocking ends a friendship and any request between the two.

Online means a session of theirs was seen within ``ONLINE_WITHIN``: ``sessions.last_seen_at``
is written at most once a minute per session (``accounts.SEEN_RESOLUTION``), so being online
costs no write per request. Only friends see each other's online state and running matches.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from app.db.accounts import User, UserSession
from app.db.matches import Match, MatchSeat, MatchStatus
from app.db.social import Block, Friendship
from app.db.types import utcnow
from app.services import notify, throttle
from app.services._db import use_case
from app.services._rows import game_title, has_control_characters
from app.services.errors import Conflict, Forbidden, InvalidInput, NotFound
from app.services.names import key as name_key
from app.services.social_schemas import (
    BlocksOut,
    FriendOut,
    FriendsOut,
    Relation,
    RelationOut,
    RunningMatchOut,
)
from app.services.throttle import Quota

ONLINE_WITHIN = timedelta(minutes=5)
PAGE = 50
"""Friends (and blocked people, and requests) per page."""
MAX_PAGE = 1000
MAX_FRIENDS = 500
MAX_ASKED = 50
"""Requests one person may have waiting for an answer."""
MAX_BLOCKS = 500
REQUESTS = Quota(per=30, window=timedelta(hours=1))
RUNNING_SHOWN = 5
"""Running matches shown per friend."""

TOO_MANY_REQUESTS = "you have asked too many people to be your friends: please wait a while"
BLOCKED_YOU = "{name} does not accept this from you"


def requests_key(user_id: int) -> str:
    return f"friends@user:{user_id}"


@use_case
async def relation(db: AsyncSession, *, user_id: int, name: str) -> RelationOut:
    """How the user stands to the person called ``name``."""
    other = await _person(db, name, user_id)
    return RelationOut(name=other.name, relation=await _relation(db, user_id, other.id))


@use_case
async def ask_or_accept(db: AsyncSession, *, user_id: int, name: str) -> RelationOut:
    """Accept ``name``'s request, or ask ``name`` to be friends (answers ``friend`` or ``asked``)."""
    other = await _person(db, name, user_id)
    if await _blocked(db, blocker=other.id, blocked=user_id):
        raise Forbidden(BLOCKED_YOU.format(name=other.name))
    if await _blocked(db, blocker=user_id, blocked=other.id):
        raise Conflict(f"you have blocked {other.name}: unblock them first")
    current = await _relation(db, user_id, other.id)
    if current in ("friend", "asked"):
        return RelationOut(name=other.name, relation=current)
    if current == "asking":
        await _at_most_friends(db, user_id)
        await _at_most_friends(db, other.id)
        await db.execute(
            update(Friendship)
            .where(Friendship.user_id == other.id, Friendship.other_id == user_id)
            .values(accepted=True)
        )
        db.add(Friendship(user_id=user_id, other_id=other.id, accepted=True, created_at=utcnow()))
        name, other_id = other.name, other.id
        await db.commit()
        await notify.nudge({other_id})
        return RelationOut(name=name, relation="friend")
    asked = await db.scalar(
        select(func.count()).where(Friendship.user_id == user_id, Friendship.accepted.is_(False))
    )
    if (asked or 0) >= MAX_ASKED:
        raise Conflict(f"you have {MAX_ASKED} requests waiting for an answer: wait for some first")
    await _at_most_friends(db, user_id)
    await throttle.spend(db, requests_key(user_id), REQUESTS, TOO_MANY_REQUESTS)
    name, other_id = other.name, other.id
    db.add(Friendship(user_id=user_id, other_id=other_id, accepted=False, created_at=utcnow()))
    await db.commit()
    await notify.nudge({other_id})
    return RelationOut(name=name, relation="asked")


@use_case
async def remove(db: AsyncSession, *, user_id: int, name: str) -> RelationOut:
    """Decline ``name``'s request, withdraw one's own, or end the friendship."""
    other = await _person(db, name, user_id)
    name = other.name  # a rollback or commit expires the row
    gone = await db.execute(delete(Friendship).where(_between(user_id, other.id)))
    if not getattr(gone, "rowcount", 0):
        await db.rollback()
        raise NotFound(f"{name} is not your friend and there is no request between you")
    await db.commit()
    return RelationOut(name=name, relation="none")


@use_case
async def block(db: AsyncSession, *, user_id: int, name: str) -> RelationOut:
    """Block ``name`` (ends a friendship or request between the two)."""
    other = await _person(db, name, user_id)
    if await _blocked(db, blocker=user_id, blocked=other.id):
        return RelationOut(name=other.name, relation="blocked")
    count = await db.scalar(select(func.count()).where(Block.user_id == user_id))
    if (count or 0) >= MAX_BLOCKS:
        raise Conflict(f"you have blocked {MAX_BLOCKS} people: unblock some first")
    await db.execute(delete(Friendship).where(_between(user_id, other.id)))
    name = other.name
    db.add(Block(user_id=user_id, blocked_id=other.id, created_at=utcnow()))
    await db.commit()
    return RelationOut(name=name, relation="blocked")


@use_case
async def unblock(db: AsyncSession, *, user_id: int, name: str) -> RelationOut:
    other = await _person(db, name, user_id)
    name = other.name
    gone = await db.execute(delete(Block).where(Block.user_id == user_id, Block.blocked_id == other.id))
    if not getattr(gone, "rowcount", 0):
        await db.rollback()
        raise NotFound(f"you have not blocked {name}")
    await db.commit()
    return RelationOut(name=name, relation="none")


@use_case
async def list_blocks(db: AsyncSession, *, user_id: int, page: int = 1) -> BlocksOut:
    _check_page(page)
    rows = list(
        await db.scalars(
            select(User.name)
            .join(Block, Block.blocked_id == User.id)
            .where(Block.user_id == user_id)
            .order_by(User.name_key)
            .offset((page - 1) * PAGE)
            .limit(PAGE + 1)
        )
    )
    return BlocksOut(names=rows[:PAGE], page=page, more=len(rows) > PAGE)


@use_case
async def list_friends(db: AsyncSession, *, user_id: int, page: int = 1, locale: str = "en") -> FriendsOut:
    """A page of friends by name, each with online state and running matches; the requests."""
    _check_page(page)
    rows = (
        (
            await db.execute(
                select(User.id, User.name)
                .join(Friendship, Friendship.other_id == User.id)
                .where(Friendship.user_id == user_id, Friendship.accepted.is_(True))
                .order_by(User.name_key)
                .offset((page - 1) * PAGE)
                .limit(PAGE + 1)
            )
        )
        .tuples()
        .all()
    )
    more, rows = len(rows) > PAGE, rows[:PAGE]
    ids = [i for i, _ in rows]
    online = await online_among(db, ids)
    running = await _running(db, ids, locale)
    total = await db.scalar(
        select(func.count()).where(Friendship.user_id == user_id, Friendship.accepted.is_(True))
    )
    asking = await db.scalars(
        select(User.name)
        .join(Friendship, Friendship.user_id == User.id)
        .where(Friendship.other_id == user_id, Friendship.accepted.is_(False))
        .order_by(Friendship.created_at.desc())
        .limit(PAGE)
    )
    asked = await db.scalars(
        select(User.name)
        .join(Friendship, Friendship.other_id == User.id)
        .where(Friendship.user_id == user_id, Friendship.accepted.is_(False))
        .order_by(Friendship.created_at.desc())
        .limit(PAGE)
    )
    return FriendsOut(
        friends=[FriendOut(name=n, online=i in online, running=running.get(i, [])) for i, n in rows],
        page=page,
        more=more,
        asking=list(asking),
        asked=list(asked),
        total=total or 0,
    )


@use_case
async def friend_names(db: AsyncSession, *, user_id: int, limit: int = 20) -> list[str]:
    """Friends to invite in one click (the create form), online ones first."""
    rows = (
        (
            await db.execute(
                select(User.id, User.name)
                .join(Friendship, Friendship.other_id == User.id)
                .where(Friendship.user_id == user_id, Friendship.accepted.is_(True))
                .order_by(User.name_key)
                .limit(MAX_FRIENDS)
            )
        )
        .tuples()
        .all()
    )
    online = await online_among(db, [i for i, _ in rows])
    ordered = sorted(rows, key=lambda r: r[0] not in online)
    return [n for _, n in ordered[:limit]]


async def online_among(db: AsyncSession, user_ids: Iterable[int]) -> set[int]:
    """Those of ``user_ids`` with a session seen within ``ONLINE_WITHIN``."""
    ids = list(user_ids)
    if not ids:
        return set()
    seen = await db.scalars(
        select(UserSession.user_id)
        .where(UserSession.user_id.in_(ids), UserSession.last_seen_at >= utcnow() - ONLINE_WITHIN)
        .distinct()
    )
    return set(seen)


async def blocked_by_any(db: AsyncSession, blockers: Iterable[int], blocked: int) -> bool:
    """Whether any of ``blockers`` has blocked ``blocked`` (one indexed query)."""
    ids = [i for i in blockers if i != blocked]
    if not ids:
        return False
    found = await db.scalar(
        select(Block.user_id).where(Block.blocked_id == blocked, Block.user_id.in_(ids)).limit(1)
    )
    return found is not None


async def who_blocked(db: AsyncSession, blockers: Iterable[int], blocked: int) -> list[int]:
    """Those of ``blockers`` who have blocked ``blocked``."""
    ids = [i for i in blockers if i != blocked]
    if not ids:
        return []
    return list(
        await db.scalars(select(Block.user_id).where(Block.blocked_id == blocked, Block.user_id.in_(ids)))
    )


# --- helpers ------------------------------------------------------------------------------


async def _person(db: AsyncSession, name: str, user_id: int) -> User:
    if not name.strip() or len(name) > 60 or has_control_characters(name):
        # No name holds control characters (and PostgreSQL refuses NUL in a query).
        raise NotFound(f"there is no player called {name.strip()[:60]!r}")
    other = await db.scalar(select(User).where(User.name_key == name_key(name)))
    if other is None:
        raise NotFound(f"there is no player called {name.strip()!r}")
    if other.id == user_id:
        raise InvalidInput("that is you")
    if other.bot_level is not None:
        raise InvalidInput("computer opponents have no friends")
    return other


async def _relation(db: AsyncSession, user_id: int, other_id: int) -> Relation:
    if await _blocked(db, blocker=user_id, blocked=other_id):
        return "blocked"
    rows = (
        (await db.execute(select(Friendship.user_id, Friendship.accepted).where(_between(user_id, other_id))))
        .tuples()
        .all()
    )
    if any(accepted for _, accepted in rows):
        return "friend"
    if any(asker == user_id for asker, _ in rows):
        return "asked"
    if rows:
        return "asking"
    return "none"


def _between(a: int, b: int) -> ColumnElement[bool]:
    return or_(
        (Friendship.user_id == a) & (Friendship.other_id == b),
        (Friendship.user_id == b) & (Friendship.other_id == a),
    )


async def _blocked(db: AsyncSession, *, blocker: int, blocked: int) -> bool:
    return await db.get(Block, (blocker, blocked)) is not None


async def _at_most_friends(db: AsyncSession, user_id: int) -> None:
    count = await db.scalar(
        select(func.count()).where(Friendship.user_id == user_id, Friendship.accepted.is_(True))
    )
    if (count or 0) >= MAX_FRIENDS:
        raise Conflict(f"a friends list holds at most {MAX_FRIENDS} people")


async def _running(db: AsyncSession, ids: list[int], locale: str) -> dict[int, list[RunningMatchOut]]:
    if not ids:
        return {}
    rows = (
        await db.execute(
            select(MatchSeat.user_id, Match.id, Match.game)
            .join(Match, Match.id == MatchSeat.match_id)
            .where(MatchSeat.user_id.in_(ids), Match.status == MatchStatus.ACTIVE)
            .order_by(Match.id.desc())
            .limit(RUNNING_SHOWN * len(ids))
        )
    ).tuples()
    out: dict[int, list[RunningMatchOut]] = {}
    for user, match_id, game in rows:
        shown = out.setdefault(int(user or 0), [])
        if len(shown) < RUNNING_SHOWN:
            shown.append(RunningMatchOut(id=match_id, game=game, game_title=game_title(game, locale)))
    return out


def _check_page(page: int) -> None:
    if not 1 <= page <= MAX_PAGE:
        raise InvalidInput(f"a page is a number from 1 to {MAX_PAGE}")
