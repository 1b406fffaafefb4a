"""Friends and blocks: ask, accept, decline, remove; a block stops invitations, chat lines and
requests; online state from the sessions; player search by name and look-alike."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.accounts import UserSession
from app.db.types import utcnow
from app.services import accounts, friends, lobby, people
from app.services.errors import Conflict, Forbidden, InvalidInput, NotFound
from app.services.play import chat
from tests.conftest import TEST_PASSWORD, MakeUser
from tests.support.db import start_toy_match


async def test_a_request_accepted_makes_friends_both_ways_and_removal_ends_it(
    db: AsyncSession, make_user: MakeUser
) -> None:
    alice, bob = await make_user(), await make_user()
    asked = await friends.ask_or_accept(db, user_id=alice.id, name=bob.name.upper())
    assert (asked.name, asked.relation) == (bob.name, "asked")
    assert (await friends.relation(db, user_id=bob.id, name=alice.name)).relation == "asking"
    bobs = await friends.list_friends(db, user_id=bob.id)
    assert bobs.asking == [alice.name] and bobs.friends == []
    assert (await friends.list_friends(db, user_id=alice.id)).asked == [bob.name]
    # Asking again changes nothing; the answer of the one asked makes them friends.
    assert (await friends.ask_or_accept(db, user_id=alice.id, name=bob.name)).relation == "asked"
    assert (await friends.ask_or_accept(db, user_id=bob.id, name=alice.name)).relation == "friend"
    for me, other in ((alice, bob), (bob, alice)):
        mine = await friends.list_friends(db, user_id=me.id)
        assert [f.name for f in mine.friends] == [other.name] and mine.asking == mine.asked == []
    assert (await friends.remove(db, user_id=bob.id, name=alice.name)).relation == "none"
    assert (await friends.list_friends(db, user_id=alice.id)).friends == []
    with pytest.raises(NotFound, match="not your friend"):
        await friends.remove(db, user_id=alice.id, name=bob.name)


async def test_a_request_can_be_declined(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    await friends.ask_or_accept(db, user_id=alice.id, name=bob.name)
    await friends.remove(db, user_id=bob.id, name=alice.name)
    assert (await friends.relation(db, user_id=alice.id, name=bob.name)).relation == "none"


async def test_nobody_befriends_themselves_a_bot_or_a_stranger(db: AsyncSession, make_user: MakeUser) -> None:
    alice = await make_user()
    with pytest.raises(InvalidInput, match="that is you"):
        await friends.ask_or_accept(db, user_id=alice.id, name=alice.name)
    with pytest.raises(InvalidInput, match="computer opponents"):
        await friends.ask_or_accept(db, user_id=alice.id, name="Bot easy 1")
    with pytest.raises(NotFound, match="no player called"):
        await friends.ask_or_accept(db, user_id=alice.id, name="nobody-here-at-all")


async def test_online_means_a_session_seen_within_minutes(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob, carol = await make_user(), await make_user(), await make_user()
    for other in (bob, carol):
        await friends.ask_or_accept(db, user_id=alice.id, name=other.name)
        await friends.ask_or_accept(db, user_id=other.id, name=alice.name)
    await accounts.log_in(db, name=bob.name, password=TEST_PASSWORD)
    await accounts.log_in(db, name=carol.name, password=TEST_PASSWORD)
    await db.execute(
        update(UserSession)
        .where(UserSession.user_id == carol.id)
        .values(last_seen_at=utcnow() - friends.ONLINE_WITHIN - timedelta(seconds=5))
    )
    await db.commit()
    running = await start_toy_match(db, [bob, carol])
    listed = {f.name: f for f in (await friends.list_friends(db, user_id=alice.id)).friends}
    assert listed[bob.name].online and not listed[carol.name].online
    assert [m.id for m in listed[bob.name].running] == [running]
    assert await friends.friend_names(db, user_id=alice.id) == [bob.name, carol.name]


async def test_a_block_stops_invitations_chat_and_requests(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    await friends.ask_or_accept(db, user_id=alice.id, name=bob.name)
    match_id = await start_toy_match(db, [bob, alice])  # invited before the block
    await chat.post_message(db, match_id=match_id, user_id=bob.id, text="hello")
    assert (await friends.block(db, user_id=alice.id, name=bob.name)).relation == "blocked"
    assert (await friends.list_friends(db, user_id=alice.id)).asked == []  # the request is gone
    with pytest.raises(Forbidden, match="blocked you"):
        await chat.post_message(db, match_id=match_id, user_id=bob.id, text="still there?")
    await chat.post_message(db, match_id=match_id, user_id=alice.id, text="I can still talk")
    with pytest.raises(Forbidden, match="does not accept invitations"):
        await lobby.create_match(
            db, creator_id=bob.id, game="toy", seats=2, options={}, invite=[alice.name], fixed_order=False
        )
    table = await lobby.create_match(
        db, creator_id=bob.id, game="toy", seats=2, options={}, invite=[], fixed_order=False
    )
    with pytest.raises(Forbidden, match="does not accept invitations"):
        await lobby.invite_player(db, match_id=table.id, user_id=bob.id, name=alice.name)
    with pytest.raises(Forbidden, match="does not accept this"):
        await friends.ask_or_accept(db, user_id=bob.id, name=alice.name)
    with pytest.raises(Conflict, match="unblock them first"):
        await friends.ask_or_accept(db, user_id=alice.id, name=bob.name)
    assert (await friends.list_blocks(db, user_id=alice.id)).names == [bob.name]
    await friends.unblock(db, user_id=alice.id, name=bob.name)
    await lobby.invite_player(db, match_id=table.id, user_id=bob.id, name=alice.name)
    await chat.post_message(db, match_id=match_id, user_id=bob.id, text="thanks")


async def test_waiting_requests_are_capped(
    db: AsyncSession, make_user: MakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(friends, "MAX_ASKED", 2)
    alice = await make_user()
    others = [await make_user() for _ in range(3)]
    for other in others[:2]:
        await friends.ask_or_accept(db, user_id=alice.id, name=other.name)
    with pytest.raises(Conflict, match="2 requests waiting"):
        await friends.ask_or_accept(db, user_id=alice.id, name=others[2].name)


async def test_search_finds_by_prefix_and_look_alike(db: AsyncSession, make_user: MakeUser) -> None:
    stem = f"Qz{(await make_user()).name[-6:]}"
    alice = await make_user(f"{stem}lice")
    await make_user(f"{stem}lmost")
    found = await people.search(db, query=stem.lower())
    assert [p.name for p in found.players] == sorted([alice.name, f"{stem}lmost"], key=str.casefold)
    # A capital I reads like a small l: the look-alike finds the name too.
    look_alike = await people.search(db, query=f"{stem}Iic")
    assert [p.name for p in look_alike.players] == [alice.name]
    assert (await people.search(db, query=f"{stem}x")).players == []
    with pytest.raises(InvalidInput):
        await people.search(db, query=" ")
