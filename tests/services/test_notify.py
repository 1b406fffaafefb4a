"""Notifications and mail: one per match per waiting period, opt-out, a real SMTP sink."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.async_play import Notification
from app.services import admin, clocks, conclusions, mail, notify
from app.services._rows import load_seats
from tests.conftest import MakeUser
from tests.services.async_support import (
    load,
    mail_settings,
    notification_kinds,
    settle,
    smtp_sink,
    start_clocked_match,
)
from tests.support.db import start_toy_match


async def _pass_turn(db: AsyncSession, match_id: int) -> None:
    """The seat to act plays its turn (as the move path does, hook included)."""
    match = await load(db, match_id)
    seats = (await load_seats(db, [match_id]))[match_id]
    assert await conclusions.play_for(db, match, seats, match.to_act[0])
    users = await conclusions.after_commit(db, match, seats)
    await db.commit()
    await conclusions.publish(match, seats, users)


async def test_one_notification_per_waiting_period_and_a_live_badge(
    db: AsyncSession, make_user: MakeUser
) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    match = await load(db, match_id)
    seats = (await load_seats(db, [match_id]))[match_id]
    # The start notified the first player; the hook may run again for the same waiting period
    # (several committed decisions) without a second notification.
    assert await notify.record_turn(db, match, seats) == set()
    await db.commit()
    assert await notification_kinds(db, alice.id, match_id) == ["your_turn"]

    subscription = notify.live.subscribe_user(bob.id)
    try:
        await _pass_turn(db, match_id)
        nudge = await subscription.get(timeout=2)
        assert (nudge.kind, nudge.id) == ("user", bob.id)
    finally:
        await subscription.aclose()
    assert await notification_kinds(db, bob.id, match_id) == ["invited", "your_turn"]
    badge = await notify.badge(db, user_id=bob.id)
    assert badge.your_turn >= 1 and badge.unread >= 1
    assert (await notify.badge(db, user_id=alice.id)).your_turn == 0

    listed = await notify.list_notifications(db, user_id=bob.id)
    assert [(n.kind, n.match_id, n.read) for n in listed][:1] == [("your_turn", match_id, False)]
    assert await notify.mark_read(db, user_id=bob.id, match_id=match_id) == 2  # the invitation and the turn
    assert (await notify.list_notifications(db, user_id=bob.id))[0].read

    await _pass_turn(db, match_id)  # alice's second waiting period: a second notification
    assert await notification_kinds(db, alice.id, match_id) == ["your_turn", "your_turn"]


async def test_the_end_of_a_match_is_notified_to_everybody(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    await conclusions.resign(db, match_id=match_id, user_id=bob.id)
    assert await notification_kinds(db, alice.id, match_id) == ["your_turn", "match_ended"]
    assert await notification_kinds(db, bob.id, match_id) == ["invited", "match_ended"]


async def test_mail_goes_once_per_waiting_period_to_a_real_smtp_server(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession], database_url: str
) -> None:
    alice, bob, carol = await make_user(), await make_user(), await make_user()
    with smtp_sink() as (sink, port):
        settings = mail_settings(database_url, port)
        await admin.update_settings(
            db, settings, user_id=alice.id, email="alice@example.org", mail_opt_out=False
        )
        await admin.update_settings(db, settings, user_id=bob.id, email="bob@example.org", mail_opt_out=False)
        await admin.update_settings(
            db, settings, user_id=carol.id, email="carol@example.org", mail_opt_out=True
        )
        match_id = await start_clocked_match(db, [alice, bob, carol], days=None)
        match = await load(db, match_id)
        await notify.record_turn(db, match, (await load_seats(db, [match_id]))[match_id])
        await db.commit()

        assert await mail.send_pending(sessionmaker, settings) == 1
        assert await mail.send_pending(sessionmaker, settings) == 0  # not twice
        await settle()
        [message] = sink.to("alice@example.org")
        assert "Your turn" in message["Subject"] and f"/matches/{match_id}" in message.get_content()
        assert message["From"] == "drachenhort@example.org"

        # bob's turn: he gets one mail; carol opted out and gets none, ever.
        await _pass_turn(db, match_id)
        report = await clocks.tick(sessionmaker, settings=settings)
        assert report.mails == 1
        await _pass_turn(db, match_id)
        assert await mail.send_pending(sessionmaker, settings) == 0
        await settle()
        assert len(sink.to("bob@example.org")) == 1
        assert sink.to("carol@example.org") == []
        assert len(sink.messages) == 2


async def test_a_turn_taken_before_the_mail_went_out_sends_no_mail(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession], database_url: str
) -> None:
    alice, bob = await make_user(), await make_user()
    with smtp_sink() as (sink, port):
        settings = mail_settings(database_url, port)
        await admin.update_settings(db, settings, user_id=alice.id, email="a@example.org", mail_opt_out=False)
        match_id = await start_toy_match(db, [alice, bob])
        match = await load(db, match_id)
        await notify.record_turn(db, match, (await load_seats(db, [match_id]))[match_id])
        await db.commit()
        await _pass_turn(db, match_id)  # alice's turn has passed
        assert await mail.send_pending(sessionmaker, settings) == 0
        states = await db.scalars(select(Notification.mail_state).where(Notification.user_id == alice.id))
        assert list(states) == ["skipped"]
        await settle()
        assert sink.messages == []


async def test_without_smtp_nothing_is_sent(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession], database_url: str
) -> None:
    settings = mail_settings(database_url, 1).model_copy(update={"smtp_host": None})
    assert not settings.smtp_enabled
    assert await mail.send_pending(sessionmaker, settings) == 0
