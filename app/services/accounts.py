"""Registration and login (both throttled), server-side sessions, user preferences."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from dataclasses import replace
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.async_play import UserSettings
from app.db.models import User, UserSession
from app.db.types import utcnow
from app.services import names, sessions, throttle
from app.services._db import use_case
from app.services._rows import has_control_characters
from app.services.errors import BadCredentials, Forbidden, InvalidInput, NameTaken, NotFound
from app.services.schemas import UserOut

LOCALES = ("en", "de")
PASSWORD_MIN, PASSWORD_MAX = 8, 200
SESSION_LIFETIME = timedelta(days=30)
SEEN_RESOLUTION = timedelta(minutes=1)
"""``last_seen_at`` is written at most this often, so reading pages does not write every time
(and friends see who is online from it: ``friends.ONLINE_WITHIN``)."""
LOGIN_PER_NAME = throttle.Policy(
    free=5,
    first_delay=timedelta(seconds=30),
    max_delay=timedelta(minutes=15),
    forget_after=timedelta(hours=1),
)
"""Failed logins for one name from one address: 5, then waits of 30 s, 1 min, 2 min, … up to
15 minutes. The owner elsewhere is never slowed by somebody else's guesses."""
FAILED_LOGINS_PER_ADDRESS = 30
"""Failed logins one address may make, whatever the names, before it waits (as per name)."""
REGISTRATIONS_PER_HOUR = 10
"""Registrations from one address (the default of the setting ``registrations_per_hour``)."""

# argon2id with the library's defaults (RFC 9106 low-memory profile).
_hasher = PasswordHasher()
# Verified against when the name is unknown, so both failures take the same time.
_DUMMY_HASH = (
    "$argon2id$v=19$m=65536,t=3,p=4$ZHJhY2hlbmhvcnQtZHVtbXk$nIY9cahbT/ig5Ik6+fKdIDZOGr6Gu2g/k4pzDT0m9ew"
)


@use_case
async def register(
    db: AsyncSession,
    *,
    name: str,
    password: str,
    locale: str,
    client: str | None = None,
    registrations_per_hour: int = REGISTRATIONS_PER_HOUR,
) -> UserOut:
    """Create an account; the very first account is an administrator.

    ``client``: the address the request came from (None: this server's own tools), allowed
    ``registrations_per_hour`` attempts before growing waits.
    """
    name = names.allowed(name)
    _check_password(password, name)
    locale = _check_locale(locale)
    if client is not None:
        policy = throttle.Policy(
            free=registrations_per_hour,
            first_delay=timedelta(hours=1) / max(1, registrations_per_hour),
            max_delay=timedelta(hours=1),
            forget_after=timedelta(hours=1),
        )
        await throttle.claim(db, [(f"register@{client}", policy)], "too many registrations from your address")
    key, skeleton = names.key(name), names.skeleton(name)
    if await db.scalar(select(User.id).where(User.name_key == key)) is not None:
        raise NameTaken(f"the name {name!r} is already taken")
    if await db.scalar(select(User.id).where(User.name_skeleton == skeleton)) is not None:
        raise NameTaken("this name looks too much like a name that is taken")
    # The first person is the administrator (the bot users of migration 0005 do not count).
    is_first = await db.scalar(select(func.count()).where(User.bot_level.is_(None))) == 0
    user = User(
        name=name,
        name_key=key,
        name_skeleton=skeleton,
        password_hash=await _hash(password),
        locale=locale,
        is_admin=is_first,
        created_at=utcnow(),
    )
    db.add(user)
    try:
        await db.commit()
    except IntegrityError:
        await db.rollback()
        raise NameTaken(f"the name {name!r} is already taken") from None
    return _user_out(user)


@use_case
async def log_in(
    db: AsyncSession,
    *,
    name: str,
    password: str,
    client: str | None = None,
    failed_logins_per_address: int = FAILED_LOGINS_PER_ADDRESS,
) -> tuple[UserOut, str]:
    """Check the password and open a session; returns the user and the session token.

    Every attempt is counted before the password is checked: for the name from ``client``
    (the request's address; None: this server's own tools) by ``LOGIN_PER_NAME``, and for
    ``client`` over all names, ``failed_logins_per_address`` free; a right password takes its
    attempts back.
    """
    if has_control_characters(name) or has_control_characters(password):
        raise BadCredentials("wrong name or password")  # no such name or password can exist
    key, as_typed = names.key(name), name.strip().casefold()[: names.KEY_MAX]
    name_from = f"login:{key}@{client or '-'}"
    keys = [(name_from, LOGIN_PER_NAME)]
    if client is not None:
        keys.append((f"login@{client}", replace(LOGIN_PER_NAME, free=failed_logins_per_address)))
    await throttle.claim(db, keys, "too many failed logins: wait a little and try again")
    now = utcnow()
    # An account of before width folding may keep its key as typed (its folded key was taken).
    found = list(await db.scalars(select(User).where(User.name_key.in_({key, as_typed}))))
    user = next((u for u in found if u.name_key == as_typed), found[0] if found else None)
    verified = await _verify(user.password_hash if user else _DUMMY_HASH, password)
    if user is None or not verified or user.bot_level is not None:
        # A bot never logs in, whatever password its row may have been given.
        raise BadCredentials("wrong name or password")
    if await db.scalar(select(UserSettings.disabled).where(UserSettings.user_id == user.id)):
        raise Forbidden("this account is disabled: ask the server's administrator")
    if _hasher.check_needs_rehash(user.password_hash):
        user.password_hash = await _hash(password)
    token = open_session(db, user.id, now)
    await db.commit()
    await throttle.forget(db, name_from)
    if client is not None:
        await throttle.release(db, f"login@{client}")
    return _user_out(user), token


