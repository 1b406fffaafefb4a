"""Bots are seats, never accounts (issue 19.13): no login, whoever set what, and no person
registers a name that reads like a bot's."""

from __future__ import annotations

import secrets

import pytest
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.bots.budget import Level
from app.db.models import User, UserSession
from app.db.types import utcnow
from app.services import accounts, admin, names
from app.services.errors import BadCredentials, Conflict, InvalidInput
from tests.conftest import TEST_PASSWORD, MakeUser


async def _bot(db: AsyncSession) -> User:
    bot = await db.scalar(select(User).where(User.name == "Bot easy 1"))
    assert bot is not None and bot.bot_level == "easy"
    return bot


async def test_an_administrator_cannot_give_a_bot_a_password(db: AsyncSession, make_user: MakeUser) -> None:
    boss = await make_user()
    await admin.create_admin(db, name=boss.name, password="x")
    bot = await _bot(db)
    with pytest.raises(Conflict, match="a bot cannot log in"):
        await admin.reset_password(db, admin_id=boss.id, user_id=bot.id)
    await db.rollback()
    with pytest.raises(Conflict, match="a bot cannot log in"):
        await admin.create_admin(db, name="Bot easy 1", password=TEST_PASSWORD)


async def test_a_bot_never_logs_in_even_with_a_password_in_its_row(db: AsyncSession) -> None:
    """Whoever writes a password into a bot's row (an old server, a hand in the database), the
    login refuses it like a wrong password, and a session made for it is nobody's."""
    bot = await _bot(db)
    saved = bot.password_hash
    await db.execute(
        update(User).where(User.id == bot.id).values(password_hash=await accounts._hash(TEST_PASSWORD))
    )
    await db.commit()
    try:
        with pytest.raises(BadCredentials, match="wrong name or password"):
            await accounts.log_in(db, name="Bot easy 1", password=TEST_PASSWORD)
    finally:
        await db.execute(update(User).where(User.id == bot.id).values(password_hash=saved))
        await db.commit()


async def test_a_session_row_of_a_bot_is_nobodys(db: AsyncSession) -> None:
    bot = await _bot(db)
    token = secrets.token_urlsafe(32)
    now = utcnow()
    db.add(
        UserSession(
            token_hash=accounts._token_hash(token),
            user_id=bot.id,
            created_at=now,
            last_seen_at=now,
            expires_at=now + accounts.SESSION_LIFETIME,
        )
    )
    await db.commit()
    assert await accounts.user_for_token(db, token=token) is None


@pytest.mark.parametrize(
    "name",
    [
        "Bot_easy_1",
        "Bot-easy-1",
        "Bot.easy.1",
        "bot_easy_1",
        "B0t_easy_1",
        "BOT.EASY.I",
        "Bot_normal_7",
        "bot-strong",
        "Botrandom",
        "Bot",
        "B0t",
        "Bot_12",
        "bot.0",
    ],
)
async def test_names_that_read_like_a_bot_are_refused(db: AsyncSession, name: str) -> None:
    with pytest.raises(InvalidInput, match="read like a bot"):
        await accounts.register(db, name=name, password=TEST_PASSWORD, locale="en")


@pytest.mark.parametrize("name", ["Bottle", "Botanist", "Robot", "Abbot", "bots_fan"])
def test_names_that_merely_start_with_bot_are_allowed(name: str) -> None:
    assert names.allowed(name) == name


def test_the_bot_levels_of_the_name_rules_are_the_bots() -> None:
    assert set(names.BOT_LEVELS) == {level.value for level in Level}
    assert names.reads_like_a_bot("Bot easy 1")
