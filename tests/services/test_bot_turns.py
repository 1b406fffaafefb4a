"""Bots at the table (issue 14): they move through the same door as people, after the commit
that made it their turn, and a bot turn no process is playing is found again in the database."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.async_play import RatingChange
from app.db.matches import VERSION_SPAN
from app.db.models import LoggedMove, Match, MatchSeat, User
from app.services import accounts, bot_turns, clocks, lobby, play, stand_ins
from app.services.errors import BadCredentials, Conflict, InvalidInput
from app.services.schemas import UserOut
from tests.conftest import MakeUser
from tests.support.db import new_request_id


async def _bot_ids(db: AsyncSession, match_id: int) -> set[int]:
    rows = await db.execute(
        select(MatchSeat.user_id)
        .join(User, User.id == MatchSeat.user_id)
        .where(MatchSeat.match_id == match_id, User.bot_level.is_not(None))
    )
    return {user_id for (user_id,) in rows.tuples()}


async def _play_turn(db: AsyncSession, match_id: int, user: UserOut, chooser: random.Random) -> None:
    """The person's whole turn: legal moves until the turn passes on (or the match ends)."""
    for _ in range(50):
        view = await play.get_match(db, match_id=match_id, viewer_id=user.id, locale="en")
        if view.status != "active" or view.viewer_seat not in view.to_act:
            return
        if "confirm" in view.legal or not view.legal:
            await play.confirm_turn(
                db, match_id=match_id, user_id=user.id, expected_version=view.version,
                request_id=new_request_id(), locale="en",
            )  # fmt: skip
            continue
        await play.submit_move(
            db, match_id=match_id, user_id=user.id, move=chooser.choice(view.legal),
            expected_version=view.version, request_id=new_request_id(), locale="en",
        )  # fmt: skip
    raise AssertionError("the person's turn did not end")


async def test_a_person_plays_draco_against_two_bots_to_the_end(
    db: AsyncSession, sessionmaker: async_sessionmaker[AsyncSession], make_user: MakeUser
) -> None:
    alice = await make_user()
    chooser = random.Random(14)
    async with bot_turns.running(sessionmaker) as runner:
        await runner.load_bots()
        summary = await lobby.create_match(
            db,
            creator_id=alice.id,
            game="draco",
            seats=3,
            options={},
            invite=[],
            fixed_order=False,
            bots="easy",
        )
        assert summary.status == "active"  # "play against the computer" starts at once
        bots = await _bot_ids(db, summary.id)
        assert len(bots) == 2
        for _ in range(200):
            await runner.settle()  # the bots' turns, woken by the commit before
            view = await play.get_match(db, match_id=summary.id, viewer_id=alice.id, locale="en")
            if view.status != "active":
                break
            assert view.viewer_seat in view.to_act, "after the bots' turns it is the person's again"
            await _play_turn(db, summary.id, alice, chooser)
        else:
            raise AssertionError("the match did not end")
    assert view.status == "finished"
    seats = await db.execute(select(LoggedMove.seat).where(LoggedMove.match_id == summary.id))
    assert len({seat for (seat,) in seats.tuples()}) == 3, "all three seats moved"
    # A match with computer opponents rates nobody.
    rated = await db.scalar(select(func.count()).where(RatingChange.match_id == summary.id))
    assert rated == 0


