"""What the move path does beyond the rules: notifications for the next player, and for a
finished match its ratings, all in the transaction of the committed decision."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.async_play import RatingChange
from app.services import notify, play
from tests.conftest import MakeUser
from tests.services.async_support import notification_kinds
from tests.support.db import new_request_id, play_to_the_end, start_toy_match


async def test_a_confirmed_turn_notifies_the_next_player_once(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    assert await notification_kinds(db, alice.id, match_id) == ["your_turn"]  # from the start
    assert await notification_kinds(db, bob.id, match_id) == ["invited"]

    view = await play.get_match(db, match_id=match_id, viewer_id=alice.id, locale="en")
    subscription = notify.live.subscribe_user(bob.id)
    try:
        pending = await play.submit_move(
            db,
            match_id=match_id,
            user_id=alice.id,
            move=view.legal[0],
            expected_version=view.version,
            request_id=new_request_id(),
            locale="en",
        )
        # A pending decision tells nobody anything.
        assert await notification_kinds(db, bob.id, match_id) == ["invited"]
        if not pending.committed:
            await play.confirm_turn(
                db,
                match_id=match_id,
                user_id=alice.id,
                expected_version=pending.version,
                request_id=new_request_id(),
                locale="en",
            )
        nudge = await subscription.get(timeout=2)
        assert (nudge.kind, nudge.id) == ("user", bob.id)
    finally:
        await subscription.aclose()
    assert await notification_kinds(db, bob.id, match_id) == ["invited", "your_turn"]
    assert (await notify.badge(db, user_id=bob.id)).your_turn == 1


async def test_a_finished_match_is_rated_and_everybody_hears_of_it(
    db: AsyncSession, make_user: MakeUser
) -> None:
    users = [await make_user(), await make_user(), await make_user()]
    match_id = await start_toy_match(db, users)
    final = await play_to_the_end(db, match_id, users, seed=11)
    assert final.status == "finished" and final.outcome is not None

    changes = list(await db.scalars(select(RatingChange).where(RatingChange.match_id == match_id)))
    assert sorted(c.user_id for c in changes) == sorted(u.id for u in users)
    for user in users:
        assert (await notification_kinds(db, user.id, match_id))[-1] == "match_ended"
