"""Shared fixtures: one fresh migrated database per test run, engines, sessions, the toy game.

PostgreSQL when ``TEST_DATABASE_URL`` is set (a uniquely named database, dropped at the end),
SQLite in a temp file otherwise.

- ``database_url``: the migrated database's URL (session scope)
- ``engine``: an ``AsyncEngine`` on it, disposed after the test
- ``sessionmaker``: an ``async_sessionmaker`` on that engine (for tests that need two sessions)
- ``db``: one ``AsyncSession``
- ``make_user``: registers a user with a unique name and returns its ``UserOut``

Always on: the toy game is registered, and argon2 runs with minimal cost in this process
(a server subprocess keeps the production cost).

``--serial=skip`` leaves out the tests marked ``serial``, ``--serial=only`` runs just those:
``make test`` runs the rest on several pytest-xdist workers, then these alone (see the Makefile).
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import pytest
from argon2 import PasswordHasher
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.db.session import dispose, make_engine, make_sessionmaker
from app.engine.registry import register, unregister
from app.services import accounts
from app.services.schemas import UserOut
from tests.support.db import fresh_database, uses_postgres
from tests.support.toygame import TOY

TEST_PASSWORD = "correct horse battery"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--serial",
        choices=("all", "skip", "only"),
        default="all",
        help="the tests marked serial: run them with the rest (all), leave them out (skip) or run only them",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--serial``: deselect (not skip) the other part, so that no skip hides a test."""
    wanted = config.getoption("serial")
    if wanted == "all":
        return
    keep, dropped = [], []
    for item in items:
        serial = item.get_closest_marker("serial") is not None
        (keep if serial == (wanted == "only") else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


@pytest.fixture(scope="session", autouse=True)
def toy_game() -> Iterator[None]:
    """The toy game (hidden hands, draw on confirm) is registered for every test."""
    register(TOY)
    yield
    unregister(TOY.slug)


@pytest.fixture(scope="session", autouse=True)
def fast_password_hashing() -> Iterator[None]:
    """argon2id with minimal cost: the production profile takes most of a second per hash.

    Hashes made with the production profile still verify (the parameters live in the hash).
    """
    saved = accounts._hasher
    accounts._hasher = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    yield
    accounts._hasher = saved


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with fresh_database(tmp_path_factory.mktemp("db")) as url:
        yield url


@pytest.fixture(scope="session")
def is_postgres() -> bool:
    return uses_postgres()


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    engine = make_engine(database_url)
    yield engine
    await dispose(engine)


@pytest.fixture
def sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return make_sessionmaker(engine)


@pytest.fixture
async def db(sessionmaker: async_sessionmaker[AsyncSession]) -> AsyncIterator[AsyncSession]:
    async with sessionmaker() as session:
        yield session


def unique_name(prefix: str = "u") -> str:
    """A user name no other test has taken (the database lives for the whole run)."""
    return f"{prefix}{secrets.token_hex(4)}"


MakeUser = Callable[..., Awaitable[UserOut]]


@pytest.fixture
def make_user(db: AsyncSession) -> MakeUser:
    async def make(name: str | None = None, locale: str = "en") -> UserOut:
        return await accounts.register(db, name=name or unique_name(), password=TEST_PASSWORD, locale=locale)

    return make
