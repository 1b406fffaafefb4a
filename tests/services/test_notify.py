"""Notifications and mail: one per match per waiting period, opt-out, a real SMTP sink."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.async_play import Notification
from app.services import admin, clocks, conclusions, lobby, mail, notify, play
from app.services._rows import load_seats
from app.services.errors import InvalidInput
from app.services.schemas import UserOut
from tests.conftest import MakeUser
from tests.services.async_support import (
    load,
    mail_settings,
    notification_kinds,
    settle,
    smtp_sink,
    start_clocked_match,
)
from tests.support.db import new_request_id, play_to_the_end, start_toy_match


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

    listed = (await notify.list_notifications(db, user_id=bob.id)).items
    assert [(n.kind, n.match_id, n.read) for n in listed][:1] == [("your_turn", match_id, False)]
    assert await notify.mark_read(db, user_id=bob.id, match_id=match_id) == 1  # joining read the invitation
    assert (await notify.list_notifications(db, user_id=bob.id)).items[0].read

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


async def _play_a_turn(db: AsyncSession, match_id: int, user: UserOut) -> None:
    """A card and Confirm, through the move path as the pages send them."""
    view = await play.get_match(db, match_id=match_id, viewer_id=user.id, locale="en")
    ids = {"match_id": match_id, "user_id": user.id, "locale": "en"}
    played = await play.submit_move(
        db, **ids, move=view.legal[0], expected_version=view.version, request_id=new_request_id()
    )
    await play.confirm_turn(db, **ids, expected_version=played.version, request_id=new_request_id())


async def _unread(db: AsyncSession, user_id: int, match_id: int, kind: str) -> int:
    count = await db.scalar(
        select(func.count()).where(
            Notification.user_id == user_id,
            Notification.match_id == match_id,
            Notification.kind == kind,
            Notification.read_at.is_(None),
        )
    )
    return count or 0


async def test_playing_the_turn_clears_its_notification(db: AsyncSession, make_user: MakeUser) -> None:
    """Issue 13.8: a played turn marks its your-turn notification read (the badge drops)."""
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    assert await _unread(db, alice.id, match_id, notify.YOUR_TURN) == 1
    assert (await notify.badge(db, user_id=alice.id)).unread == 1

    await _play_a_turn(db, match_id, alice)
    assert await _unread(db, alice.id, match_id, notify.YOUR_TURN) == 0
    assert (await notify.badge(db, user_id=alice.id)).unread == 0
    assert await _unread(db, bob.id, match_id, notify.YOUR_TURN) == 1  # bob's turn now

    await _play_a_turn(db, match_id, bob)
    assert await _unread(db, bob.id, match_id, notify.YOUR_TURN) == 0
    assert await _unread(db, bob.id, match_id, notify.INVITED) == 0  # answered by joining
    assert await _unread(db, alice.id, match_id, notify.YOUR_TURN) == 1  # her second turn


async def test_one_match_shows_one_line(db: AsyncSession, make_user: MakeUser) -> None:
    """Issue 13.8: however many turns it notified, a match is one line (its newest news)."""
    alice, bob = await make_user(), await make_user()
    first = await start_toy_match(db, [alice, bob])
    second = await start_toy_match(db, [alice, bob])
    for _ in range(3):
        for match_id in (first, second):
            await _play_a_turn(db, match_id, alice)
            await _play_a_turn(db, match_id, bob)
    assert await notification_kinds(db, bob.id, first) == ["invited", "your_turn", "your_turn", "your_turn"]

    # Alice is to act in both: one unread line per match, not one per row.
    listed = (await notify.list_notifications(db, user_id=alice.id)).items
    assert [(n.match_id, n.kind, n.read) for n in listed] == [
        (second, "your_turn", False),
        (first, "your_turn", False),
    ]
    assert (await notify.badge(db, user_id=alice.id)).unread == 2  # two matches, not six rows
    await notify.mark_read(db, user_id=alice.id, match_id=first)
    listed = (await notify.list_notifications(db, user_id=alice.id)).items
    assert [(n.match_id, n.read) for n in listed] == [(second, False), (first, True)]
    assert (await notify.badge(db, user_id=alice.id)).unread == 1
    # Bob played every turn (and answered his invitations by joining): nothing is unread.
    listed = (await notify.list_notifications(db, user_id=bob.id)).items
    assert [(n.match_id, n.kind, n.read) for n in listed] == [
        (second, "your_turn", True),
        (first, "your_turn", True),
    ]


async def test_the_match_ended_line_says_who_won_and_how(db: AsyncSession, make_user: MakeUser) -> None:
    """Issue 13.8: "the match has ended" names the winner, and a resignation as such."""
    alice, bob, carol = await make_user(), await make_user(), await make_user()
    resigned = await start_toy_match(db, [alice, bob])
    await conclusions.resign(db, match_id=resigned, user_id=bob.id)
    played = await start_toy_match(db, [alice, carol])
    final = await play_to_the_end(db, played, [alice, carol], seed=3)
    assert final.outcome is not None

    lines = {n.match_id: n for n in (await notify.list_notifications(db, user_id=alice.id)).items}
    assert lines[resigned].kind == "match_ended"
    assert (lines[resigned].winners, lines[resigned].resigned, lines[resigned].conclusion) == (
        [alice.name],
        [bob.name],
        "resigned",
    )
    winners = [u.name for u, rank in zip([alice, carol], final.outcome.ranks, strict=True) if rank == 1]
    assert (lines[played].kind, lines[played].winners, lines[played].conclusion) == (
        "match_ended",
        winners,
        None,
    )
    assert lines[played].resigned == []


async def test_an_invited_player_who_played_the_turn_has_no_unread_line(
    db: AsyncSession, make_user: MakeUser
) -> None:
    """Issue 19: the invited player who joins last acts first; playing that turn left the
    match's line unread because the invitation stayed unread. Answering an invitation (joining
    or declining) reads it, so playing the turn clears what the line shows."""
    alice, bob = await make_user(), await make_user()
    table = await lobby.create_match(
        db, creator_id=alice.id, game="toy", seats=2, options={}, invite=[bob.name], fixed_order=True
    )
    await lobby.join_match(db, match_id=table.id, user_id=bob.id, invite_token=None)
    first = await play.get_match(db, match_id=table.id, viewer_id=alice.id, locale="en")
    acting, waiting = (alice, bob) if first.legal else (bob, alice)
    await _play_a_turn(db, table.id, acting)
    await _play_a_turn(db, table.id, waiting)

    [line] = (await notify.list_notifications(db, user_id=bob.id)).items
    assert (line.match_id, line.kind, line.read) == (table.id, "your_turn", True)
    assert (await notify.badge(db, user_id=bob.id)).unread == 0

    declined = await lobby.create_match(
        db, creator_id=alice.id, game="toy", seats=2, options={}, invite=[bob.name], fixed_order=True
    )
    await lobby.leave_match(db, match_id=declined.id, user_id=bob.id)
    assert await _unread(db, bob.id, declined.id, notify.INVITED) == 0


async def test_notification_lines_come_a_page_at_a_time(
    db: AsyncSession, make_user: MakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every line can be reached: three matches' lines make two pages of two (fifty in use)."""
    monkeypatch.setattr(notify, "LIST_LIMIT", 2)
    alice, bob = await make_user(), await make_user()
    started = [await start_toy_match(db, [alice, bob]) for _ in range(3)]  # alice starts each
    first = await notify.list_notifications(db, user_id=alice.id)
    second = await notify.list_notifications(db, user_id=alice.id, page=2)
    assert [n.match_id for n in first.items] == started[:0:-1] and first.more and first.page == 1
    assert [n.match_id for n in second.items] == started[:1] and not second.more
    for wrong in (0, notify.MAX_PAGE + 1):
        with pytest.raises(InvalidInput):
            await notify.list_notifications(db, user_id=alice.id, page=wrong)
