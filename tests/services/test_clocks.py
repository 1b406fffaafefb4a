"""Clocks: days per move, vacation days, the three timeout policies, stalls, exactly-once rounds.

A fake clock throughout: ``clocks.tick(now=...)``; nothing sleeps.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.async_play import Notification, UserSettings
from app.db.models import MatchStatus
from app.db.session import dispose, make_engine, make_sessionmaker
from app.db.store import store_of
from app.db.types import utcnow
from app.services import clocks, conclusions, live, lobby
from app.services.errors import Conflict, Forbidden, InvalidInput
from app.services.live import Nudge
from app.services.play import loaded as kept
from app.services.play_schemas import ClockOut
from tests.conftest import MakeUser
from tests.services.async_support import (
    control,
    days,
    load,
    logged_seats,
    start_clocked_match,
    turn_start,
)
from tests.support.db import start_toy_match


async def _use_up_vacation(db: AsyncSession, *user_ids: int) -> None:
    for user_id in user_ids:
        row = await db.get(UserSettings, user_id)
        if row is None:
            row = UserSettings(user_id=user_id, mail_opt_out=False, disabled=False)
            db.add(row)
        row.vacation_year, row.vacation_used = utcnow().year, clocks.VACATION_DAYS_PER_YEAR
    await db.commit()


async def test_time_control_is_chosen_by_the_creator_before_the_start(
    db: AsyncSession, make_user: MakeUser
) -> None:
    alice, bob = await make_user(), await make_user()
    created = await lobby.create_match(
        db, creator_id=alice.id, game="toy", seats=2, options={}, invite=[bob.name], fixed_order=True
    )
    with pytest.raises(InvalidInput, match="1 to 14 days"):
        await clocks.set_time_control(
            db, match_id=created.id, user_id=alice.id, days_per_move=15, policy="vote"
        )
    with pytest.raises(InvalidInput, match="timeout policy"):
        await clocks.set_time_control(db, match_id=created.id, user_id=alice.id, days_per_move=3, policy="x")
    with pytest.raises(Forbidden, match="only the creator"):
        await clocks.set_time_control(db, match_id=created.id, user_id=bob.id, days_per_move=3, policy="vote")
    clock = await clocks.set_time_control(
        db, match_id=created.id, user_id=alice.id, days_per_move=3, policy="vote"
    )
    assert (clock.days_per_move, clock.policy, clock.deadline) == (3, "vote", None)
    await lobby.join_match(db, match_id=created.id, user_id=bob.id, invite_token=None)
    started = await turn_start(db, created.id)
    clock = await conclusions.get_clock(db, match_id=created.id)
    assert clock.deadline == started + days(3)
    with pytest.raises(Conflict, match="before the match starts"):
        await clocks.set_time_control(
            db, match_id=created.id, user_id=alice.id, days_per_move=1, policy="vote"
        )


async def test_a_match_without_clock_never_times_out(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    report = await clocks.tick(sessionmaker, now=utcnow() + days(400))
    assert match_id not in [m for m, _ in report.played_for] + report.aborted
    assert await logged_seats(db, match_id) == []


async def test_vacation_days_are_spent_one_day_at_a_time_before_the_policy(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_clocked_match(db, [alice, bob], days=2)
    started = await turn_start(db, match_id)

    report = await clocks.tick(sessionmaker, now=started + days(1.9))
    assert match_id not in report.vacation and await logged_seats(db, match_id) == []

    report = await clocks.tick(sessionmaker, now=started + days(2) + days(0.01))
    assert match_id in report.vacation
    assert await clocks.vacation_left(db, alice.id, utcnow()) == clocks.VACATION_DAYS_PER_YEAR - 1
    assert await clocks.vacation_left(db, bob.id, utcnow()) == clocks.VACATION_DAYS_PER_YEAR
    clock = await conclusions.get_clock(db, match_id=match_id)
    assert clock.deadline == started + days(3)
    # The same moment again: the day is spent already, nothing more happens.
    report = await clocks.tick(sessionmaker, now=started + days(2) + days(0.02))
    assert match_id not in report.vacation
    assert await logged_seats(db, match_id) == []


async def test_timeout_move_plays_for_the_late_seat_once_and_marks_it(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_clocked_match(db, [alice, bob], days=1)
    await _use_up_vacation(db, alice.id)
    now = await turn_start(db, match_id) + days(1.5)

    report = await clocks.tick(sessionmaker, now=now)
    assert (match_id, 0) in report.played_for
    seats = await logged_seats(db, match_id)
    assert seats and set(seats) == {0}  # the toy's timeout move: play a card, ..., confirm
    match = await load(db, match_id)
    assert match.to_act == [1] and match.turn_started_at == now
    assert (await control(db, match_id)).timed_out == [0]
    clock = await conclusions.get_clock(db, match_id=match_id)
    assert clock.timed_out == [0] and clock.deadline == now + days(1)

    again = await clocks.tick(sessionmaker, now=now)
    assert not [p for p in again.played_for if p[0] == match_id]
    assert await logged_seats(db, match_id) == seats


async def test_two_workers_apply_a_timeout_exactly_once(
    make_user: MakeUser, db: AsyncSession, database_url: str
) -> None:
    """Two workers, each with its own engine (its own connections), run the same round."""
    alice, bob = await make_user(), await make_user()
    match_id = await start_clocked_match(db, [alice, bob], days=1)
    await _use_up_vacation(db, alice.id)
    now = await turn_start(db, match_id) + days(2)
    engines = [make_engine(database_url), make_engine(database_url)]
    try:
        makers = [make_sessionmaker(e) for e in engines]
        reports = await asyncio.gather(*(clocks.tick(m, now=now) for m in makers))
        played = [p for r in reports for p in r.played_for if p[0] == match_id]
        assert played == [(match_id, 0)]
        # And without the advisory lock: the versioned write alone lets one of them win.
        await _use_up_vacation(db, bob.id)
        later = now + days(2)
        results = await asyncio.gather(*(_check_once(m, match_id, later) for m in makers))
        assert sorted(len(r.played_for) for r in results) == [0, 1]
    finally:
        for engine in engines:
            await dispose(engine)
    seats = await logged_seats(db, match_id)
    assert seats == sorted(seats)  # seat 0's turn once, then seat 1's once
    assert len(set(seats)) == 2
    assert (await control(db, match_id)).timed_out == [0, 1]


async def _check_once(
    maker: async_sessionmaker[AsyncSession], match_id: int, now: object
) -> clocks.TickReport:
    report = clocks.TickReport()
    async with maker() as db:
        await clocks._check_match(db, match_id, now, report)  # type: ignore[arg-type]
    return report


async def test_abort_policy_aborts_the_match_unrated(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_clocked_match(db, [alice, bob], days=3, policy="abort")
    await _use_up_vacation(db, alice.id)
    report = await clocks.tick(sessionmaker, now=await turn_start(db, match_id) + days(3.1))
    assert match_id in report.aborted
    match = await load(db, match_id)
    assert match.status == MatchStatus.ABORTED and match.result is None
    assert (await control(db, match_id)).conclusion == "timeout"
    ended = await db.scalar(
        select(func.count()).where(Notification.match_id == match_id, Notification.kind == "match_ended")
    )
    assert ended == 2


async def test_vote_policy_lets_the_others_end_the_match(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    alice, bob, carol = await make_user(), await make_user(), await make_user()
    match_id = await start_clocked_match(db, [alice, bob, carol], days=1, policy="vote")
    await _use_up_vacation(db, alice.id)
    with pytest.raises(Conflict, match="nobody is out of time"):
        await conclusions.vote_end(db, match_id=match_id, user_id=bob.id)
    report = await clocks.tick(sessionmaker, now=await turn_start(db, match_id) + days(1.2))
    assert match_id in report.votes_opened
    clock = await conclusions.get_clock(db, match_id=match_id)
    assert clock.late == [0] and clock.votes == []
    opened = await db.scalars(
        select(Notification.user_id).where(
            Notification.match_id == match_id, Notification.kind == "vote_open"
        )
    )
    assert sorted(opened) == sorted([bob.id, carol.id])
    with pytest.raises(Forbidden, match="you are the one out of time"):
        await conclusions.vote_end(db, match_id=match_id, user_id=alice.id)
    clock = await conclusions.vote_end(db, match_id=match_id, user_id=bob.id)
    assert clock.votes == [1] and (await load(db, match_id)).status == MatchStatus.ACTIVE
    await conclusions.vote_end(db, match_id=match_id, user_id=carol.id)
    match = await load(db, match_id)
    assert match.status == MatchStatus.FINISHED
    assert match.result == {
        "scores": [0.0, 0.0, 0.0],
        "ranks": [3, 1, 1],
        "conclusion": "vote",
        "resigned": [],
    }
    assert (await control(db, match_id)).conclusion == "vote"


async def test_an_unanswered_vote_aborts_the_match_after_a_long_stall(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_clocked_match(db, [alice, bob], days=2, policy="vote")
    await _use_up_vacation(db, alice.id)
    started = await turn_start(db, match_id)
    assert match_id in (await clocks.tick(sessionmaker, now=started + days(3))).votes_opened
    assert match_id not in (await clocks.tick(sessionmaker, now=started + days(29))).aborted
    assert match_id in (await clocks.tick(sessionmaker, now=started + days(clocks.STALL_DAYS))).aborted
    assert (await control(db, match_id)).conclusion == "stalled"


async def test_a_resigned_seat_is_played_by_the_background_round(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    alice, bob, carol, dave = [await make_user() for _ in range(4)]
    match_id = await start_clocked_match(db, [alice, bob, carol, dave], days=None)
    await conclusions.resign(db, match_id=match_id, user_id=bob.id)  # not bob's turn yet
    assert await logged_seats(db, match_id) == []
    await conclusions.resign(db, match_id=match_id, user_id=alice.id)  # alice's turn: played at once
    assert set(await logged_seats(db, match_id)) == {0}
    assert (await load(db, match_id)).to_act == [1]
    report = await clocks.tick(sessionmaker)
    assert (match_id, 1) in report.played_for
    assert (await load(db, match_id)).to_act == [2]
    assert set(await logged_seats(db, match_id)) == {0, 1}
    clock = await conclusions.get_clock(db, match_id=match_id)
    assert clock.resigned == [1, 0] and clock.timed_out == []


async def test_a_clock_change_of_an_open_table_is_versioned_and_told_to_the_table(
    db: AsyncSession, make_user: MakeUser
) -> None:
    """Issue 19: the clock changed without a version step, unannounced (even racing the last
    join into a started match). It is a change of the table like any other now."""
    alice, bob = await make_user(), await make_user()
    created = await lobby.create_match(
        db, creator_id=alice.id, game="toy", seats=3, options={}, invite=[bob.name], fixed_order=True
    )
    await lobby.join_match(db, match_id=created.id, user_id=bob.id, invite_token=None)
    before = (await load(db, created.id)).committed_version
    async with live.subscribe_match(created.id) as news, live.subscribe_user(bob.id) as bobs:
        await clocks.set_time_control(
            db, match_id=created.id, user_id=alice.id, days_per_move=3, policy="vote"
        )
        after = (await load(db, created.id)).committed_version
        assert after == before + 1, "the change moved the table's version"
        assert await news.get(timeout=1) == Nudge("match", created.id, after)
        assert await bobs.get(timeout=1) == Nudge("user", bob.id)
    assert (await control(db, created.id)).days_per_move == 3


async def test_a_live_push_shows_the_clock_the_match_page_shows(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    """``conclusions.clock_of``: a push reads the time control on the move path's store and takes
    the rest from the version it shows; the clock is the page's (``get_clock``) through a vacation
    day, a late seat and a vote."""
    alice, bob, carol = await make_user(), await make_user(), await make_user()
    match_id = await start_clocked_match(db, [alice, bob, carol], days=1, policy="vote")
    await db.commit()
    started = await turn_start(db, match_id)

    async def pushed() -> ClockOut:
        shown = await conclusions.clock_of(store_of(db), match=(await kept.load(db, match_id)).row)
        assert shown == await conclusions.get_clock(db, match_id=match_id)
        return shown

    assert (await pushed()).deadline == started + days(1)
    await clocks.tick(sessionmaker, now=started + days(1.1))  # one of alice's vacation days
    assert (await pushed()).deadline == started + days(2)
    await _use_up_vacation(db, alice.id)
    await clocks.tick(sessionmaker, now=started + days(2.2))
    assert (await pushed()).late == [0]
    await conclusions.vote_end(db, match_id=match_id, user_id=bob.id)
    await db.commit()
    clock = await pushed()
    assert clock.votes == [1] and clock.days_per_move == 1 and clock.policy == "vote"
    unclocked = await start_toy_match(db, [alice, bob])
    await db.commit()
    row = (await kept.load(db, unclocked)).row
    assert await conclusions.clock_of(store_of(db), match=row) == await conclusions.get_clock(
        db, match_id=unclocked
    )
