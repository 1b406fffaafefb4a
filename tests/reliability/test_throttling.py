"""Login and registration throttling over real HTTP, with the real limits (issue 11.3).

The servers here keep the production limits and the production argon2 cost. Client
addresses come from ``X-Forwarded-For``, which uvicorn believes only from the addresses in
``FORWARDED_ALLOW_IPS`` (127.0.0.1 by default, so the test client is a trusted proxy here; the
second server trusts another address and sees every request as 127.0.0.1). The addresses
forwarded are documentation ranges (RFC 5737): header values only, no traffic goes there.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.models import Throttle
from app.services import accounts
from tests.support.client import PASSWORD, csrf_for, unique_name
from tests.support.db import fresh_database
from tests.support.server import Server

REAL_LIMITS = {
    "DRACHENHORT_REGISTRATIONS_PER_HOUR": "10",
    "DRACHENHORT_FAILED_LOGINS_PER_ADDRESS": str(accounts.FAILED_LOGINS_PER_ADDRESS),
}
OWNER, ATTACKER, PROBE = "198.51.100.7", "203.0.113.66", "192.0.2.77"


@pytest.fixture(scope="module")
def limited_server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(database_url, tmp_path_factory.mktemp("limited"), env=REAL_LIMITS) as running:
        yield running


def _cpu_seconds(process: psutil.Process) -> float:
    times = process.cpu_times()
    return float(times.user + times.system)


async def _login(
    client: httpx.AsyncClient, csrf: str, name: str, password: str, address: str
) -> httpx.Response:
    return await client.post(
        "/api/auth/login",
        json={"name": name, "password": password},
        headers={"X-CSRF-Token": csrf, "X-Forwarded-For": address},
    )


async def test_thirty_wrong_logins_at_once_check_five_passwords_and_leave_the_owner_in(
    limited_server: Server, engine: AsyncEngine
) -> None:
    """30 wrong passwords for one name sent at once: at most 5 are checked (counted before the
    hash, atomically); the owner logs in at once from its own address; from the guesser's
    address even the right password waits (a delay, told in Retry-After, not a lock)."""
    assert limited_server.process is not None
    server = psutil.Process(limited_server.process.pid)
    name = unique_name("owner")
    async with (
        httpx.AsyncClient(base_url=limited_server.base_url, timeout=120) as owner,
        httpx.AsyncClient(
            base_url=limited_server.base_url, timeout=120, limits=httpx.Limits(max_connections=30)
        ) as attacker,
    ):
        owner_csrf, csrf = await csrf_for(owner), await csrf_for(attacker)
        registered = await owner.post(
            "/api/auth/register",
            json={"name": name, "password": PASSWORD},
            headers={"X-CSRF-Token": owner_csrf, "X-Forwarded-For": OWNER},
        )
        assert registered.status_code == 201, registered.text
        owner.cookies.clear()  # the owner comes back later, logged out
        owner_csrf = await csrf_for(owner)
        # What one password check costs the server (production argon2), from a third address.
        before = _cpu_seconds(server)
        assert (await _login(attacker, csrf, name, "one wrong guess", PROBE)).status_code == 401
        one_check = _cpu_seconds(server) - before

        before = _cpu_seconds(server)
        answers = await asyncio.gather(
            *(_login(attacker, csrf, name, f"guess {i}", ATTACKER) for i in range(30))
        )
        spent = _cpu_seconds(server) - before
        statuses = Counter(a.status_code for a in answers)
        checked = statuses[401]
        assert checked <= accounts.LOGIN_PER_NAME.free and statuses[429] == 30 - checked, statuses
        assert all(int(a.headers["retry-after"]) >= 1 for a in answers if a.status_code == 429)
        async with engine.connect() as conn:
            counted = await conn.scalar(
                select(Throttle.attempts).where(Throttle.key == f"login:{name.casefold()}@{ATTACKER}")
            )
        assert counted == checked, "every password check was counted before it ran, and only those"
        # Thirty checks would cost thirty times one; the server spent what the few took.
        assert spent < (checked + 4) * one_check, (spent, one_check, checked)

        mine = await _login(owner, owner_csrf, name, PASSWORD, OWNER)
        assert mine.status_code == 200, mine.text
        assert mine.json()["user"]["name"] == name
        waiting = await _login(attacker, csrf, name, PASSWORD, ATTACKER)
        assert waiting.status_code == 429 and int(waiting.headers["retry-after"]) >= 1
        assert "wait" in waiting.json()["detail"]


def test_registrations_are_limited_per_address_whatever_an_untrusted_peer_forwards(tmp_path: Path) -> None:
    """Three registrations an hour from an address here; a peer that is not a trusted proxy
    cannot pass as many addresses by sending ``X-Forwarded-For``. Its own database: the wait
    it leaves on 127.0.0.1 would hold for every other test server."""
    env = {**REAL_LIMITS, "DRACHENHORT_REGISTRATIONS_PER_HOUR": "3", "FORWARDED_ALLOW_IPS": "127.0.0.2"}
    with (
        fresh_database(tmp_path) as database_url,
        Server(database_url, tmp_path / "untrusting", env=env) as server,
    ):
        asyncio.run(_register_four_times(server))


async def _register_four_times(server: Server) -> None:
    statuses = []
    for i in range(4):
        async with httpx.AsyncClient(base_url=server.base_url, timeout=120) as client:
            csrf = await csrf_for(client)
            answer = await client.post(
                "/api/auth/register",
                json={"name": unique_name(), "password": PASSWORD},
                headers={"X-CSRF-Token": csrf, "X-Forwarded-For": f"203.0.113.{i + 1}"},
            )
        statuses.append(answer.status_code)
    assert statuses == [201, 201, 201, 429], statuses
    assert int(answer.headers["retry-after"]) > 60
    assert "too many registrations" in answer.json()["detail"]
