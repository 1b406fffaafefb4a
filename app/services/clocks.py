"""Time controls: days per move, vacation days, and the background task that enforces them.

A match has no clock (friends' games) or 1-14 days per move. When the seats to act run out
of time, their users' vacation days (a small bank per user and calendar year) are spent first,
one day at a time; then the match's policy applies (``TimeoutPolicy``): the game's
``timeout_move`` plays for the late seat, a bot takes the seat over until its owner takes it
back (``stand_ins``), the others may vote to end the match, or it is aborted. A match whose
late seats have stalled ``STALL_DAYS`` is aborted whatever the policy (Yucata removes matches
idle for about 30 days). Resigned seats are played the same way.

``tick`` checks every match once. It runs in every worker; on PostgreSQL an advisory lock lets
one worker at a time do the round, and every change is a versioned write of the match, so a
timeout is applied exactly once even without the lock (SQLite, or a lock lost mid-round).
Tests call ``tick(now=...)`` with a fake clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import exists, select, text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.db.async_play import MatchControl, RatingChange, TimeoutPolicy, UserSettings
from app.db.models import Match, MatchSeat, MatchStatus
from app.db.types import utcnow
from app.services import conclusions, mail, notify, ratings, stand_ins
from app.services._db import use_case
from app.services._rows import bump_version, load_seats, lock_match
from app.services.errors import Conflict, Forbidden, InvalidInput
from app.services.play_schemas import ClockOut
from app.services.tournaments import hooks as tournament_hooks

DAYS_MIN, DAYS_MAX = 1, 14
VACATION_DAYS_PER_YEAR = 14
STALL_DAYS = 30
RATE_WITHIN = timedelta(days=1)
"""A match finished this recently without ratings is rated by the round (a crash between the
finishing commit and its ratings' own transaction); unrated matches are looked at that long."""
TICK_SECONDS = 30.0
ADVISORY_LOCK_KEY = 0x44524143  # "DRAC": one clock round at a time across workers and hosts

log = logging.getLogger(__name__)


@dataclass
class TickReport:
    """What one round did (for tests and logs)."""

    locked_out: bool = False
    checked: int = 0
    played_for: list[tuple[int, int]] = field(default_factory=list)
    """(match id, seat) the server played for."""
    vacation: list[int] = field(default_factory=list)
    """Matches extended by a vacation day."""
    votes_opened: list[int] = field(default_factory=list)
    handed_to_bots: list[tuple[int, int]] = field(default_factory=list)
    """(match id, seat) a stand-in bot took over."""
    aborted: list[int] = field(default_factory=list)
    forfeited: list[int] = field(default_factory=list)
    tournaments: list[int] = field(default_factory=list)
    """Tournaments started, paired on or finished by the round."""
    """Tournament matches a late seat lost on time."""
    rated: list[int] = field(default_factory=list)
    """Finished matches the round rated (their ratings were lost to a crash)."""
    mails: int = 0


@use_case
async def set_time_control(
    db: AsyncSession, *, match_id: int, user_id: int, days_per_move: int | None, policy: str
) -> ClockOut:
    """Choose the clock of a match that has not started (its creator only).

    A change of the table like any other: versioned, under the match row's lock taken first
    (as a join takes it), so it lands before the last join starts the match or is refused after
    it, never silently in between; the seated players are told at once.
    """
    check_time_control(days_per_move, policy)
    match = await lock_match(db, match_id)
    if match.created_by != user_id:
        raise Forbidden("only the creator can choose the time control")
    if match.status != MatchStatus.OPEN:
        raise Conflict("the time control is chosen before the match starts")
    if not await bump_version(db, match, match.version, updated_at=utcnow()):
        await db.rollback()
        raise Conflict("the match changed at the same moment: please try again")
    control = await conclusions.control_of(db, match_id)
    control.days_per_move, control.policy = days_per_move, policy
    seats = (await load_seats(db, [match_id]))[match_id]
    await db.commit()
    await conclusions.publish(match, seats)
    return conclusions.clock_out(match, control)


def check_time_control(days_per_move: int | None, policy: str) -> None:
    """Refuse a time control out of range or an unknown timeout policy."""
    if days_per_move is not None and not DAYS_MIN <= days_per_move <= DAYS_MAX:
        raise InvalidInput(f"a time control has {DAYS_MIN} to {DAYS_MAX} days per move")
    if policy not in TimeoutPolicy.ALL:
        raise InvalidInput(f"the timeout policy is one of {', '.join(TimeoutPolicy.ALL)}")


def deadline(match: conclusions.Timed, control: conclusions.Controlled) -> datetime | None:
    """When the seats to act run out of time (None: no clock, or nobody waited for)."""
    if control.days_per_move is None or match.status != MatchStatus.ACTIVE or match.turn_started_at is None:
        return None
    extension = control.extension_days if control.extension_for == match.turn_started_at else 0
    return match.turn_started_at + timedelta(days=control.days_per_move + extension)


async def vacation_left(db: AsyncSession, user_id: int, now: datetime) -> int:
    prefs = await db.get(UserSettings, user_id)
    if prefs is None or prefs.vacation_year != now.year:
        return VACATION_DAYS_PER_YEAR
    return max(0, VACATION_DAYS_PER_YEAR - prefs.vacation_used)


async def tick(
    sessionmaker: async_sessionmaker[AsyncSession],
    *,
    now: datetime | None = None,
    settings: Settings | None = None,
) -> TickReport:
    """One round: every clocked or conceded running match, then pending mails."""
    now = now or utcnow()
    report = TickReport()
    async with sessionmaker() as lock_db:
        if not await _try_lock(lock_db):
            report.locked_out = True
            return report
        async with sessionmaker() as db:
            rows = await db.execute(
                select(
                    Match.id,
                    Match.to_act,
                    Match.turn_started_at,
                    MatchControl.days_per_move,
                    MatchControl.extension_days,
                    MatchControl.extension_for,
                    MatchControl.late_for,
                    MatchControl.resigned,
                )
                .join(MatchControl, MatchControl.match_id == Match.id)
                .where(Match.status == MatchStatus.ACTIVE)
                .order_by(Match.id)
            )
            ids = [row[0] for row in rows.tuples() if _is_due(*row[1:], now=now)]
        for match_id in ids:
            async with sessionmaker() as db:
                await _check_match(db, match_id, now, report)
            report.checked += 1
        await _rate_left_over(sessionmaker, now, report)
        report.tournaments = await tournament_hooks.sweep(sessionmaker, now)
        if settings is not None:
            report.mails = await mail.send_pending(sessionmaker, settings, now=now)
        await lock_db.rollback()  # releases the transaction-level advisory lock
    return report


async def run(
    sessionmaker: async_sessionmaker[AsyncSession], settings: Settings, *, interval: float = TICK_SECONDS
) -> None:
    """The background task of every worker: a round every ``interval`` seconds, forever."""
    while True:
        try:
            report = await tick(sessionmaker, settings=settings)
            if report.played_for or report.aborted or report.vacation or report.mails:
                log.info("clock round: %s", report)
        except (SQLAlchemyError, OSError) as error:
            log.warning("clock round failed (%s); retrying in %.0f s", error, interval)
        await asyncio.sleep(interval)


@contextlib.asynccontextmanager
async def running(
    sessionmaker: async_sessionmaker[AsyncSession], settings: Settings
) -> AsyncIterator[asyncio.Task[None]]:
    """Start ``run`` for an app's lifespan and stop it at the end."""
    task = asyncio.create_task(run(sessionmaker, settings), name="drachenhort-clocks")
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _rate_left_over(
    sessionmaker: async_sessionmaker[AsyncSession], now: datetime, report: TickReport
) -> None:
    """Rate recently finished matches that have no ratings (rating is idempotent, and a match
    that is not rated, e.g. one with a bot, stays so)."""
    async with sessionmaker() as db:
        left_over = select(Match.id).where(
            Match.status == MatchStatus.FINISHED,
            Match.finished_at >= now - RATE_WITHIN,
            ~exists().where(RatingChange.match_id == Match.id),
        )
        ids = list(await db.scalars(left_over))
    for match_id in ids:
        async with sessionmaker() as db:
            if await ratings.rate_finished(db, match_id=match_id):
                report.rated.append(match_id)


# --- one match ----------------------------------------------------------------------------


async def _check_match(db: AsyncSession, match_id: int, now: datetime, report: TickReport) -> None:
    match = await lock_match(db, match_id)  # the lock order of every change to a match
    if match.status != MatchStatus.ACTIVE:
        return
    seats = (await load_seats(db, [match_id]))[match_id]
    control = await conclusions.control_of(db, match_id)
    resigned = [s for s in match.to_act if s in control.resigned]
    if resigned:
        await _play_for(db, match, seats, control, resigned, report, now=now, mark=False)
        return
    due = deadline(match, control)
    if due is None or now < due:
        return
    assert match.turn_started_at is not None and control.days_per_move is not None
    if control.late_for == match.turn_started_at:
        # The vote policy already opened a vote for this waiting period.
        if now >= match.turn_started_at + timedelta(days=STALL_DAYS):
            await _abort(db, match, seats, control, "stalled", report, now)
        return
    # A seat a stand-in plays is the bot's to move (the bot sweep takes up a lost turn).
    late = [s for s in seats if s.seat in match.to_act and s.user_id is not None and s.stand_in is None]
    if not late:
        return
    spent = await _spend_vacation(db, match, control, late, now, due)
    if spent is not None:
        if spent:
            report.vacation.append(match_id)
        return
    if control.policy == TimeoutPolicy.FORFEIT:
        await _forfeit(db, match, seats, control, [s.seat for s in late], report, now)
    elif control.policy == TimeoutPolicy.TIMEOUT_MOVE:
        await _play_for(db, match, seats, control, [s.seat for s in late], report, now=now, mark=True)
    elif control.policy == TimeoutPolicy.BOT:
        await _hand_to_bots(db, match, seats, control, [s.seat for s in late], report)
    elif control.policy == TimeoutPolicy.ABORT:
        await _abort(db, match, seats, control, "timeout", report, now)
    else:
        await _open_vote(db, match, seats, control, [s.seat for s in late], report)


async def _spend_vacation(
    db: AsyncSession,
    match: Match,
    control: MatchControl,
    late: Sequence[MatchSeat],
    now: datetime,
    due: datetime,
) -> bool | None:
    """Extend the waiting period by whole days while every late user has vacation left.

    None when the policy applies now (the caller carries on in this transaction); False when
    another worker changed the match first.
    """
    needed = (now - due) // timedelta(days=1) + 1
    prefs = []
    for seat in late:
        assert seat.user_id is not None
        row = await db.get(UserSettings, seat.user_id, with_for_update=True)
        if row is None:
            row = UserSettings(user_id=seat.user_id, mail_opt_out=False, disabled=False)
            row.vacation_year, row.vacation_used = now.year, 0
            db.add(row)
        if row.vacation_year != now.year:
            row.vacation_year, row.vacation_used = now.year, 0
        prefs.append(row)
    if not prefs or any(VACATION_DAYS_PER_YEAR - p.vacation_used < needed for p in prefs):
        return None
    if not await bump_version(db, match, match.version):
        await db.rollback()
        return False
    for p in prefs:
        p.vacation_used += needed
    if control.extension_for != match.turn_started_at:
        control.extension_for, control.extension_days = match.turn_started_at, 0
    control.extension_days += needed
    await db.commit()
    return True


async def _play_for(
    db: AsyncSession,
    match: Match,
    seats: Sequence[MatchSeat],
    control: MatchControl,
    to_play: Sequence[int],
    report: TickReport,
    *,
    now: datetime,
    mark: bool,
) -> None:
    played = []
    for seat in to_play:
        if match.status != MatchStatus.ACTIVE or seat not in match.to_act:
            continue
        if not await conclusions.play_for(db, match, seats, seat, now=now):
            await db.rollback()
            return  # another worker (or the player) was faster
        played.append(seat)
    if not played:
        return
    if mark:
        control.timed_out = sorted({*control.timed_out, *played})
    users = await conclusions.after_commit(db, match, seats)
    await db.commit()
    report.played_for += [(match.id, s) for s in played]
    await conclusions.publish(match, seats, users)


async def _forfeit(
    db: AsyncSession,
    match: Match,
    seats: Sequence[MatchSeat],
    control: MatchControl,
    late: Sequence[int],
    report: TickReport,
    now: datetime,
) -> None:
    """A tournament match: the late seats lose (last), the others share first place; rated."""
    ranks = [len(seats) - len(late) + 1 if s.seat in late else 1 for s in seats]
    control.timed_out = sorted({*control.timed_out, *late})
    if not await conclusions.finish(db, match, seats, control, ranks=ranks, conclusion="timeout", now=now):
        await db.rollback()
        return
    await db.commit()
    report.forfeited.append(match.id)
    await conclusions.publish(match, seats)


async def _hand_to_bots(
    db: AsyncSession,
    match: Match,
    seats: Sequence[MatchSeat],
    control: MatchControl,
    late: Sequence[int],
    report: TickReport,
) -> None:
    if not await stand_ins.hand_to_bots(db, match, seats, control, late):
        await db.rollback()
        return
    await db.commit()
    report.handed_to_bots += [(match.id, s) for s in late]
    await stand_ins.after_handing(match, seats)


async def _abort(
    db: AsyncSession,
    match: Match,
    seats: Sequence[MatchSeat],
    control: MatchControl,
    conclusion: str,
    report: TickReport,
    now: datetime,
) -> None:
    if not await conclusions.abort(db, match, seats, control, conclusion=conclusion, now=now):
        await db.rollback()
        return
    await db.commit()
    report.aborted.append(match.id)
    await conclusions.publish(match, seats)


async def _open_vote(
    db: AsyncSession,
    match: Match,
    seats: Sequence[MatchSeat],
    control: MatchControl,
    late: Sequence[int],
    report: TickReport,
) -> None:
    if not await bump_version(db, match, match.version):
        await db.rollback()
        return
    control.late, control.late_for, control.votes = list(late), match.turn_started_at, []
    voters = [s.user_id for s in seats if s.seat not in late and s.user_id is not None]
    users = await notify.record(db, voters, match.id, notify.VOTE_OPEN, match.turn_started_at or utcnow())
    await db.commit()
    report.votes_opened.append(match.id)
    await conclusions.publish(match, seats, users)


def _is_due(
    to_act: Sequence[int],
    started: datetime | None,
    days: int | None,
    extension_days: int,
    extension_for: datetime | None,
    late_for: datetime | None,
    resigned: Sequence[int],
    *,
    now: datetime,
) -> bool:
    """Whether a running match needs a look: a resigned seat to act, or a deadline passed.

    (A cheap pre-check on one row per match; ``_check_match`` decides with the match loaded.)
    """
    if any(seat in resigned for seat in to_act):
        return True
    if days is None or started is None:
        return False
    if late_for == started:
        return now >= started + timedelta(days=STALL_DAYS)
    extension = extension_days if extension_for == started else 0
    return now >= started + timedelta(days=days + extension)


async def _try_lock(db: AsyncSession) -> bool:
    """PostgreSQL: a transaction-level advisory lock (one round at a time); SQLite: always."""
    bind = db.get_bind()
    if bind.dialect.name != "postgresql":
        return True
    return bool(await db.scalar(text("SELECT pg_try_advisory_xact_lock(:key)"), {"key": ADVISORY_LOCK_KEY}))