def open_session(db: AsyncSession, user_id: int, now: datetime) -> str:
    """Add a new session of ``user_id`` (committed by the caller); returns its token."""
    token = secrets.token_urlsafe(32)
    db.add(
        UserSession(
            token_hash=_token_hash(token),
            user_id=user_id,
            created_at=now,
            last_seen_at=now,
            expires_at=now + SESSION_LIFETIME,
        )
    )
    return token


@use_case
async def user_for_token(db: AsyncSession, *, token: str) -> UserOut | None:
    """The user a session token belongs to, or None (unknown, expired or logged out).

    Every request asks this, so the answer is kept per process for a while (``sessions``).
    """
    user = sessions.kept_user(db, token)
    if user is None:
        found = await _session_for_token(db, token)
        user, expires_at = found if found is not None else (None, None)
        sessions.keep(db, token, user, expires_at)
    return user


async def _session_for_token(db: AsyncSession, token: str) -> tuple[UserOut, datetime] | None:
    """The user and the session's expiry: one query for plain columns (no ORM objects), and a
    write only when the session expired or ``last_seen_at`` is older than ``SEEN_RESOLUTION``."""
    if not token or len(token) > 200:
        return None
    token_hash = _token_hash(token)
    row = (
        await db.execute(
            select(
                UserSession.expires_at,
                UserSession.last_seen_at,
                User.id,
                User.name,
                User.locale,
                User.is_admin,
                UserSettings.auto_confirm,
                UserSettings.time_zone,
            )
            .join(User, User.id == UserSession.user_id)
            .outerjoin(UserSettings, UserSettings.user_id == User.id)
            .where(UserSession.token_hash == token_hash, User.bot_level.is_(None))  # bots never log in
        )
    ).first()
    if row is None:
        return None
    expires_at, last_seen_at, user_id, name, locale, is_admin, auto_confirm, time_zone = row._tuple()
    now = utcnow()
    if expires_at <= now:
        await db.execute(delete(UserSession).where(UserSession.token_hash == token_hash))
        await db.commit()
        return None
    if now - last_seen_at >= SEEN_RESOLUTION:
        expires_at = now + SESSION_LIFETIME
        await db.execute(
            update(UserSession)
            .where(UserSession.token_hash == token_hash)
            .values(last_seen_at=now, expires_at=expires_at)
            .execution_options(synchronize_session=False)
        )
        await db.commit()
    user = UserOut(
        id=user_id,
        name=name,
        locale=locale,
        is_admin=is_admin,
        auto_confirm=bool(auto_confirm),
        time_zone=time_zone,
    )
    return user, expires_at


@use_case
async def log_out(db: AsyncSession, *, token: str) -> None:
    """End the session (a no-op for an unknown token)."""
    ended = await db.scalar(
        delete(UserSession).where(UserSession.token_hash == _token_hash(token)).returning(UserSession.user_id)
    )
    await db.commit()
    if ended is not None:
        await sessions.changed(ended)


@use_case
async def set_locale(db: AsyncSession, *, user_id: int, locale: str) -> UserOut:
    user = await db.get(User, user_id)
    if user is None:
        raise NotFound("no such user")
    user.locale = _check_locale(locale)
    await db.commit()
    await sessions.changed(user_id)
    return _user_out(user)


@use_case
async def get_user(db: AsyncSession, *, user_id: int) -> UserOut:
    user = await db.get(User, user_id)
    if user is None:
        raise NotFound("no such user")
    return _user_out(user)


def _user_out(user: User) -> UserOut:
    return UserOut(id=user.id, name=user.name, locale=user.locale, is_admin=user.is_admin)


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def _hash(password: str) -> str:
    # argon2 is deliberately slow (most of a second on a small server): in a thread, so the
    # event loop keeps serving everybody else meanwhile.
    return await asyncio.to_thread(_hasher.hash, password)


async def _verify(password_hash: str, password: str) -> bool:
    def verify() -> bool:
        try:
            return _hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False

    return await asyncio.to_thread(verify)


def _check_password(password: str, name: str) -> None:
    if len(password) < PASSWORD_MIN:
        raise InvalidInput(f"the password is too short: use at least {PASSWORD_MIN} characters")
    if len(password) > PASSWORD_MAX:
        raise InvalidInput(f"the password is too long: use at most {PASSWORD_MAX} characters")
    if password.casefold() == name.casefold():
        raise InvalidInput("the password must not be the name")
    if has_control_characters(password):
        raise InvalidInput("the password contains control characters")


def _check_locale(locale: str) -> str:
    if locale not in LOCALES:
        raise InvalidInput(f"the language must be one of {', '.join(LOCALES)}")
    return locale