async def test_a_bot_turn_nobody_plays_is_found_again_and_taken_once(
    db: AsyncSession, sessionmaker: async_sessionmaker[AsyncSession], make_user: MakeUser
) -> None:
    alice = await make_user()
    # No runner: the worker that should play the bot's turns has died.
    assert bot_turns.current() is None
    summary = await lobby.create_match(
        db,
        creator_id=alice.id,
        game="felsental",
        seats=2,
        options={},
        invite=[],
        fixed_order=True,
        bots="easy",
    )
    await _play_turn(db, summary.id, alice, random.Random(1))
    view = await play.get_match(db, match_id=summary.id, viewer_id=alice.id, locale="en")
    assert view.viewer_seat not in view.to_act  # the bot's turn waits
    before = await db.scalar(select(func.count()).where(LoggedMove.match_id == summary.id))

    # Two processes come up at once and both find the waiting bot turn in the database.
    first, second = bot_turns.BotRunner(sessionmaker), bot_turns.BotRunner(sessionmaker)
    for runner in (first, second):
        await runner.load_bots()
    # The match row is held by a write until both have looked: else the first runner's bot
    # may have moved before the second's query ran, and only one would have found the turn.
    async with sessionmaker() as holder, holder.begin():
        await holder.execute(update(Match).where(Match.id == summary.id).values(version=Match.version))
        woken = await asyncio.gather(first.sweep(stuck_only=False), second.sweep(stuck_only=False))
    assert all(summary.id in w for w in woken)
    await asyncio.gather(first.settle(), second.settle())

    view = await play.get_match(db, match_id=summary.id, viewer_id=alice.id, locale="en")
    assert view.viewer_seat in view.to_act, "the bot took its turn"
    moves = list(
        await db.scalars(
            select(LoggedMove.seq).where(LoggedMove.match_id == summary.id).order_by(LoggedMove.seq)
        )
    )
    assert moves == list(range(1, len(moves) + 1))
    assert len(moves) > before
    # Taken once: a third look finds nothing to do.
    assert await first.play(summary.id) == 0


async def test_the_creator_gives_open_seats_to_bots_and_the_match_starts(
    db: AsyncSession, make_user: MakeUser
) -> None:
    alice, bob = await make_user(), await make_user()
    summary = await lobby.create_match(
        db, creator_id=alice.id, game="draco", seats=4, options={}, invite=[bob.name], fixed_order=False
    )
    with pytest.raises(Exception, match="only the creator"):
        await lobby.add_bots(db, match_id=summary.id, user_id=bob.id, level="normal")
    waiting = await lobby.add_bots(db, match_id=summary.id, user_id=alice.id, level="normal")
    assert waiting.status == "open", "the seat reserved for Bob stays his"
    assert len(await _bot_ids(db, summary.id)) == 2
    await lobby.join_match(db, match_id=summary.id, user_id=bob.id, invite_token=None)
    started = await lobby.get_summary(db, match_id=summary.id, viewer_id=alice.id)
    assert started.status == "active"
    with pytest.raises(InvalidInput):
        await lobby.create_match(
            db, creator_id=alice.id, game="draco", seats=3, options={}, invite=[], fixed_order=False,
            bots="grandmaster",
        )  # fmt: skip


async def test_bots_cannot_log_in_be_registered_or_invited(db: AsyncSession, make_user: MakeUser) -> None:
    alice = await make_user()
    bot = await db.scalar(select(User).where(User.bot_level == "easy").order_by(User.id).limit(1))
    assert bot is not None
    for password in ("", "!bot", bot.password_hash):
        with pytest.raises(BadCredentials):
            await accounts.log_in(db, name=bot.name, password=password)
    with pytest.raises(InvalidInput):
        await accounts.register(db, name=bot.name, password="correct horse battery", locale="en")
    with pytest.raises(InvalidInput, match="no player called"):
        await lobby.create_match(
            db, creator_id=alice.id, game="draco", seats=2, options={}, invite=[bot.name], fixed_order=False
        )
    assert bot.name not in await lobby.invite_suggestions(db, user_id=alice.id, prefix="bot")


