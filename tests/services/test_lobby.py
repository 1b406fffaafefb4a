"""The lobby: create, join, leave, cancel; the match starts when full, in a random seat order."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import Match
from app.engine.registry import get_game
from app.services import admin, lobby
from app.services.errors import Conflict, Forbidden, InvalidInput, NotFound
from tests.conftest import MakeUser
from tests.support.db import start_toy_match


async def test_list_games_offers_the_toy_game() -> None:
    games = {g.slug: g for g in lobby.list_games()}
    toy = games["toy"]
    assert (toy.min_players, toy.max_players) == (2, 4)
    assert toy.options[0].key == "short" and toy.options[0].choices == [False, True]
    assert lobby.list_games("de")[[g.slug for g in lobby.list_games()].index("toy")].title == "Spielkarten"


async def test_create_seats_creator_reserves_invited_leaves_rest_open(
    db: AsyncSession, make_user: MakeUser
) -> None:
    alice, bob, carol = await make_user(), await make_user(), await make_user()
    m = await lobby.create_match(
        db, creator_id=alice.id, game="toy", seats=3, options={}, invite=[bob.name.upper()], fixed_order=False
    )
    assert m.status == "open" and m.players == 3
    assert [(s.user_id, s.name, s.reserved) for s in m.seats] == [
        (alice.id, alice.name, False),
        (None, bob.name, True),
        (None, None, False),
    ]
    assert m.invite_token  # the creator may share the link
    outsider = await lobby.get_summary(db, match_id=m.id, viewer_id=carol.id)
    assert outsider.invite_token is None
    invited = await lobby.get_summary(db, match_id=m.id, viewer_id=bob.id)
    assert invited.invite_token == m.invite_token
    assert m.options == {"short": False}


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"game": "nope"}, "no game called 'nope'"),
        ({"seats": 5}, "for 2 to 4 players"),
        ({"options": {"short": "maybe"}}, "cannot be 'maybe'"),
        ({"options": {"colour": 1}}, "unknown option"),
        ({"invite": ["nobody-at-all"]}, "no player called 'nobody-at-all'"),
        ({"invite": ["x", "y"]}, "room for 1 invited"),
        ({"invite": ["x", "X"], "seats": 3}, "invited once"),
    ],
)
async def test_create_refuses_bad_input(
    db: AsyncSession, make_user: MakeUser, kwargs: dict[str, object], reason: str
) -> None:
    alice = await make_user()
    args: dict[str, object] = {"game": "toy", "seats": 2, "options": {}, "invite": [], "fixed_order": False}
    with pytest.raises(InvalidInput, match=reason):
        await lobby.create_match(db, creator_id=alice.id, **(args | kwargs))  # type: ignore[arg-type]


async def test_join_leave_and_start_when_full(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob, carol = await make_user(), await make_user(), await make_user()
    m = await lobby.create_match(
        db, creator_id=alice.id, game="toy", seats=3, options={}, invite=[], fixed_order=True
    )
    joined = await lobby.join_match(db, match_id=m.id, user_id=bob.id, invite_token=None)
    assert joined.status == "open"
    with pytest.raises(Conflict, match="already sit"):
        await lobby.join_match(db, match_id=m.id, user_id=bob.id, invite_token=None)
    await lobby.leave_match(db, match_id=m.id, user_id=bob.id)
    with pytest.raises(Conflict, match="do not sit"):
        await lobby.leave_match(db, match_id=m.id, user_id=bob.id)
    with pytest.raises(Conflict, match="cancel the match instead"):
        await lobby.leave_match(db, match_id=m.id, user_id=alice.id)

    await lobby.join_match(db, match_id=m.id, user_id=carol.id, invite_token=m.invite_token)
    started = await lobby.join_match(db, match_id=m.id, user_id=bob.id, invite_token=None)
    assert started.status == "active"
    assert [s.user_id for s in started.seats] == [alice.id, carol.id, bob.id]  # fixed order
    row = await db.scalar(select(Match).where(Match.id == m.id))
    assert row is not None and row.seed is not None and len(row.seed) == 32
    assert row.state is not None and get_game("toy").parse_position(row.state).active == 0
    assert row.to_act == [0] and row.turn_started_at is not None

    dave = await make_user()
    with pytest.raises(Conflict, match="not open"):
        await lobby.join_match(db, match_id=m.id, user_id=dave.id, invite_token=None)
    with pytest.raises(Conflict, match="started"):
        await lobby.leave_match(db, match_id=m.id, user_id=bob.id)


async def test_reserved_seat_is_only_for_the_invited(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob, carol = await make_user(), await make_user(), await make_user()
    m = await lobby.create_match(
        db, creator_id=alice.id, game="toy", seats=2, options={}, invite=[bob.name], fixed_order=False
    )
    with pytest.raises(Conflict, match="no free seat"):
        await lobby.join_match(db, match_id=m.id, user_id=carol.id, invite_token=None)
    for forged in ("forged", "gefälscht"):
        with pytest.raises(Forbidden, match="invitation link is not valid"):
            await lobby.join_match(db, match_id=m.id, user_id=bob.id, invite_token=forged)
    assert (await lobby.join_match(db, match_id=m.id, user_id=bob.id, invite_token=None)).status == "active"


async def test_declining_an_invitation_opens_the_seat(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob, carol = await make_user(), await make_user(), await make_user()
    m = await lobby.create_match(
        db, creator_id=alice.id, game="toy", seats=2, options={}, invite=[bob.name], fixed_order=False
    )
    await lobby.leave_match(db, match_id=m.id, user_id=bob.id)
    assert (await lobby.join_match(db, match_id=m.id, user_id=carol.id, invite_token=None)).status == "active"


async def test_cancel_by_creator_only_before_start(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    m = await lobby.create_match(
        db, creator_id=alice.id, game="toy", seats=3, options={}, invite=[], fixed_order=False
    )
    await lobby.join_match(db, match_id=m.id, user_id=bob.id, invite_token=None)
    with pytest.raises(Forbidden, match="only the creator"):
        await lobby.cancel_match(db, match_id=m.id, user_id=bob.id)
    await lobby.cancel_match(db, match_id=m.id, user_id=alice.id)
    assert (await lobby.get_summary(db, match_id=m.id, viewer_id=alice.id)).status == "cancelled"
    with pytest.raises(Conflict, match="not open"):
        await lobby.join_match(db, match_id=m.id, user_id=(await make_user()).id, invite_token=None)

    started = await lobby.create_match(
        db, creator_id=alice.id, game="toy", seats=2, options={}, invite=[bob.name], fixed_order=False
    )
    await lobby.join_match(db, match_id=started.id, user_id=bob.id, invite_token=None)
    with pytest.raises(Conflict, match="cannot be cancelled"):
        await lobby.cancel_match(db, match_id=started.id, user_id=alice.id)


async def test_seat_order_is_random_unless_fixed(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    first_seats = set()
    for _ in range(24):  # all 24 alike by chance: 2 ** -23
        m = await lobby.create_match(
            db, creator_id=alice.id, game="toy", seats=2, options={}, invite=[bob.name], fixed_order=False
        )
        started = await lobby.join_match(db, match_id=m.id, user_id=bob.id, invite_token=None)
        first_seats.add(started.seats[0].user_id)
        assert {s.user_id for s in started.seats} == {alice.id, bob.id}
    assert first_seats == {alice.id, bob.id}
    fixed = await lobby.create_match(
        db, creator_id=alice.id, game="toy", seats=2, options={}, invite=[bob.name], fixed_order=True
    )
    started = await lobby.join_match(db, match_id=fixed.id, user_id=bob.id, invite_token=None)
    assert [s.user_id for s in started.seats] == [alice.id, bob.id]


async def test_open_and_my_matches(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob, carol = await make_user(), await make_user(), await make_user()
    table = await lobby.create_match(
        db, creator_id=alice.id, game="toy", seats=2, options={}, invite=[], fixed_order=True
    )
    private = await lobby.create_match(
        db, creator_id=alice.id, game="toy", seats=2, options={}, invite=[bob.name], fixed_order=True
    )
    ids = [m.id for m in (await lobby.open_matches(db, viewer_id=carol.id)).matches]
    assert table.id in ids and private.id not in ids
    assert private.id in [m.id for m in (await lobby.open_matches(db, viewer_id=bob.id)).matches]

    running = await lobby.join_match(db, match_id=private.id, user_id=bob.id, invite_token=None)
    assert running.status == "active"
    mine = await lobby.running_matches(db, user_id=alice.id, order="oldest")
    assert [m.id for m in mine.your_turn] == [private.id]  # seat 0 starts
    assert mine.your_turn[0].your_turn and mine.your_turn[0].waiting_since is not None
    assert table.id in [m.id for m in mine.waiting]
    theirs = await lobby.running_matches(db, user_id=bob.id, order="recent")
    assert theirs.your_turn == [] and [m.id for m in theirs.waiting] == [private.id]
    with pytest.raises(InvalidInput):
        await lobby.running_matches(db, user_id=bob.id, order="sideways")  # type: ignore[arg-type]


async def test_finished_matches_come_a_page_at_a_time(
    db: AsyncSession, make_user: MakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every ended match can be reached: the newest first, then older pages (a page of two
    here instead of fifty, so that three matches make two pages)."""
    monkeypatch.setattr(lobby, "FINISHED_PAGE", 2)
    boss, alice, bob = await make_user(), await make_user(), await make_user()
    await admin.create_admin(db, name=boss.name, password="x")
    ended = []
    for _ in range(3):
        match_id = await start_toy_match(db, [alice, bob])
        await admin.abort_match(db, admin_id=boss.id, match_id=match_id)
        ended.append(match_id)
    first = await lobby.finished_matches(db, user_id=bob.id)
    second = await lobby.finished_matches(db, user_id=bob.id, page=2)
    assert [m.id for m in first.matches] == ended[:0:-1] and first.more and first.page == 1
    assert [m.id for m in second.matches] == ended[:1] and not second.more
    assert (await lobby.running_matches(db, user_id=bob.id)).waiting == []
    for wrong in (0, lobby.MAX_PAGE + 1):
        with pytest.raises(InvalidInput):
            await lobby.finished_matches(db, user_id=bob.id, page=wrong)


