"""Notifications: your turn, a match ended, an invitation, a draw offered, a vote opened.

Rows are written inside the transaction that caused them (``record_*``), at most one per
(user, match, kind, waiting period), so a turn produces one notification and at most one
mail however many moves it takes. Mails go out later from the background task
(``app.services.mail.send_pending``); the live badge is nudged after the commit by the caller.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import case, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.async_play import Notification, UserSettings
from app.db.models import Match, MatchSeat, MatchStatus, User
from app.db.store import Store, records, store_of
from app.db.types import utcnow
from app.services import live, results
from app.services._db import use_case
from app.services._rows import game_title, load_seats, user_names
from app.services.errors import InvalidInput
from app.services.play_schemas import BadgeOut, NotificationOut
from app.services.tournaments import notices

YOUR_TURN = records.YOUR_TURN
MATCH_ENDED = records.MATCH_ENDED
INVITED = "invited"
DRAW_OFFERED = "draw_offered"
VOTE_OPEN = "vote_open"
MAILED_KINDS = frozenset({YOUR_TURN, MATCH_ENDED, INVITED})
LIST_LIMIT = 50
MAX_PAGE = 10_000


@dataclass(frozen=True, slots=True)
class NotificationPage:
    """One page of a user's notification lines: ``more``, an older page exists."""

    items: list[NotificationOut]
    page: int
    more: bool


async def record_turn(db: AsyncSession, match: Match, seats: Sequence[MatchSeat]) -> set[int]:
    """After a committed change: your-turn rows for the seats to act, or match-ended rows.

    Returns the users notified (to nudge after the commit).
    """
    if match.status == MatchStatus.ACTIVE and match.turn_started_at is not None:
        users = [s.user_id for s in seats if s.seat in match.to_act and s.user_id is not None]
        return await record(db, users, match.id, YOUR_TURN, match.turn_started_at)
    if match.status in (MatchStatus.FINISHED, MatchStatus.ABORTED):
        users = [s.user_id for s in seats if s.user_id is not None]
        return await record(db, users, match.id, MATCH_ENDED, match.finished_at or utcnow())
    return set()


async def record(
    db: AsyncSession, user_ids: Iterable[int], match_id: int, kind: str, period: datetime
) -> set[int]:
    """Add one notification per user unless that (user, match, kind, period) has one."""
    wanted = set(user_ids)
    if not wanted:
        return set()
    have = set(
        await db.scalars(
            select(Notification.user_id).where(
                Notification.user_id.in_(wanted),
                Notification.match_id == match_id,
                Notification.kind == kind,
                Notification.period == period,
            )
        )
    )
    new = wanted - have
    await record_new(db, ((u, match_id, kind, period) for u in sorted(new)))
    return new


async def record_new(
    db: AsyncSession,
    notices: Iterable[tuple[int, int, str, datetime]],
    mailed: Collection[str] = MAILED_KINDS,
) -> set[int]:
    """Notifications ``(user, match, kind, period)`` that do not exist yet (``record`` checked,
    or a match made in this transaction, a tournament's end): one lookup of who gets mail (the
    ``mailed`` kinds), one batched insert. The users."""
    rows = list(notices)
    if not rows:
        return set()
    users = {u for u, _, _, _ in rows}
    mailable = await _mailable(db, users) if any(kind in mailed for _, _, kind, _ in rows) else set()
    now = utcnow()
    db.add_all(
        Notification(
            user_id=u,
            match_id=match_id,
            kind=kind,
            period=period,
            created_at=now,
            mail_state="pending" if u in mailable and kind in mailed else "none",
        )
        for u, match_id, kind, period in rows
    )
    await db.flush()
    return users


async def clear_turn(db: AsyncSession, user_id: int, match_id: int) -> None:
    """The user has played in the match: its unread your-turn notifications are read (one UPDATE).

    Inside the move path's transaction, before the next your-turn rows are recorded.
    """
    await db.execute(
        update(Notification)
        .where(
            Notification.user_id == user_id,
            Notification.match_id == match_id,
            Notification.kind == YOUR_TURN,
            Notification.read_at.is_(None),
        )
        .values(read_at=utcnow())
        .execution_options(synchronize_session=False)
    )


async def clear_invitation(db: AsyncSession, user_id: int, match_id: int) -> None:
    """The user has answered the invitation to the match (joined or declined): it is read, so
    the match's line is unread again only for what comes after (one UPDATE, uncommitted)."""
    await db.execute(
        update(Notification)
        .where(
            Notification.user_id == user_id,
            Notification.match_id == match_id,
            Notification.kind == INVITED,
            Notification.read_at.is_(None),
        )
        .values(read_at=utcnow())
        .execution_options(synchronize_session=False)
    )


async def nudge(user_ids: Iterable[int]) -> None:
    """Tell the users' open pages (the badge) that something changed; after the commit."""
    for user_id in sorted(set(user_ids)):
        await live.publish_user(user_id)


