"""A live stream lives no longer than its session (issue 19, finding 2).

A player holds both streams open (``/api/live`` and the pages' ``/sse/live``); their session
ends (logout, an administrator disables the account or resets its password) and within a
second both streams have ended, in the process that ended the session and in any other: the
same cookie gets nothing more than a visitor would.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest

from app.db.session import dispose, make_engine, make_sessionmaker
from app.services import accounts, admin
from app.web.security import SESSION_COOKIE
from tests.reliability.held import HeldStream
from tests.reliability.support import Actor, start_match
from tests.support.client import PASSWORD, unique_name
from tests.support.server import Server

pytestmark = pytest.mark.serial  # times how soon a stream ends: alone, not beside busy workers

ENDED_WITHIN_SECONDS = 1.0


async def _administrator(base_url: str, database_url: str) -> Actor:
    """An administrator logged in on ``base_url`` (made by the account services here)."""
    engine = make_engine(database_url)
    try:
        async with make_sessionmaker(engine)() as db:
            name = unique_name("admin")
            await admin.create_admin(db, name=name, password=PASSWORD)
            _, token = await accounts.log_in(db, name=name, password=PASSWORD)
    finally:
        await dispose(engine)
    client = httpx.AsyncClient(timeout=15.0, cookies={SESSION_COOKIE: token})
    body = (await client.get(f"{base_url}/api/auth/csrf")).json()
    return Actor(client, base_url, body["user"], body["csrf_token"])


async def _end_session(how: str, player: Actor, base_url: str, database_url: str) -> None:
    if how == "logout":
        answer = await player.post("/api/auth/logout", base=base_url)
        assert answer.status_code == 204, answer.text
        return
    boss = await _administrator(base_url, database_url)
    try:
        action = "disable" if how == "disabled" else "reset-password"
        answer = await boss.post(f"/admin/users/{player.id}/{action}", base=base_url)
        assert answer.status_code in (200, 303), answer.text
    finally:
        await boss.aclose()


async def _streams_end_with_the_session(
    how: str, watching: str, ending: str, database_url: str, actors: list[Actor]
) -> None:
    """``actors[1]`` watches on ``watching``; its session ends on ``ending``."""
    alice, bob = actors[:2]
    match_id = (await start_match([alice, bob], "toy"))["id"]
    streams = [
        HeldStream("api", bob.client, f"{watching}/api/live?match={match_id}"),
        HeldStream("pages", bob.client, f"{watching}/sse/live?m={match_id}&me=1"),
    ]
    try:
        for stream in streams:
            await stream.open()
        assert streams[0].pushes and streams[0].pushes[0]["viewer_seat"] == 1
        await _end_session(how, bob, ending, database_url)
        ended_at = time.monotonic()
        for stream in streams:
            try:
                await asyncio.wait_for(stream.ended.wait(), ENDED_WITHIN_SECONDS)
            except TimeoutError:
                raise AssertionError(f"{how}: the {stream.label} stream outlived its session") from None
        assert time.monotonic() - ended_at < ENDED_WITHIN_SECONDS
        again = (await bob.get(f"{watching}/api/matches/{match_id}")).json()
        assert again["viewer_seat"] is None, "the cookie still names a player"
    finally:
        for stream in streams:
            await stream.close()


@pytest.mark.parametrize("how", ["logout", "disabled", "password reset"])
async def test_a_stream_ends_within_a_second_of_its_session(
    how: str, rel_server: Server, database_url: str, actors: list[Actor]
) -> None:
    base = rel_server.base_url
    await _streams_end_with_the_session(how, base, base, database_url, actors)


@pytest.mark.postgres_only
@pytest.mark.parametrize("how", ["logout", "disabled"])
async def test_a_stream_in_another_process_ends_within_a_second_of_its_session(
    how: str, rel_server: Server, database_url: str, is_postgres: bool, actors: list[Actor], tmp_path: Path
) -> None:
    if not is_postgres:
        pytest.skip("needs PostgreSQL: SQLite runs one process, whose news stays in it")
    with Server(database_url, tmp_path / "other") as other:
        await _streams_end_with_the_session(how, other.base_url, rel_server.base_url, database_url, actors)
