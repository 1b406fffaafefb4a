"""Helpers for the asynchronous-play tests: clocked toy matches, a fake clock, an SMTP sink."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import Envelope, Session
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.db.async_play import MatchControl, Notification
from app.db.models import LoggedMove, Match
from app.services import clocks, lobby
from app.services.schemas import UserOut


async def start_clocked_match(
    db: AsyncSession, players: list[UserOut], *, days: int | None = 2, policy: str = "timeout_move"
) -> int:
    """A running toy match, ``players`` in seat order, with a time control."""
    created = await lobby.create_match(
        db,
        creator_id=players[0].id,
        game="toy",
        seats=len(players),
        options={},
        invite=[p.name for p in players[1:]],
        fixed_order=True,
    )
    await clocks.set_time_control(
        db, match_id=created.id, user_id=players[0].id, days_per_move=days, policy=policy
    )
    for player in players[1:]:
        await lobby.join_match(db, match_id=created.id, user_id=player.id, invite_token=None)
    return created.id


async def load(db: AsyncSession, match_id: int) -> Match:
    match = await db.get(Match, match_id, populate_existing=True)
    assert match is not None
    return match


async def control(db: AsyncSession, match_id: int) -> MatchControl:
    row = await db.get(MatchControl, match_id, populate_existing=True)
    assert row is not None
    return row


async def logged_seats(db: AsyncSession, match_id: int) -> list[int]:
    """The seat of every logged decision, in order."""
    return list(
        await db.scalars(
            select(LoggedMove.seat).where(LoggedMove.match_id == match_id).order_by(LoggedMove.seq)
        )
    )


async def turn_start(db: AsyncSession, match_id: int) -> datetime:
    match = await load(db, match_id)
    assert match.turn_started_at is not None
    return match.turn_started_at


def days(n: float) -> timedelta:
    return timedelta(days=n)


class Sink:
    """A real SMTP server (aiosmtpd) on a free loopback port that keeps what it receives."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.recipients: list[list[str]] = []

    async def handle_DATA(self, server: object, session: Session, envelope: Envelope) -> str:
        assert isinstance(envelope.content, bytes)
        message = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        self.messages.append(message)
        self.recipients.append(list(envelope.rcpt_tos))
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m, r in zip(self.messages, self.recipients, strict=True) if address in r]


@contextmanager
def smtp_sink() -> Iterator[tuple[Sink, int]]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield sink, port
    finally:
        controller.stop()


def mail_settings(database_url: str, port: int) -> Settings:
    return Settings(
        database_url=database_url,
        secret_key="test-secret-key-for-mail-tests",
        base_url="http://127.0.0.1:9",
        smtp_host="127.0.0.1",
        smtp_port=port,
        smtp_from="drachenhort@example.org",
        smtp_starttls=False,
    )


async def settle() -> None:
    """Give the sink's thread a moment to hand over a message it has accepted."""
    await asyncio.sleep(0.05)


async def play_to_end(db: AsyncSession, match_id: int) -> Match:
    """Finish a toy match by playing every turn with the game's timeout move (as the clock does)."""
    from app.services import conclusions
    from app.services._rows import load_seats

    for _ in range(500):
        match = await load(db, match_id)
        if match.status != "active":
            return match
        seats = (await load_seats(db, [match_id]))[match_id]
        assert await conclusions.play_for(db, match, seats, match.to_act[0])
        await conclusions.after_commit(db, match, seats)
        await db.commit()
    raise AssertionError("the toy match did not end")


async def notification_kinds(db: AsyncSession, user_id: int, match_id: int) -> list[str]:
    """The kinds of the user's notifications about the match, oldest first."""
    rows = await db.scalars(
        select(Notification.kind)
        .where(Notification.user_id == user_id, Notification.match_id == match_id)
        .order_by(Notification.id)
    )
    return list(rows)