async def test_a_bot_stands_in_for_a_timed_out_player_until_they_take_the_seat_back(
    db: AsyncSession, sessionmaker: async_sessionmaker[AsyncSession], make_user: MakeUser
) -> None:
    alice, bob = await make_user(), await make_user()
    created = await lobby.create_match(
        db, creator_id=alice.id, game="felsental", seats=2, options={}, invite=[bob.name], fixed_order=True
    )
    await clocks.set_time_control(db, match_id=created.id, user_id=alice.id, days_per_move=1, policy="bot")
    await lobby.join_match(db, match_id=created.id, user_id=bob.id, invite_token=None)
    view = await play.get_match(db, match_id=created.id, viewer_id=alice.id, locale="en")
    first, second = (alice, bob) if view.viewer_seat in view.to_act else (bob, alice)
    match = await db.get(Match, created.id, populate_existing=True)
    assert match is not None and match.turn_started_at is not None
    late_at = match.turn_started_at + timedelta(days=1 + clocks.VACATION_DAYS_PER_YEAR + 1)
    chooser = random.Random(3)

    # A small budget: the stand-in (level normal) still searches in the process pool.
    async with bot_turns.running(sessionmaker, think_ms=40) as runner:
        await runner.load_bots()
        report = await clocks.tick(sessionmaker, now=late_at)
        assert [s for m, s in report.handed_to_bots if m == created.id] == [0 if first is alice else 1]
        await runner.settle()
        seen = await play.get_match(db, match_id=created.id, viewer_id=second.id, locale="en")
        assert seen.viewer_seat in seen.to_act, "the stand-in played the late seat's turn"
        late_seat = next(s for s in seen.seats if s.user_id == first.id)
        assert late_seat.bot == "normal", "everybody sees that a computer plays the seat"
        # It keeps playing the seat: the other player's commit wakes it again.
        await _play_turn(db, created.id, second, chooser)
        await runner.settle()
        seen = await play.get_match(db, match_id=created.id, viewer_id=second.id, locale="en")
        assert seen.status != "active" or seen.viewer_seat in seen.to_act
        if seen.status != "active":
            return
        # The owner is back: from now on the seat waits for them again.
        await stand_ins.take_back(db, match_id=created.id, user_id=first.id)
        with pytest.raises(Conflict):
            await stand_ins.take_back(db, match_id=created.id, user_id=first.id)
        await _play_turn(db, created.id, second, chooser)
        await runner.settle()
        mine = await play.get_match(db, match_id=created.id, viewer_id=first.id, locale="en")
        assert mine.status != "active" or mine.viewer_seat in mine.to_act
        assert all(s.bot is None for s in mine.seats)


async def test_a_player_cannot_take_a_bots_next_request_id_first(
    db: AsyncSession, sessionmaker: async_sessionmaker[AsyncSession], make_user: MakeUser
) -> None:
    """Issue 19: a person who confirmed with the id the bot would use next froze its seat (every
    bot write was "already used"). The server's ids take a form no client id can take."""
    alice = await make_user()
    summary = await lobby.create_match(
        db, creator_id=alice.id, game="felsental", seats=2, options={}, invite=[], fixed_order=True,
        bots="easy",
    )  # fmt: skip
    runner = bot_turns.BotRunner(sessionmaker)
    await runner.load_bots()
    await runner.play(summary.id)  # the bot's first turn, if the rules give it the start
    chooser = random.Random(19)
    for _ in range(50):
        view = await play.get_match(db, match_id=summary.id, viewer_id=alice.id, locale="en")
        if view.viewer_seat not in view.to_act:
            # A move of chance (a card drawn) commits at once and may end the turn: the bot's again.
            assert view.status == "active" and await runner.play(summary.id) >= 1
            continue
        if "confirm" in view.legal or not view.legal:
            break
        await play.submit_move(
            db, match_id=summary.id, user_id=alice.id, move=chooser.choice(view.legal),
            expected_version=view.version, request_id=new_request_id(), locale="en",
        )  # fmt: skip
    else:
        raise AssertionError("alice never came to a confirm")
    # The bot will see the next public version: the id it used to take is easy to work out.
    next_public = (view.version // VERSION_SPAN + 1) * VERSION_SPAN
    with pytest.raises(InvalidInput):  # the server's own form is refused from anybody else
        await play.confirm_turn(
            db, match_id=summary.id, user_id=alice.id, expected_version=view.version,
            request_id=f"bot:{summary.id}:{next_public}", locale="en",
        )  # fmt: skip
    await play.confirm_turn(
        db, match_id=summary.id, user_id=alice.id, expected_version=view.version,
        request_id=f"bot-{summary.id}-{next_public}", locale="en",
    )  # fmt: skip
    waiting = await play.get_match(db, match_id=summary.id, viewer_id=alice.id, locale="en")
    assert waiting.status == "active" and waiting.viewer_seat not in waiting.to_act

    assert await runner.play(summary.id) >= 1, "the bot's seat is not frozen"
    after = await play.get_match(db, match_id=summary.id, viewer_id=alice.id, locale="en")
    assert after.status != "active" or after.viewer_seat in after.to_act
