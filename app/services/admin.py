"""Hosting: administrators, disabled accounts, password resets (by an admin or by e-mail),
and each user's own settings (e-mail address, mail opt-out, vacation days left).

The first registered user is an administrator (``accounts.register``); ``create_admin`` makes
or promotes one from the command line (``drachenhort admin create NAME``).
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from zoneinfo import available_timezones

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.db.async_play import PasswordReset, UserSettings
from app.db.models import Match, MatchSeat, MatchStatus, User, UserSession
from app.db.types import utcnow
from app.services import accounts, conclusions, mail, names, sessions, throttle
from app.services._db import use_case
from app.services._rows import load_match, load_seats, lock_match, summary, user_names
from app.services.clocks import VACATION_DAYS_PER_YEAR, vacation_left
from app.services.errors import Conflict, Forbidden, InvalidInput, NotFound
from app.services.play_schemas import AdminUserOut, SettingsOut
from app.services.schemas import MatchSummary, UserOut

RESET_LIFETIME = timedelta(hours=1)
RESETS_PER_LIFETIME = 3
"""Reset mails per account within one link lifetime (more would let anyone flood a mailbox)."""
EMAIL_MAX = 254
USERS_LISTED = 500


# --- administrators -----------------------------------------------------------------------


@use_case
async def create_admin(db: AsyncSession, *, name: str, password: str) -> UserOut:
    """Register ``name`` as an administrator, or promote the existing user ``name``."""
    user = await db.scalar(select(User).where(User.name_key == names.key(name)))
    if user is not None and user.bot_level is not None:
        raise Conflict("a bot cannot log in: it has no password")
    if user is None:
        await accounts.register(db, name=name, password=password, locale="en")
        user = await db.scalar(select(User).where(User.name_key == names.key(name)))
        assert user is not None
    user.is_admin = True
    await db.commit()
    await sessions.changed(user.id)
    return UserOut(id=user.id, name=user.name, locale=user.locale, is_admin=True)


@use_case
async def list_users(db: AsyncSession, *, admin_id: int, starting: str = "") -> list[AdminUserOut]:
    """The first ``USERS_LISTED`` people by name; with ``starting``, those whose name starts so
    (compared as names are: case and look-alikes folded), so every account can be found."""
    await _require_admin(db, admin_id)
    query = (
        select(User, UserSettings.disabled)
        .outerjoin(UserSettings, UserSettings.user_id == User.id)
        .where(User.bot_level.is_(None))
    )
    prefix = names.key(starting.strip()[:40]) if starting.strip() else ""
    if prefix:
        query = query.where(User.name_key.startswith(prefix, autoescape=True))
    rows = await db.execute(query.order_by(User.name_key).limit(USERS_LISTED))
    return [
        AdminUserOut(id=u.id, name=u.name, is_admin=u.is_admin, disabled=bool(d), created_at=u.created_at)
        for u, d in rows.tuples()
    ]


@use_case
async def check_abort(db: AsyncSession, *, admin_id: int, match_id: int) -> MatchSummary:
    """The match an administrator may abort (what ``abort_match`` would refuse, raised the same way)."""
    match, seats = await _abortable(db, admin_id, match_id)
    return summary(match, seats, await user_names(db, seats), admin_id)


@use_case
async def abort_match(db: AsyncSession, *, admin_id: int, match_id: int) -> None:
    """Call off a running or open match (unrated, no result)."""
    await _require_admin(db, admin_id)
    await lock_match(db, match_id)  # first, as every change that ends a match (_rows.lock_match)
    match, seats = await _abortable(db, admin_id, match_id)
    control = await conclusions.control_of(db, match_id)
    if not await conclusions.abort(db, match, seats, control, conclusion="aborted"):
        await db.rollback()
        raise Conflict("the match changed at the same moment: please try again")
    await db.commit()
    await conclusions.publish(match, seats)


@use_case
async def set_disabled(db: AsyncSession, *, admin_id: int, user_id: int, disabled: bool) -> None:
    """Disable (every session ends, no login) or enable an account."""
    await _require_admin(db, admin_id)
    if user_id == admin_id:
        raise Conflict("you cannot disable your own account")
    prefs = await _prefs(db, user_id)
    prefs.disabled = disabled
    if disabled:
        await db.execute(delete(UserSession).where(UserSession.user_id == user_id))
    await db.commit()
    await sessions.changed(user_id)


@use_case
async def reset_password(db: AsyncSession, *, admin_id: int, user_id: int) -> str:
    """Give the user a new random password (returned once, to pass on); their sessions end."""
    await _require_admin(db, admin_id)
    password = secrets.token_urlsafe(12)
    await _set_password(db, user_id, password)
    await db.commit()
    await sessions.changed(user_id)
    return password


@use_case
async def is_disabled(db: AsyncSession, *, user_id: int) -> bool:
    return bool(await db.scalar(select(UserSettings.disabled).where(UserSettings.user_id == user_id)))


@use_case
async def running_matches(db: AsyncSession, *, admin_id: int) -> list[tuple[int, str, str]]:
    """(id, game, status) of open and running matches, newest first."""
    await _require_admin(db, admin_id)
    rows = await db.execute(
        select(Match.id, Match.game, Match.status)
        .where(Match.status.in_([MatchStatus.OPEN, MatchStatus.ACTIVE]))
        .order_by(Match.id.desc())
        .limit(USERS_LISTED)
    )
    return [(i, g, s) for i, g, s in rows.tuples()]


# --- forgotten passwords ------------------------------------------------------------------


@use_case
async def request_password_reset(db: AsyncSession, settings: Settings, *, name: str) -> None:
    """Mail a one-hour reset link when the user has an address and SMTP is configured.

    Answers the same whether or not the user exists, so nobody can probe for accounts.
    """
    if not settings.smtp_enabled:
        raise Conflict("this server cannot send mail: ask its administrator to reset your password")
    row = (
        await db.execute(
            select(User, UserSettings)
            .join(UserSettings, UserSettings.user_id == User.id)
            .where(User.name_key == names.key(name))
        )
    ).first()
    if row is None:
        return
    user, prefs = row[0], row[1]
    if not prefs.email or prefs.disabled:
        return
    now = utcnow()
    recent = await db.scalar(
        select(func.count())
        .select_from(PasswordReset)
        .where(PasswordReset.user_id == user.id, PasswordReset.created_at > now - RESET_LIFETIME)
    )
    if (recent or 0) >= RESETS_PER_LIFETIME:
        return  # the same answer as always: the links already sent still work
    token = secrets.token_urlsafe(32)
    db.add(
        PasswordReset(
            token_hash=_hash(token), user_id=user.id, created_at=now, expires_at=now + RESET_LIFETIME
        )
    )
    await db.commit()
    link = f"{settings.mail_base_url}/password/reset/{token}"
    body = (
        f"Hello {user.name},\n\nto choose a new password, open this link within an hour:\n{link}\n\n"
        "If you did not ask for this, ignore this mail.\n"
    )
    try:
        await mail.send_mail(settings, to=prefs.email, subject="Drachenhort: new password", body=body)
    except mail.MailError as error:
        raise Conflict("the mail could not be sent just now: please try again later") from error


@use_case
async def reset_password_with_token(db: AsyncSession, *, token: str, password: str) -> None:
    """Set a new password with a mailed token (once, within its hour); sessions end."""
    reset = await db.get(PasswordReset, _hash(token))
    if reset is None or reset.used_at is not None or reset.expires_at <= utcnow():
        raise InvalidInput("this link is not valid (any more): ask for a new one")
    user = await db.get(User, reset.user_id)
    if user is None:
        raise NotFound("no such user")
    accounts._check_password(password, user.name)
    claimed = await db.execute(
        update(PasswordReset)
        .where(PasswordReset.token_hash == reset.token_hash, PasswordReset.used_at.is_(None))
        .values(used_at=utcnow())
    )
    if getattr(claimed, "rowcount", 0) != 1:
        raise InvalidInput("this link is not valid (any more): ask for a new one")
    await _set_password(db, reset.user_id, password)
    await db.commit()
    await sessions.changed(reset.user_id)


# --- a user's own settings ----------------------------------------------------------------


@use_case
async def change_password(db: AsyncSession, *, user_id: int, current: str, new: str) -> str:
    """Set a new password for a user who knows the current one. Every session of the user ends
    (a thief's too); the returned token is a fresh session for the browser that asked.

    Wrong current passwords are counted like failed logins of the name, so a left-open
    session cannot be used to guess the password."""
    attempts = f"password:{user_id}"
    await throttle.claim(db, [(attempts, accounts.LOGIN_PER_NAME)], "too many wrong passwords: wait a little")
    password_hash = await db.scalar(select(User.password_hash).where(User.id == user_id))
    if password_hash is None:
        raise NotFound("no such user")
    if not await accounts._verify(password_hash, current):
        raise InvalidInput("the current password is not right")
    await _set_password(db, user_id, new)
    token = accounts.open_session(db, user_id, utcnow())
    await db.commit()
    await throttle.forget(db, attempts)
    await sessions.changed(user_id)
    return token


@use_case
async def get_settings(db: AsyncSession, settings: Settings, *, user_id: int) -> SettingsOut:
    prefs = await _prefs(db, user_id)
    await db.commit()
    return await _settings_out(db, settings, prefs)


@use_case
async def update_settings(
    db: AsyncSession,
    settings: Settings,
    *,
    user_id: int,
    email: str | None,
    mail_opt_out: bool,
    auto_confirm: bool = False,
    time_zone: str | None = None,
) -> SettingsOut:
    email = (email or "").strip() or None
    time_zone = (time_zone or "").strip() or None
    if time_zone is not None and time_zone not in available_timezones():
        raise InvalidInput("that is not a time zone (they read like Europe/Berlin)")
    if email is not None and (
        len(email) > EMAIL_MAX or "@" not in email[1:-1] or any(c.isspace() for c in email)
    ):
        raise InvalidInput("that does not look like an e-mail address")
    prefs = await _prefs(db, user_id)
    changed = (prefs.auto_confirm, prefs.time_zone) != (auto_confirm, time_zone)
    prefs.email, prefs.mail_opt_out, prefs.auto_confirm = email, mail_opt_out, auto_confirm
    prefs.time_zone = time_zone
    await db.commit()
    if changed:
        await sessions.changed(user_id)  # the kept users carry the preferences
    return await _settings_out(db, settings, prefs)


# --- helpers ------------------------------------------------------------------------------


async def _abortable(db: AsyncSession, admin_id: int, match_id: int) -> tuple[Match, list[MatchSeat]]:
    await _require_admin(db, admin_id)
    match = await load_match(db, match_id)
    if match.status not in (MatchStatus.OPEN, MatchStatus.ACTIVE):
        raise Conflict("only an open or running match can be aborted")
    return match, (await load_seats(db, [match_id]))[match_id]


async def _require_admin(db: AsyncSession, user_id: int) -> None:
    if not await db.scalar(select(User.is_admin).where(User.id == user_id)):
        raise Forbidden("only an administrator may do this")


async def _prefs(db: AsyncSession, user_id: int) -> UserSettings:
    if await db.scalar(select(User.id).where(User.id == user_id)) is None:
        raise NotFound("no such user")
    prefs = await db.get(UserSettings, user_id, populate_existing=True)
    if prefs is None:
        prefs = UserSettings(
            user_id=user_id,
            mail_opt_out=False,
            auto_confirm=False,
            disabled=False,
            vacation_year=0,
            vacation_used=0,
        )
        db.add(prefs)
        await db.flush()
    return prefs


async def _settings_out(db: AsyncSession, settings: Settings, prefs: UserSettings) -> SettingsOut:
    return SettingsOut(
        user_id=prefs.user_id,
        email=prefs.email,
        mail_opt_out=prefs.mail_opt_out,
        auto_confirm=prefs.auto_confirm,
        time_zone=prefs.time_zone,
        vacation_days_left=await vacation_left(db, prefs.user_id, utcnow()),
        vacation_days_per_year=VACATION_DAYS_PER_YEAR,
        mail_available=settings.smtp_enabled,
    )


async def _set_password(db: AsyncSession, user_id: int, password: str) -> None:
    """The one way a password changes: every session of the user and every reset link still
    outstanding end with it (a link mailed before must not undo the change)."""
    user = await db.get(User, user_id)
    if user is None:
        raise NotFound("no such user")
    if user.bot_level is not None:
        raise Conflict("a bot cannot log in: it has no password")
    accounts._check_password(password, user.name)
    user.password_hash = await accounts._hash(password)
    await db.execute(delete(UserSession).where(UserSession.user_id == user_id))
    await db.execute(
        update(PasswordReset)
        .where(PasswordReset.user_id == user_id, PasswordReset.used_at.is_(None))
        .values(used_at=utcnow())
    )


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
