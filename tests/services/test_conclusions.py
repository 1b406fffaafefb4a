"""Resign, offer a draw (two-player games), rematch."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.async_play import Notification
from app.db.models import MatchSeat
from app.services import conclusions, lobby
from app.services.errors import Conflict, Forbidden
from tests.conftest import MakeUser
from tests.services.async_support import control, load, logged_seats, play_to_end, start_clocked_match
from tests.support.db import start_toy_match


async def test_resigning_a_two_player_match_ends_it_with_the_opponent_first(
    db: AsyncSession, make_user: MakeUser
) -> None:
    alice, bob, eve = await make_user(), await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    with pytest.raises(Forbidden, match="you do not play"):
        await conclusions.resign(db, match_id=match_id, user_id=eve.id)
    clock = await conclusions.resign(db, match_id=match_id, user_id=bob.id)
    assert clock.conclusion == "resigned" and clock.resigned == [1]
    match = await load(db, match_id)
    assert match.status == "finished" and match.result == {
        "scores": [0.0, 0.0],
        "ranks": [1, 2],
        "conclusion": "resigned",
        "resigned": [1],
    }
    ranks = await db.scalars(
        select(MatchSeat.rank).where(MatchSeat.match_id == match_id).order_by(MatchSeat.seat)
    )
    assert list(ranks) == [1, 2]
    with pytest.raises(Conflict, match="not running"):
        await conclusions.resign(db, match_id=match_id, user_id=alice.id)


async def test_a_resigned_player_ranks_last_when_the_others_finish(
    db: AsyncSession, make_user: MakeUser
) -> None:
    players = [await make_user() for _ in range(3)]
    match_id = await start_toy_match(db, players)
    await conclusions.resign(db, match_id=match_id, user_id=players[1].id)
    with pytest.raises(Conflict, match="resigned already"):
        await conclusions.resign(db, match_id=match_id, user_id=players[1].id)
    match = await play_to_end(db, match_id)
    assert match.result is not None and match.result["ranks"][1] == 3
    assert sorted(match.result["ranks"][i] for i in (0, 2)) in ([1, 2], [1, 1])


async def test_a_draw_is_offered_and_declined_or_accepted(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    with pytest.raises(Conflict, match="no draw is on offer"):
        await conclusions.answer_draw(db, match_id=match_id, user_id=bob.id, accept=True)
    clock = await conclusions.offer_draw(db, match_id=match_id, user_id=alice.id)
    assert clock.draw_offer_by == 0
    kinds = await db.scalars(select(Notification.kind).where(Notification.user_id == bob.id))
    assert "draw_offered" in list(kinds)
    with pytest.raises(Conflict, match="on offer already"):
        await conclusions.offer_draw(db, match_id=match_id, user_id=bob.id)
    with pytest.raises(Conflict, match="your opponent has to accept"):
        await conclusions.answer_draw(db, match_id=match_id, user_id=alice.id, accept=True)
    clock = await conclusions.answer_draw(db, match_id=match_id, user_id=bob.id, accept=False)
    assert clock.draw_offer_by is None and (await load(db, match_id)).status == "active"

    await conclusions.offer_draw(db, match_id=match_id, user_id=bob.id)
    clock = await conclusions.answer_draw(db, match_id=match_id, user_id=alice.id, accept=True)
    assert clock.conclusion == "draw"
    match = await load(db, match_id)
    assert match.status == "finished" and match.result == {
        "scores": [0.0, 0.0],
        "ranks": [1, 1],
        "conclusion": "draw",
        "resigned": [],
    }


async def test_a_draw_needs_a_two_player_game(db: AsyncSession, make_user: MakeUser) -> None:
    players = [await make_user() for _ in range(3)]
    match_id = await start_toy_match(db, players)
    with pytest.raises(Conflict, match="two-player games only"):
        await conclusions.offer_draw(db, match_id=match_id, user_id=players[0].id)


async def test_a_rematch_invites_the_same_players_with_the_same_options_and_clock(
    db: AsyncSession, make_user: MakeUser
) -> None:
    alice, bob, carol = await make_user(), await make_user(), await make_user()
    match_id = await start_clocked_match(db, [alice, bob, carol], days=5, policy="vote")
    with pytest.raises(Conflict, match="once the match is over"):
        await conclusions.rematch(db, match_id=match_id, user_id=bob.id)
    await play_to_end(db, match_id)
    new = await conclusions.rematch(db, match_id=match_id, user_id=bob.id)
    assert new.status == "open" and new.game == "toy" and new.players == 3
    assert new.seats[0].user_id == bob.id
    assert sorted(s.name or "" for s in new.seats[1:]) == sorted([alice.name, carol.name])
    assert all(s.reserved for s in new.seats[1:])
    assert new.options == (await load(db, match_id)).options
    clock = await conclusions.get_clock(db, match_id=new.id)
    assert (clock.days_per_move, clock.policy, clock.rematch_of) == (5, "vote", match_id)
    assert (await control(db, match_id)).rematch_id == new.id
    # Asking again (anyone) gives the same rematch; the invitations were notified.
    again = await conclusions.rematch(db, match_id=match_id, user_id=alice.id)
    assert again.id == new.id
    invited = await db.scalars(
        select(Notification.user_id).where(Notification.match_id == new.id, Notification.kind == "invited")
    )
    assert sorted(invited) == sorted([alice.id, carol.id])
    # Everybody accepts: it starts like any match.
    await lobby.join_match(db, match_id=new.id, user_id=alice.id, invite_token=None)
    await lobby.join_match(db, match_id=new.id, user_id=carol.id, invite_token=None)
    assert (await load(db, new.id)).status == "active"
    assert await logged_seats(db, new.id) == []
