"""Issue 19.5: what one user creates is limited (open tables, bot matches, invitations, chat),
and the lists a user can grow (lobby, profiles, chat) are paged."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import Match, MatchStatus, Message, Throttle, User
from app.db.types import utcnow
from app.services import conclusions, lobby, play, profiles
from app.services.errors import RateLimited
from app.services.limits import Limits, chat_key
from app.services.schemas import MatchSummary, UserOut
from tests.conftest import MakeUser
from tests.support.db import start_toy_match


async def _table(
    db: AsyncSession, creator: UserOut, limits: Limits, invite: list[str] | None = None
) -> MatchSummary:
    return await lobby.create_match(
        db, creator_id=creator.id, game="toy", seats=3, options={}, invite=invite or [], fixed_order=True,
        limits=limits,
    )  # fmt: skip


async def _bot_match(db: AsyncSession, creator: UserOut, limits: Limits) -> MatchSummary:
    return await lobby.create_match(
        db, creator_id=creator.id, game="felsental", seats=2, options={}, invite=[], fixed_order=True,
        bots="easy", limits=limits,
    )  # fmt: skip


async def _count(db: AsyncSession, creator: UserOut, status: MatchStatus = MatchStatus.OPEN) -> int:
    counted = select(func.count()).where(Match.created_by == creator.id, Match.status == status)
    return await db.scalar(counted) or 0


async def test_open_tables_are_limited_per_user_and_free_again_when_one_ends(
    db: AsyncSession, make_user: MakeUser
) -> None:
    alice, bob = await make_user(), await make_user()
    limits = Limits(open_tables=3)
    tables = [await _table(db, alice, limits) for _ in range(3)]
    with pytest.raises(RateLimited, match="too many open tables") as refused:
        await _table(db, alice, limits)
    assert refused.value.retry_after and refused.value.retry_after > 0
    assert await _count(db, alice) == 3, "the refused table was not created"
    await _table(db, bob, limits)  # somebody else is not limited by alice's tables
    await lobby.cancel_match(db, match_id=tables[0].id, user_id=alice.id)
    await _table(db, alice, limits)


async def test_tables_created_at_once_are_counted_one_after_another(
    sessionmaker: async_sessionmaker[AsyncSession], db: AsyncSession, make_user: MakeUser
) -> None:
    alice = await make_user()
    limits = Limits(open_tables=3)

    async def create() -> str:
        async with sessionmaker() as session:
            try:
                await _table(session, alice, limits)
            except RateLimited:
                return "refused"
            return "created"

    answers = await asyncio.gather(*(create() for _ in range(12)))
    assert sorted(answers) == ["created"] * 3 + ["refused"] * 9
    assert await _count(db, alice) == 3


async def test_running_bot_matches_are_limited_per_user(db: AsyncSession, make_user: MakeUser) -> None:
    alice = await make_user()
    limits = Limits(bot_matches=2)
    first = await _bot_match(db, alice, limits)
    await _bot_match(db, alice, limits)
    with pytest.raises(RateLimited, match="against the computer"):
        await _bot_match(db, alice, limits)
    # A waiting table given to bots counts as well.
    table = await lobby.create_match(
        db,
        creator_id=alice.id,
        game="felsental",
        seats=2,
        options={},
        invite=[],
        fixed_order=True,
        limits=limits,
    )
    with pytest.raises(RateLimited, match="against the computer"):
        await lobby.add_bots(db, match_id=table.id, user_id=alice.id, level="easy", limits=limits)
    assert (await lobby.get_summary(db, match_id=table.id, viewer_id=alice.id)).status == "open"
    assert await _count(db, alice, MatchStatus.ACTIVE) == 2
    # One ends: another may start.
    await conclusions.resign(db, match_id=first.id, user_id=alice.id)
    await lobby.add_bots(db, match_id=table.id, user_id=alice.id, level="easy", limits=limits)


async def test_invitations_are_limited_per_hour(db: AsyncSession, make_user: MakeUser) -> None:
    alice, victim, carol = await make_user(), await make_user(), await make_user()
    limits = Limits(invitations_per_hour=3, open_tables=10)
    await _table(db, alice, limits, invite=[victim.name, carol.name])  # two invitations
    with pytest.raises(RateLimited, match="too many invitations") as refused:
        await _table(db, alice, limits, invite=[victim.name, carol.name])  # two more: one too many
    assert 3500 <= (refused.value.retry_after or 0) <= 3600
    assert await _count(db, alice) == 1, "the refused table was not created"
    table = await _table(db, alice, limits, invite=[victim.name])  # the third
    with pytest.raises(RateLimited, match="too many invitations"):
        await lobby.invite_player(db, match_id=table.id, user_id=alice.id, name=carol.name, limits=limits)
    invited = await lobby.get_summary(db, match_id=table.id, viewer_id=alice.id)
    assert [s.name for s in invited.seats if s.reserved] == [victim.name]
    # An hour later the quota is full again.
    key = f"invite@user:{alice.id}"
    await db.execute(
        update(Throttle).where(Throttle.key == key).values(last_at=utcnow() - timedelta(hours=1))
    )
    await db.commit()
    await lobby.invite_player(db, match_id=table.id, user_id=alice.id, name=carol.name, limits=limits)


async def test_chat_lines_are_limited_per_minute(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    limits = Limits(chat_lines_per_minute=3)
    for n in range(3):
        await play.post_message(db, match_id=match_id, user_id=alice.id, text=f"line {n}", limits=limits)
    with pytest.raises(RateLimited, match="writing too fast") as refused:
        await play.post_message(db, match_id=match_id, user_id=alice.id, text="one too many", limits=limits)
    assert 1 <= (refused.value.retry_after or 0) <= 60
    await play.post_message(db, match_id=match_id, user_id=bob.id, text="bob may", limits=limits)
    stored = await db.scalar(select(func.count()).where(Message.match_id == match_id))
    assert stored == 4, "the refused line was not stored"
    await db.execute(
        update(Throttle)
        .where(Throttle.key == chat_key(alice.id))
        .values(last_at=utcnow() - timedelta(minutes=1))
    )
    await db.commit()
    await play.post_message(db, match_id=match_id, user_id=alice.id, text="a minute later", limits=limits)


async def test_the_chat_is_read_a_page_at_a_time(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    limits = Limits(chat_lines_per_minute=1000)
    for n in range(play.CHAT_PAGE + 5):
        await play.post_message(db, match_id=match_id, user_id=alice.id, text=f"line {n}", limits=limits)
    newest = await play.list_messages(db, match_id=match_id, user_id=bob.id)
    assert [m.text for m in newest] == [f"line {n}" for n in range(5, play.CHAT_PAGE + 5)]
    earlier = await play.list_messages(db, match_id=match_id, user_id=bob.id, before=newest[0].id)
    assert [m.text for m in earlier] == [f"line {n}" for n in range(5)]


async def test_the_lobby_is_paged(db: AsyncSession, make_user: MakeUser) -> None:
    limits = Limits(open_tables=lobby.OPEN_PAGE)
    creators = [await make_user() for _ in range(2)]
    made = [(await _table(db, creator, limits)).id for creator in creators for _ in range(lobby.OPEN_PAGE)]
    first = await lobby.open_matches(db, viewer_id=None)
    assert len(first.matches) == lobby.OPEN_PAGE and first.more
    second = await lobby.open_matches(db, viewer_id=None, page=2)
    shown = [m.id for m in first.matches + second.matches]
    assert shown[: len(made)] == sorted(made, reverse=True), "newest first, no table twice or lost"


async def test_a_rematch_of_a_bot_match_seats_the_bot_again(db: AsyncSession, make_user: MakeUser) -> None:
    """Found on the way (issue 19): the rematch invited the bot by name and answered 422."""
    alice = await make_user()
    finished = await _bot_match(db, alice, Limits())
    await conclusions.resign(db, match_id=finished.id, user_id=alice.id)
    new = await conclusions.rematch(db, match_id=finished.id, user_id=alice.id)
    assert new.status == "active" and new.game == "felsental"
    bots = {s.name for s in finished.seats if s.user_id != alice.id}
    assert {s.name for s in new.seats if s.user_id != alice.id} == bots


async def test_a_bots_profile_is_paged_like_anyone_elses(db: AsyncSession, make_user: MakeUser) -> None:
    players = [await make_user() for _ in range(2)]
    limits = Limits(bot_matches=profiles.PROFILE_PAGE)
    for player in players:
        for _ in range(profiles.PROFILE_PAGE):
            await _bot_match(db, player, limits)
    bot = await db.scalar(select(User.name).where(User.bot_level == "easy").order_by(User.id).limit(1))
    assert bot is not None
    first = await profiles.get_profile(db, name=bot, viewer_id=None)
    assert len(first.running) == profiles.PROFILE_PAGE and first.running_more
    second = await profiles.get_profile(db, name=bot, viewer_id=None, running_page=2)
    assert {m.id for m in first.running}.isdisjoint(m.id for m in second.running)
    assert [m.id for m in first.running] == sorted((m.id for m in first.running), reverse=True)
