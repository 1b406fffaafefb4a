"""E-mail through SMTP (aiosmtplib), only when SMTP is configured.

``send_pending`` delivers the notifications marked for mail: each row is claimed with
``UPDATE ... WHERE mail_state = 'pending'`` first, so with several workers every mail goes out
once; a your-turn mail whose turn has passed meanwhile is skipped.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any

import aiosmtplib
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.db.async_play import Notification, UserSettings
from app.db.models import Match, MatchStatus, User
from app.db.types import utcnow
from app.services import notify
from app.services._rows import game_title

log = logging.getLogger(__name__)

BATCH = 100
MAX_AGE = timedelta(days=2)
"""Older pending mails are skipped rather than sent late (e.g. SMTP was down for days)."""
SMTP_TIMEOUT = 20.0

_SUBJECTS: dict[str, dict[str, str]] = {
    notify.YOUR_TURN: {
        "en": "Your turn in {game} (match {id})",
        "de": "Du bist am Zug: {game} (Partie {id})",
    },
    notify.MATCH_ENDED: {"en": "{game} (match {id}) has ended", "de": "{game} (Partie {id}) ist zu Ende"},
    notify.INVITED: {
        "en": "You are invited to {game} (match {id})",
        "de": "Einladung zu {game} (Partie {id})",
    },
}


class MailError(Exception):
    """SMTP refused or could not be reached."""


async def send_mail(settings: Settings, *, to: str, subject: str, body: str) -> None:
    """Send one plain-text mail; raises ``MailError``."""
    if not settings.smtp_enabled:
        raise MailError("SMTP is not configured")
    message = EmailMessage()
    message["From"] = settings.smtp_from
    message["To"] = to
    message["Subject"] = subject
    message.set_content(body)
    kwargs: dict[str, Any] = {
        "hostname": settings.smtp_host,
        "port": settings.smtp_port,
        "start_tls": settings.smtp_starttls,
        "timeout": SMTP_TIMEOUT,
    }
    if settings.smtp_user:
        kwargs |= {"username": settings.smtp_user, "password": settings.smtp_password or ""}
    try:
        await aiosmtplib.send(message, **kwargs)
    except (aiosmtplib.SMTPException, OSError) as error:
        raise MailError(str(error)) from error


async def send_pending(
    sessionmaker: async_sessionmaker[AsyncSession], settings: Settings, *, now: datetime | None = None
) -> int:
    """Deliver the pending notification mails; returns how many were sent."""
    if not settings.smtp_enabled:
        return 0
    now = now or utcnow()
    async with sessionmaker() as db:
        ids = list(
            await db.scalars(
                select(Notification.id)
                .where(Notification.mail_state == "pending")
                .order_by(Notification.id)
                .limit(BATCH)
            )
        )
    sent = 0
    for notification_id in ids:
        async with sessionmaker() as db:
            if await _deliver(db, settings, notification_id, now):
                sent += 1
    return sent


async def _deliver(db: AsyncSession, settings: Settings, notification_id: int, now: datetime) -> bool:
    claimed = await db.execute(
        update(Notification)
        .where(Notification.id == notification_id, Notification.mail_state == "pending")
        .values(mail_state="sending")
    )
    await db.commit()
    if getattr(claimed, "rowcount", 0) != 1:
        return False  # another worker has it
    row = (
        await db.execute(
            select(Notification, Match, User, UserSettings)
            .join(Match, Match.id == Notification.match_id)
            .join(User, User.id == Notification.user_id)
            .join(UserSettings, UserSettings.user_id == Notification.user_id)
            .where(Notification.id == notification_id)
        )
    ).first()
    state = "skipped"
    if row is not None:
        notification, match, user, prefs = row[0], row[1], row[2], row[3]
        if _still_relevant(notification, match, prefs, now):
            subject, body = await _compose(db, settings, notification, match, user.locale)
            try:
                await send_mail(settings, to=prefs.email or "", subject=subject, body=body)
                state = "sent"
            except MailError as error:
                log.warning("mail to user %s failed: %s; will retry", user.id, error)
                state = "pending"
    await db.execute(update(Notification).where(Notification.id == notification_id).values(mail_state=state))
    await db.commit()
    return state == "sent"


def _still_relevant(notification: Notification, match: Match, prefs: UserSettings, now: datetime) -> bool:
    if not prefs.email or prefs.mail_opt_out or prefs.disabled:
        return False
    if now - notification.created_at > MAX_AGE:
        return False
    if notification.kind == notify.YOUR_TURN:
        # The turn was taken (or the match ended) before the mail went out: no mail.
        return match.status == MatchStatus.ACTIVE and match.turn_started_at == notification.period
    if notification.kind == notify.INVITED:
        # Everybody has joined (or the table was cancelled) before the mail went out.
        return match.status == MatchStatus.OPEN
    return True


async def _compose(
    db: AsyncSession, settings: Settings, notification: Notification, match: Match, locale: str
) -> tuple[str, str]:
    lang = "de" if locale == "de" else "en"
    if notification.kind not in _SUBJECTS:
        from app.services.tournaments import notices  # tournaments build on this module

        told = await notices.mail_text(
            db,
            user_id=notification.user_id,
            match_id=match.id,
            kind=notification.kind,
            lang=lang,
            base_url=settings.mail_base_url,
        )
        if told is not None:
            return told
    game = game_title(match.game, lang)
    subject = _SUBJECTS[notification.kind][lang].format(game=game, id=match.id)
    link = f"{settings.mail_base_url}/matches/{match.id}"
    settings_link = f"{settings.mail_base_url}/settings"
    if lang == "de":
        body = f"{subject}.\n\nZur Partie: {link}\n\nKeine Mails mehr? {settings_link}\n"
    else:
        body = f"{subject}.\n\nGo to the match: {link}\n\nNo more mails? {settings_link}\n"
    return subject, body