async def test_invite_link_finds_the_match(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    m = await lobby.create_match(
        db, creator_id=alice.id, game="toy", seats=2, options={}, invite=[], fixed_order=True
    )
    assert m.invite_token is not None
    found = await lobby.match_for_invite(db, invite_token=m.invite_token, viewer_id=bob.id)
    assert found.id == m.id


async def test_two_players_racing_for_the_last_seat(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    """Exactly one gets the seat; the match starts once, with one seed."""
    alice, bob, carol = await make_user(), await make_user(), await make_user()
    m = await lobby.create_match(
        db, creator_id=alice.id, game="toy", seats=2, options={}, invite=[], fixed_order=True
    )

    async def join(user_id: int) -> str:
        async with sessionmaker() as session:
            try:
                return (
                    await lobby.join_match(session, match_id=m.id, user_id=user_id, invite_token=None)
                ).status
            except Conflict as error:
                return error.reason

    results = await asyncio.gather(join(bob.id), join(carol.id))
    assert sorted(results)[0] == "active", results
    assert results.count("active") == 1
    final = await lobby.get_summary(db, match_id=m.id, viewer_id=alice.id)
    assert final.status == "active" and len({s.user_id for s in final.seats}) == 2


async def test_hostile_invitations_are_refused_cleanly(db: AsyncSession, make_user: MakeUser) -> None:
    alice = await make_user()
    with pytest.raises(InvalidInput, match="no player called"):
        await lobby.create_match(
            db, creator_id=alice.id, game="toy", seats=2, options={}, invite=["bo\x00b"], fixed_order=False
        )
    for token in ("a\x00b", "x" * 200, ""):
        with pytest.raises(NotFound, match="not valid"):
            await lobby.match_for_invite(db, invite_token=token, viewer_id=alice.id)


async def test_the_creator_invites_by_name_to_a_free_seat(db: AsyncSession, make_user: MakeUser) -> None:
    """Issue 13: inviting by name on an open table reserves a free seat and notifies."""
    from tests.services.async_support import notification_kinds

    alice, bob, carol = await make_user(), await make_user(), await make_user()
    m = await lobby.create_match(
        db, creator_id=alice.id, game="toy", seats=3, options={}, invite=[], fixed_order=True
    )
    with pytest.raises(Forbidden, match="only the creator"):
        await lobby.invite_player(db, match_id=m.id, user_id=bob.id, name=carol.name)
    with pytest.raises(InvalidInput, match="no player called"):
        await lobby.invite_player(db, match_id=m.id, user_id=alice.id, name="nobody-at-all")
    invited = await lobby.invite_player(db, match_id=m.id, user_id=alice.id, name=bob.name.upper())
    assert [(s.name, s.reserved) for s in invited.seats] == [
        (alice.name, False),
        (bob.name, True),
        (None, False),
    ]
    assert await notification_kinds(db, bob.id, m.id) == ["invited"]
    with pytest.raises(Conflict, match="sits at this table already"):
        await lobby.invite_player(db, match_id=m.id, user_id=alice.id, name=bob.name)
    await lobby.invite_player(db, match_id=m.id, user_id=alice.id, name=carol.name)
    with pytest.raises(InvalidInput, match="room for 0 invited"):
        await lobby.invite_player(db, match_id=m.id, user_id=alice.id, name=(await make_user()).name)


async def test_invite_suggestions_put_people_played_with_first(db: AsyncSession, make_user: MakeUser) -> None:
    prefix = "sg" + str(id(db) % 10_000)
    me, often, once, stranger = [await make_user(f"{prefix}{n}") for n in ("me", "zed", "yan", "abe")]
    for partners in ([often], [often], [once]):
        m = await lobby.create_match(
            db,
            creator_id=me.id,
            game="toy",
            seats=2,
            options={},
            invite=[p.name for p in partners],
            fixed_order=True,
        )
        await lobby.join_match(db, match_id=m.id, user_id=partners[0].id, invite_token=None)
    names = await lobby.invite_suggestions(db, user_id=me.id, prefix=prefix)
    assert names == [often.name, once.name, stranger.name]  # most shared matches first, then the rest
    assert await lobby.invite_suggestions(db, user_id=me.id, prefix=f"{prefix}Y") == [once.name]
    assert me.name not in await lobby.invite_suggestions(db, user_id=me.id, prefix=prefix)
    assert await lobby.invite_suggestions(db, user_id=me.id, prefix="%") == []  # no LIKE wildcards
