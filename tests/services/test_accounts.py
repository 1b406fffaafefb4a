"""Accounts: register, log in and out, sessions, the login rate limit."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from datetime import timedelta

import asyncpg
import pytest
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import Throttle, User, UserSession
from app.db.session import asyncpg_dsn, dispose, make_engine, make_sessionmaker
from app.db.types import utcnow
from app.services import accounts
from app.services.errors import BadCredentials, InvalidInput, NameTaken, RateLimited, Unavailable
from app.services.schemas import UserOut
from tests.conftest import TEST_PASSWORD, unique_name
from tests.support.db import uses_postgres


async def test_register_then_log_in_and_out(db: AsyncSession) -> None:
    name = unique_name("Ada")
    user = await accounts.register(db, name=name, password=TEST_PASSWORD, locale="de")
    assert user.name == name and user.locale == "de"

    same, token = await accounts.log_in(db, name=name.upper(), password=TEST_PASSWORD)
    assert same == user
    assert await accounts.user_for_token(db, token=token) == user

    await accounts.log_out(db, token=token)
    assert await accounts.user_for_token(db, token=token) is None


async def test_password_is_argon2id_and_token_only_hashed(db: AsyncSession) -> None:
    name = unique_name()
    user = await accounts.register(db, name=name, password=TEST_PASSWORD, locale="en")
    _, token = await accounts.log_in(db, name=name, password=TEST_PASSWORD)
    stored = await db.scalar(select(User.password_hash).where(User.id == user.id))
    assert stored is not None and stored.startswith("$argon2id$")
    hashes = (await db.scalars(select(UserSession.token_hash).where(UserSession.user_id == user.id))).all()
    assert hashes == [hashlib.sha256(token.encode()).hexdigest()]
    assert token not in hashes


async def test_first_user_is_administrator(db: AsyncSession) -> None:
    # The first person (the bot users of migration 0005 come before everyone and do not count).
    first = await db.scalar(select(User).where(User.bot_level.is_(None)).order_by(User.id).limit(1))
    if first is None:
        first_out = await accounts.register(db, name=unique_name(), password=TEST_PASSWORD, locale="en")
        assert first_out.is_admin
    else:
        assert first.is_admin
    later = await accounts.register(db, name=unique_name(), password=TEST_PASSWORD, locale="en")
    assert not later.is_admin


async def test_taken_name_case_insensitive(db: AsyncSession) -> None:
    name = unique_name("Bob")
    await accounts.register(db, name=name, password=TEST_PASSWORD, locale="en")
    with pytest.raises(NameTaken, match="already taken"):
        await accounts.register(db, name=name.upper(), password=TEST_PASSWORD, locale="en")


@pytest.mark.parametrize(
    ("name", "password", "reason"),
    [
        ("x", TEST_PASSWORD, "2 to 24 characters"),
        ("bad name!", TEST_PASSWORD, "letters, digits"),
        ("okname", "short", "too short"),
        ("okname", "y" * 201, "too long"),
        ("samesame", "SameSame", "must not be the name"),
    ],
)
async def test_register_refuses_bad_input(db: AsyncSession, name: str, password: str, reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason):
        await accounts.register(db, name=name, password=password, locale="en")


async def test_register_refuses_unknown_locale(db: AsyncSession) -> None:
    with pytest.raises(InvalidInput, match="language"):
        await accounts.register(db, name=unique_name(), password=TEST_PASSWORD, locale="fr")


async def test_bad_password_and_unknown_name(db: AsyncSession) -> None:
    name = unique_name()
    await accounts.register(db, name=name, password=TEST_PASSWORD, locale="en")
    with pytest.raises(BadCredentials, match="wrong name or password"):
        await accounts.log_in(db, name=name, password="not the password")
    with pytest.raises(BadCredentials, match="wrong name or password"):
        await accounts.log_in(db, name=unique_name("ghost"), password=TEST_PASSWORD)


async def test_failed_logins_are_rate_limited_per_name(db: AsyncSession) -> None:
    name, other = unique_name(), unique_name()
    for n in (name, other):
        await accounts.register(db, name=n, password=TEST_PASSWORD, locale="en")
    for _ in range(accounts.LOGIN_PER_NAME.free):
        with pytest.raises(BadCredentials):
            await accounts.log_in(db, name=name, password="wrong password", client="192.0.2.1")
    # Now even the right password waits from that address ...
    with pytest.raises(RateLimited, match="too many failed logins") as caught:
        await accounts.log_in(db, name=name, password=TEST_PASSWORD, client="192.0.2.1")
    assert caught.value.retry_after == 30
    # ... but not from another one, and other names not at all.
    user, _ = await accounts.log_in(db, name=name, password=TEST_PASSWORD, client="192.0.2.2")
    assert user.name == name
    user, _ = await accounts.log_in(db, name=other, password=TEST_PASSWORD, client="192.0.2.1")
    assert user.name == other


async def test_rate_limit_is_shared_between_sessions(sessionmaker: async_sessionmaker[AsyncSession]) -> None:
    """The count lives in the database, so another worker (another session) sees it."""
    name = unique_name()
    async with sessionmaker() as first:
        await accounts.register(first, name=name, password=TEST_PASSWORD, locale="en")
        for _ in range(accounts.LOGIN_PER_NAME.free):
            with pytest.raises(BadCredentials):
                await accounts.log_in(first, name=name, password="wrong password")
    async with sessionmaker() as second:
        with pytest.raises(RateLimited):
            await accounts.log_in(second, name=name, password=TEST_PASSWORD)


def test_the_waits_grow_and_stay_bounded() -> None:
    """Past the free attempts each wait doubles (30 s, 1 min, 2 min …), never beyond 15 minutes."""
    policy = accounts.LOGIN_PER_NAME
    waits = [policy.delay(n).total_seconds() for n in range(1, 20)]
    assert waits[:4] == [0, 0, 0, 0] and waits[4:8] == [30, 60, 120, 240]
    assert max(waits) == 15 * 60 and waits == sorted(waits)


async def test_one_address_guessing_many_names_waits_too(db: AsyncSession) -> None:
    names = [unique_name() for _ in range(4)]
    for n in names:
        await accounts.register(db, name=n, password=TEST_PASSWORD, locale="en")
    for n in names[:3]:
        with pytest.raises(BadCredentials):
            await accounts.log_in(
                db, name=n, password="wrong", client="192.0.2.9", failed_logins_per_address=3
            )
    with pytest.raises(RateLimited):
        await accounts.log_in(
            db, name=names[3], password="wrong", client="192.0.2.9", failed_logins_per_address=3
        )
    user, _ = await accounts.log_in(db, name=names[3], password=TEST_PASSWORD, client="192.0.2.10")
    assert user.name == names[3]


async def test_registrations_are_limited_per_address(db: AsyncSession) -> None:
    for _ in range(2):
        await accounts.register(
            db,
            name=unique_name(),
            password=TEST_PASSWORD,
            locale="en",
            client="192.0.2.20",
            registrations_per_hour=2,
        )
    with pytest.raises(RateLimited, match="too many registrations") as caught:
        await accounts.register(
            db,
            name=unique_name(),
            password=TEST_PASSWORD,
            locale="en",
            client="192.0.2.20",
            registrations_per_hour=2,
        )
    assert caught.value.retry_after == 30 * 60
    await accounts.register(
        db,
        name=unique_name(),
        password=TEST_PASSWORD,
        locale="en",
        client="192.0.2.21",
        registrations_per_hour=2,
    )


async def test_expired_session_is_refused(db: AsyncSession) -> None:
    name = unique_name()
    user = await accounts.register(db, name=name, password=TEST_PASSWORD, locale="en")
    _, token = await accounts.log_in(db, name=name, password=TEST_PASSWORD)
    await db.execute(update(UserSession).where(UserSession.user_id == user.id).values(expires_at=utcnow()))
    await db.commit()
    assert await accounts.user_for_token(db, token=token) is None
    assert await accounts.user_for_token(db, token="") is None


async def test_set_locale(db: AsyncSession) -> None:
    user = await accounts.register(db, name=unique_name(), password=TEST_PASSWORD, locale="en")
    assert (await accounts.set_locale(db, user_id=user.id, locale="de")).locale == "de"
    with pytest.raises(InvalidInput):
        await accounts.set_locale(db, user_id=user.id, locale="xx")


async def test_a_database_outage_is_unavailable_not_a_crash() -> None:
    """Nothing listens on port 9: the service answers 503 "please retry", not a stack trace."""
    engine = make_engine("postgresql+asyncpg://postgres@127.0.0.1:9/none")
    try:
        async with make_sessionmaker(engine)() as db:
            with pytest.raises(Unavailable, match="please retry") as caught:
                await accounts.user_for_token(db, token="whatever")
        assert caught.value.status == 503
    finally:
        await dispose(engine)


async def test_old_failed_attempts_stop_counting(db: AsyncSession) -> None:
    name = unique_name()
    await accounts.register(db, name=name, password=TEST_PASSWORD, locale="en")
    for _ in range(accounts.LOGIN_PER_NAME.free):
        with pytest.raises(BadCredentials):
            await accounts.log_in(db, name=name, password="wrong password")
    with pytest.raises(RateLimited):
        await accounts.log_in(db, name=name, password=TEST_PASSWORD)
    old = utcnow() - accounts.LOGIN_PER_NAME.forget_after - timedelta(seconds=1)
    key = f"login:{name.casefold()}@-"
    await db.execute(update(Throttle).where(Throttle.key == key).values(last_at=old, blocked_until=old))
    await db.commit()
    user, _ = await accounts.log_in(db, name=name, password=TEST_PASSWORD)
    assert user.name == name
    assert (await db.get(Throttle, key, populate_existing=True)).attempts == 0  # type: ignore[union-attr]


@pytest.mark.postgres_only
@pytest.mark.skipif(not uses_postgres(), reason="kills PostgreSQL backends (TEST_DATABASE_URL)")
async def test_a_killed_connection_is_unavailable_then_recovers(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        name = unique_name()
        async with make_sessionmaker(engine)() as db:
            await accounts.register(db, name=name, password=TEST_PASSWORD, locale="en")
            await db.execute(select(1))  # this session now holds a connection ...
            admin = await asyncpg.connect(asyncpg_dsn(database_url))
            try:  # ... which PostgreSQL drops, as in a restart
                await admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            finally:
                await admin.close()
            with pytest.raises(Unavailable, match="please retry"):
                await accounts.user_for_token(db, token="whatever")
        async with make_sessionmaker(engine)() as db:  # the pool recovers by itself
            user, _ = await accounts.log_in(db, name=name, password=TEST_PASSWORD)
            assert user.name == name
    finally:
        await dispose(engine)


async def test_control_characters_in_a_login_name_are_just_wrong(db: AsyncSession) -> None:
    name = unique_name()
    await accounts.register(db, name=name, password=TEST_PASSWORD, locale="en")
    for login, password in [("\x00admin", TEST_PASSWORD), ("\ud800x", TEST_PASSWORD), (name, "\ud800" * 9)]:
        with pytest.raises(BadCredentials, match="wrong name or password"):
            await accounts.log_in(db, name=login, password=password)
    with pytest.raises(InvalidInput):
        await accounts.register(db, name="nul\x00name", password=TEST_PASSWORD, locale="en")
    with pytest.raises(InvalidInput, match="control characters"):
        await accounts.register(db, name=unique_name(), password="lone \ud800 surrogate", locale="en")


async def test_registrations_at_the_same_moment_within_the_limit_all_pass(
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    """A request that computed its time, then waited for the throttle's row, is not taken for
    blocked (the bench saw 429s for simultaneous registrations from one address)."""
    client = f"10.9.{secrets.randbelow(250)}.{secrets.randbelow(250)}"

    async def register_one() -> UserOut:
        async with sessionmaker() as db:
            return await accounts.register(
                db, name=unique_name(), password=TEST_PASSWORD, locale="en", client=client,
                registrations_per_hour=20,
            )  # fmt: skip

    made = await asyncio.gather(*(register_one() for _ in range(8)))
    assert len({u.id for u in made}) == 8
