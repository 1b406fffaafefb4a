"""Loading matches with their seats and players, and turning rows into output schemas."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar, cast

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from app.db.matches import VERSION_SPAN, public_version
from app.db.models import Match, MatchSeat, User
from app.engine.registry import UnknownGame, get_game
from app.services._db import hold_lock
from app.services.errors import InvalidInput, NotFound
from app.services.schemas import MatchStatusName, MatchSummary, SeatOut

_Row = TypeVar("_Row")

MAX_ID = 2**31 - 1
"""Ids are 32-bit integers on PostgreSQL: a larger number names nothing."""


async def load_match(db: AsyncSession, match_id: int) -> Match:
    match = await db.get(Match, match_id, populate_existing=True) if 1 <= match_id <= MAX_ID else None
    if match is None:
        raise NotFound(f"there is no match {match_id}")
    return match


async def lock_match(db: AsyncSession, match_id: int) -> Match:
    """The match, read under its row's write lock: the first lock of every change to a match.

    One lock order for everything that changes a match, so that two changes at once queue
    instead of each holding what the other waits for (a draw accepted while the other player
    resigned deadlocked, issue 19): the match row first, then its control row and its seats,
    then what hangs off them (ratings, notifications). The move path's single statement starts
    with the match row too. SQLite has no row locks: a write that changes nothing takes the
    database's write lock at once, which the other writer then waits for (its busy timeout).
    """
    if not 1 <= match_id <= MAX_ID:
        raise NotFound(f"there is no match {match_id}")
    match = await lock_row(db, Match, match_id, Match.version)
    if match is None:
        raise NotFound(f"there is no match {match_id}")
    return match


async def lock_row(db: AsyncSession, model: type[_Row], ident: int, column: Any) -> _Row | None:
    """The row of ``model`` with id ``ident`` read under its write lock, held until the session
    ends (a refusal from here on releases it: ``use_case``). SQLite has no row locks: a write of
    ``column`` to itself takes the database's write lock at once instead."""
    if db.get_bind().dialect.name == "sqlite":
        await db.execute(
            update(model)
            .where(model.id == ident)  # type: ignore[attr-defined]
            .values({column: column})
            .execution_options(synchronize_session=False)
        )
    found = await db.get(model, ident, populate_existing=True, with_for_update=True)
    hold_lock(db)
    return found


async def load_seats(db: AsyncSession, match_ids: Iterable[int]) -> dict[int, list[MatchSeat]]:
    ids = list(set(match_ids))
    by_match: dict[int, list[MatchSeat]] = {i: [] for i in ids}
    if ids:
        rows = await db.scalars(
            select(MatchSeat)
            .where(MatchSeat.match_id.in_(ids))
            .order_by(MatchSeat.match_id, MatchSeat.seat)
            .execution_options(populate_existing=True)
        )
        for row in rows:
            by_match[row.match_id].append(row)
    return by_match


async def load_seats_named(db: AsyncSession, match_id: int) -> tuple[list[MatchSeat], dict[int, str]]:
    """One match's seats in order and the names of their occupants, in ONE query.

    The occupant is the seated user, else the user the seat is reserved for: the names
    ``seat_outs`` shows (``load_seats`` and ``user_names`` in one round trip).
    """
    occupant = func.coalesce(MatchSeat.user_id, MatchSeat.reserved_for)
    rows = await db.execute(
        select(MatchSeat, User.id, User.name)
        .outerjoin(User, User.id == occupant)
        .where(MatchSeat.match_id == match_id)
        .order_by(MatchSeat.seat)
        .execution_options(populate_existing=True)
    )
    seats: list[MatchSeat] = []
    names: dict[int, str] = {}
    for seat, user_id, name in rows.tuples():
        seats.append(seat)
        if user_id is not None:
            names[user_id] = name
    return seats, names


def seated_match_query(match_id: int, *columns: Any) -> Any:
    """``SELECT match, [columns], seat, occupant id, occupant name``: one row per seat, in order.

    The match with its seats and their occupants' names in ONE round trip (``split_seated``
    splits the rows); ``columns`` may add outer-joined entities (the caller joins them).
    """
    occupant = func.coalesce(MatchSeat.user_id, MatchSeat.reserved_for)
    return (
        select(Match, *columns, MatchSeat, User.id, User.name)
        .outerjoin(MatchSeat, MatchSeat.match_id == Match.id)
        .outerjoin(User, User.id == occupant)
        .where(Match.id == match_id)
        .order_by(MatchSeat.seat)
        .execution_options(populate_existing=True)
    )


def split_seated(rows: Sequence[Any], extra: int = 0) -> tuple[Any, ...]:
    """``seated_match_query``'s rows as (match, *extra columns, seats, names); NotFound if none."""
    if not rows:
        raise NotFound("there is no such match")
    first = rows[0]
    seats: list[MatchSeat] = []
    names: dict[int, str] = {}
    for row in rows:
        seat, user_id, name = row[1 + extra], row[2 + extra], row[3 + extra]
        if seat is not None:
            seats.append(seat)
        if user_id is not None:
            names[user_id] = name
    return (first[0], *first[1 : 1 + extra], seats, names)