@use_case
async def badge(db: AsyncSession, *, user_id: int) -> BadgeOut:
    """How many running matches wait for the user, and how many notifications are unread."""
    return await badge_in(store_of(db), user_id=user_id)


async def badge_in(store: Store, *, user_id: int) -> BadgeOut:
    """``badge`` on the move path's store, with no session: a live page's stream asks it
    whenever the user's turn or notifications change, three times a turn at a 3-seat table
    (through a session it was ~1 ms each, a third of a turn's work: ``bench/appcpu.py --pages``)."""
    your_turn, unread = await store.badge(user_id)
    return BadgeOut(your_turn=your_turn, unread=unread)


@use_case
async def list_notifications(
    db: AsyncSession, *, user_id: int, locale: str = "en", page: int = 1
) -> NotificationPage:
    """One line per match, the newest first: the match's newest notification; ``LIST_LIMIT``
    lines a page (``page`` counts from 1).

    A line is unread while any notification of its match is; a match that has ended says
    who won and how.
    """
    if not 1 <= page <= MAX_PAGE:
        raise InvalidInput(f"a page is a number from 1 to {MAX_PAGE}")
    unread = func.sum(case((Notification.read_at.is_(None), 1), else_=0))
    newest = (
        select(func.max(Notification.id).label("id"), unread.label("unread"))
        .where(Notification.user_id == user_id)
        .group_by(Notification.match_id)
        .subquery()
    )
    rows = (
        await db.execute(
            select(Notification, newest.c.unread, Match)
            .join(newest, newest.c.id == Notification.id)
            .join(Match, Match.id == Notification.match_id)
            .order_by(Notification.id.desc())
            .offset((page - 1) * LIST_LIMIT)
            .limit(LIST_LIMIT + 1)
        )
    ).tuples()
    lines = list(rows)
    more, lines = len(lines) > LIST_LIMIT, lines[:LIST_LIMIT]
    ended = [m for n, _, m in lines if n.kind == MATCH_ENDED]
    seats = await load_seats(db, [m.id for m in ended])
    names = await user_names(db, [s for rows in seats.values() for s in rows])
    hosts = {m.created_by for n, _, m in lines if n.kind == INVITED}
    if hosts:
        found = await db.execute(select(User.id, User.name).where(User.id.in_(hosts)))
        names.update({user_id: name for user_id, name in found.tuples()})
    told: dict[int, Any] = {}
    tournament_lines = [m.id for n, _, m in lines if n.kind.startswith("t_")]
    if tournament_lines:
        told = await notices.describe(db, user_id, tournament_lines)
    items = [
        NotificationOut(
            id=n.id,
            kind=n.kind,
            match_id=n.match_id,
            game_title=game_title(match.game, locale),
            created_at=n.created_at,
            read=not unread_count,
            **(_ending(match, seats[match.id], names) if n.kind == MATCH_ENDED else {}),
            invited_by=names.get(match.created_by) if n.kind == INVITED else None,
            **(_tournament(told[match.id]) if n.kind.startswith("t_") and match.id in told else {}),
        )
        for n, unread_count, match in lines
    ]
    return NotificationPage(items, page, more)


@use_case
async def mark_read(db: AsyncSession, *, user_id: int, match_id: int | None = None) -> int:
    """Mark the user's notifications read (those of one match, or all); how many changed."""
    query = update(Notification).where(Notification.user_id == user_id, Notification.read_at.is_(None))
    if match_id is not None:
        query = query.where(Notification.match_id == match_id)
    result = await db.execute(query.values(read_at=utcnow()))
    await db.commit()
    changed: int = getattr(result, "rowcount", 0)
    if changed:
        await live.publish_user(user_id)
    return changed


def _tournament(notice: Any) -> dict[str, Any]:
    return {
        "tournament_id": notice.tournament_id,
        "tournament_name": notice.name,
        "round": notice.round,
        "opponents": notice.opponents,
        "podium": notice.podium,
    }


def _ending(match: Match, seats: Sequence[MatchSeat], names: Mapping[int, str]) -> dict[str, Any]:
    """Who won a match and how it ended, for its match-ended line."""
    if match.status == MatchStatus.ABORTED:
        return {"conclusion": "aborted"}
    outcome = results.outcome_out(match.result)
    if outcome is None:
        return {}

    def name(seat: int) -> str:
        user = next((s.user_id for s in seats if s.seat == seat), None)
        return names.get(user, "") if user is not None else ""

    return {
        "winners": [name(seat) for seat, rank in enumerate(outcome.ranks) if rank == 1],
        "resigned": [name(seat) for seat in outcome.resigned],
        "conclusion": outcome.conclusion,
    }


async def _mailable(db: AsyncSession, user_ids: set[int]) -> set[int]:
    rows = await db.scalars(
        select(UserSettings.user_id).where(
            UserSettings.user_id.in_(user_ids),
            UserSettings.email.is_not(None),
            UserSettings.mail_opt_out.is_(False),
            UserSettings.disabled.is_(False),
        )
    )
    return set(rows)
