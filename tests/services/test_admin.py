"""Hosting: administrators, aborting matches, disabling accounts, password resets, settings."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import UserSession
from app.services import accounts, admin
from app.services.errors import BadCredentials, Conflict, Forbidden, InvalidInput
from tests.conftest import TEST_PASSWORD, MakeUser, unique_name
from tests.services.async_support import load, mail_settings, settle, smtp_sink
from tests.support.db import start_toy_match


async def test_create_admin_registers_or_promotes(db: AsyncSession, make_user: MakeUser) -> None:
    name = unique_name("boss")
    boss = await admin.create_admin(db, name=name, password=TEST_PASSWORD)
    assert boss.is_admin and boss.name == name
    user, _ = await accounts.log_in(db, name=name, password=TEST_PASSWORD)
    assert user.is_admin
    plain = await make_user()
    assert (await admin.create_admin(db, name=plain.name, password="ignored-for-existing")).is_admin


async def test_only_admins_administer(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    with pytest.raises(Forbidden, match="only an administrator"):
        await admin.abort_match(db, admin_id=bob.id, match_id=match_id)
    with pytest.raises(Forbidden):
        await admin.set_disabled(db, admin_id=bob.id, user_id=alice.id, disabled=True)
    with pytest.raises(Forbidden):
        await admin.reset_password(db, admin_id=bob.id, user_id=alice.id)


async def test_an_admin_aborts_a_running_match(db: AsyncSession, make_user: MakeUser) -> None:
    boss, alice, bob = await make_user(), await make_user(), await make_user()
    await admin.create_admin(db, name=boss.name, password="x")
    match_id = await start_toy_match(db, [alice, bob])
    assert (match_id, "toy", "active") in await admin.running_matches(db, admin_id=boss.id)
    await admin.abort_match(db, admin_id=boss.id, match_id=match_id)
    assert (await load(db, match_id)).status == "aborted"
    with pytest.raises(Conflict, match="only an open or running match"):
        await admin.abort_match(db, admin_id=boss.id, match_id=match_id)


async def test_disabling_an_account_ends_its_sessions(db: AsyncSession, make_user: MakeUser) -> None:
    boss, alice = await make_user(), await make_user()
    await admin.create_admin(db, name=boss.name, password="x")
    await accounts.log_in(db, name=alice.name, password=TEST_PASSWORD)
    await admin.set_disabled(db, admin_id=boss.id, user_id=alice.id, disabled=True)
    assert await admin.is_disabled(db, user_id=alice.id)
    sessions = await db.scalar(select(func.count()).where(UserSession.user_id == alice.id))
    assert sessions == 0
    with pytest.raises(Forbidden, match="disabled"):
        await accounts.log_in(db, name=alice.name, password=TEST_PASSWORD)
    # Looked up by name: the first page of everybody need not hold them on a used database.
    listed = {u.id: u for u in await admin.list_users(db, admin_id=boss.id, starting=alice.name)}
    listed |= {u.id: u for u in await admin.list_users(db, admin_id=boss.id, starting=boss.name)}
    assert listed[alice.id].disabled and not listed[boss.id].disabled
    with pytest.raises(Conflict, match="your own account"):
        await admin.set_disabled(db, admin_id=boss.id, user_id=boss.id, disabled=True)
    await admin.set_disabled(db, admin_id=boss.id, user_id=alice.id, disabled=False)
    assert not await admin.is_disabled(db, user_id=alice.id)
    await accounts.log_in(db, name=alice.name, password=TEST_PASSWORD)


async def test_an_admin_resets_a_password(db: AsyncSession, make_user: MakeUser) -> None:
    boss, alice = await make_user(), await make_user()
    await admin.create_admin(db, name=boss.name, password="x")
    password = await admin.reset_password(db, admin_id=boss.id, user_id=alice.id)
    with pytest.raises(BadCredentials):
        await accounts.log_in(db, name=alice.name, password=TEST_PASSWORD)
    user, _ = await accounts.log_in(db, name=alice.name, password=password)
    assert user.id == alice.id


async def test_a_forgotten_password_is_reset_by_mail(
    db: AsyncSession, make_user: MakeUser, database_url: str
) -> None:
    alice = await make_user()
    with smtp_sink() as (sink, port):
        settings = mail_settings(database_url, port)
        await admin.update_settings(
            db, settings, user_id=alice.id, email="alice@example.org", mail_opt_out=True
        )
        await admin.request_password_reset(db, settings, name="nobody-" + alice.name)  # same answer
        await admin.request_password_reset(db, settings, name=alice.name.upper())
        await settle()
        [message] = sink.to("alice@example.org")  # opting out of notifications does not matter here
        found = re.search(r"/password/reset/(\S+)", message.get_content())
        assert found is not None
        token = found.group(1)
    with pytest.raises(InvalidInput, match="not valid"):
        await admin.reset_password_with_token(db, token=token + "x", password="a new password")
    with pytest.raises(InvalidInput, match="too short"):
        await admin.reset_password_with_token(db, token=token, password="short")
    await db.rollback()
    await admin.reset_password_with_token(db, token=token, password="a new password")
    user, _ = await accounts.log_in(db, name=alice.name, password="a new password")
    assert user.id == alice.id
    with pytest.raises(InvalidInput, match="not valid"):
        await admin.reset_password_with_token(db, token=token, password="another password")


async def test_reset_mails_are_limited_per_account(
    db: AsyncSession, make_user: MakeUser, database_url: str
) -> None:
    alice = await make_user()
    with smtp_sink() as (sink, port):
        settings = mail_settings(database_url, port)
        await admin.update_settings(
            db, settings, user_id=alice.id, email="flood@example.org", mail_opt_out=False
        )
        for _ in range(admin.RESETS_PER_LIFETIME + 2):
            await admin.request_password_reset(db, settings, name=alice.name)  # never an error
        await settle()
        assert len(sink.to("flood@example.org")) == admin.RESETS_PER_LIFETIME


async def test_without_smtp_a_reset_by_mail_is_refused(
    db: AsyncSession, make_user: MakeUser, database_url: str
) -> None:
    alice = await make_user()
    settings = mail_settings(database_url, 1).model_copy(update={"smtp_host": None})
    with pytest.raises(Conflict, match="cannot send mail"):
        await admin.request_password_reset(db, settings, name=alice.name)


async def test_settings_keep_an_address_and_the_opt_out(
    db: AsyncSession, make_user: MakeUser, database_url: str
) -> None:
    alice = await make_user()
    settings = mail_settings(database_url, 1)
    mine = await admin.get_settings(db, settings, user_id=alice.id)
    assert (mine.email, mine.mail_opt_out, mine.vacation_days_left) == (
        None,
        False,
        mine.vacation_days_per_year,
    )
    with pytest.raises(InvalidInput, match="e-mail address"):
        await admin.update_settings(
            db, settings, user_id=alice.id, email="not an address", mail_opt_out=False
        )
    mine = await admin.update_settings(db, settings, user_id=alice.id, email=" a@b.org ", mail_opt_out=True)
    assert (mine.email, mine.mail_opt_out, mine.mail_available) == ("a@b.org", True, True)


async def _mailed_reset_links(db: AsyncSession, database_url: str, name: str, count: int) -> list[str]:
    with smtp_sink() as (sink, port):
        settings = mail_settings(database_url, port)
        user = await accounts.log_in(db, name=name, password=TEST_PASSWORD)
        await admin.update_settings(
            db, settings, user_id=user[0].id, email=f"{name}@example.org", mail_opt_out=False
        )
        for _ in range(count):
            await admin.request_password_reset(db, settings, name=name)
        await settle()
        mails = sink.to(f"{name}@example.org")
    tokens = [re.search(r"/password/reset/(\S+)", m.get_content()) for m in mails]
    assert len(tokens) == count
    return [t.group(1) for t in tokens if t is not None]


async def test_using_one_reset_link_ends_the_others_and_every_session(
    db: AsyncSession, make_user: MakeUser, database_url: str
) -> None:
    """Issue 19.11: two links mailed, one used: the other no longer works, nor any session."""
    alice = await make_user()
    first, second = await _mailed_reset_links(db, database_url, alice.name, 2)
    _, token = await accounts.log_in(db, name=alice.name, password=TEST_PASSWORD)
    await admin.reset_password_with_token(db, token=second, password="the chosen password")
    with pytest.raises(InvalidInput, match="not valid"):
        await admin.reset_password_with_token(db, token=first, password="the thief's password")
    await db.rollback()
    assert await accounts.user_for_token(db, token=token) is None
    assert (await accounts.log_in(db, name=alice.name, password="the chosen password"))[0].id == alice.id


async def test_an_administrators_reset_ends_the_mailed_links(
    db: AsyncSession, make_user: MakeUser, database_url: str
) -> None:
    boss, alice = await make_user(), await make_user()
    await admin.create_admin(db, name=boss.name, password="x")
    [link] = await _mailed_reset_links(db, database_url, alice.name, 1)
    password = await admin.reset_password(db, admin_id=boss.id, user_id=alice.id)
    with pytest.raises(InvalidInput, match="not valid"):
        await admin.reset_password_with_token(db, token=link, password="the thief's password")
    await db.rollback()
    assert (await accounts.log_in(db, name=alice.name, password=password))[0].id == alice.id