async def load_seated_match(db: AsyncSession, match_id: int) -> tuple[Match, list[MatchSeat], dict[int, str]]:
    """``load_match`` and ``load_seats_named`` in one query."""
    if not 1 <= match_id <= MAX_ID:
        raise NotFound(f"there is no match {match_id}")
    rows = (await db.execute(seated_match_query(match_id))).all()
    if not rows:
        raise NotFound(f"there is no match {match_id}")
    match, seats, names = split_seated(rows)
    return match, seats, names


async def user_names(db: AsyncSession, seats: Iterable[MatchSeat]) -> dict[int, str]:
    ids = {i for s in seats for i in (s.user_id, s.reserved_for) if i is not None}
    if not ids:
        return {}
    rows = await db.execute(select(User.id, User.name).where(User.id.in_(ids)))
    return {user_id: name for user_id, name in rows.tuples()}


def seat_of(seats: Sequence[MatchSeat], user_id: int | None) -> int | None:
    """The seat ``user_id`` sits in, or None."""
    if user_id is None:
        return None
    return next((s.seat for s in seats if s.user_id == user_id), None)


def is_member(seats: Sequence[MatchSeat], user_id: int | None) -> bool:
    """Seated or invited (a reserved seat)."""
    return user_id is not None and any(user_id in (s.user_id, s.reserved_for) for s in seats)


async def bump_version(
    db: AsyncSession, match: Match, seen: int, *, pending_only: bool = False, **values: Any
) -> bool:
    """``UPDATE matches SET ..., version = <next> WHERE id = :id AND version = :seen``.

    False when another transaction changed the match first. On success the loaded ``match``
    shows the new values without being marked dirty. ``pending_only`` marks a change only
    the acting seat may notice (a pending decision, an undo): ``version`` + 1. Any other
    change moves ``committed_version`` on by one and ``version`` to its span; one that keeps
    the pending decisions (a draw offer, a vote) keeps their count in ``version``.
    """
    if pending_only:
        if seen % VERSION_SPAN == VERSION_SPAN - 1:
            raise InvalidInput("too many decisions and undos in one turn: confirm or undo first")
        version = seen + 1
    else:
        committed = match.committed_version + 1
        values["committed_version"] = committed
        version = public_version(committed) + (0 if "pending" in values else seen % VERSION_SPAN)
    result = await db.execute(
        update(Match)
        .where(Match.id == match.id, Match.version == seen)
        .values(version=version, **values)
        .execution_options(synchronize_session=False)
    )
    if cast(Any, result).rowcount != 1:
        return False
    for key, value in {**values, "version": version}.items():
        set_committed_value(match, key, value)
    return True


def has_control_characters(text: str, allowed: str = "") -> bool:
    """True when ``text`` holds control characters (NUL, escapes) other than ``allowed``, or
    lone surrogates (valid in JSON, not in UTF-8).

    PostgreSQL refuses NUL in text, and no name, token or message needs any of them.
    """
    return any(
        ((ord(c) < 32 or 127 <= ord(c) < 160) and c not in allowed) or 0xD800 <= ord(c) <= 0xDFFF
        for c in text
    )


def is_token(text: str, max_length: int = 64) -> bool:
    """A URL-safe token (request ids, invitation tokens): ASCII letters, digits, '-', '_'."""
    return 0 < len(text) <= max_length and all(c.isascii() and (c.isalnum() or c in "-_") for c in text)


def game_title(slug: str, locale: str = "en") -> str:
    try:
        title = get_game(slug).info.title
    except UnknownGame:
        return slug
    return title.get(locale) or title.get("en") or slug


def seat_outs(seats: Sequence[MatchSeat], names: Mapping[int, str]) -> list[SeatOut]:
    return [_seat_out(s, names) for s in seats]


def _seat_out(seat: MatchSeat, names: Mapping[int, str]) -> SeatOut:
    occupant = seat.user_id if seat.user_id is not None else seat.reserved_for
    return SeatOut(
        seat=seat.seat,
        user_id=seat.user_id,
        name=names.get(occupant) if occupant is not None else None,
        score=seat.score,
        rank=seat.rank,
        reserved=seat.user_id is None and seat.reserved_for is not None,
    )


def summary(
    match: Match, seats: Sequence[MatchSeat], names: Mapping[int, str], viewer_id: int | None
) -> MatchSummary:
    viewer_seat = seat_of(seats, viewer_id)
    your_turn = match.status == "active" and viewer_seat is not None and viewer_seat in match.to_act
    return MatchSummary(
        id=match.id,
        game=match.game,
        game_title=game_title(match.game),
        status=cast(MatchStatusName, match.status),
        players=match.players,
        seats=seat_outs(seats, names),
        created_by=match.created_by,
        your_turn=your_turn,
        to_act=list(match.to_act) if match.status == "active" else [],
        waiting_since=match.turn_started_at if match.status == "active" else None,
        invite_token=match.invite_token if is_member(seats, viewer_id) else None,
        options=dict(match.options),
        fixed_order=match.fixed_order,
        created_at=match.created_at,
        updated_at=match.updated_at,
    )
