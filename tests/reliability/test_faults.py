"""Faults under load against real uvicorn processes and a real database (issue 7, "Faults").

- a worker SIGKILLed in the middle of load: every decision answered as committed is in the
  log exactly once, pending decisions are intact, the other worker carries on;
- PostgreSQL restarted in the middle of load: the app recovers by itself, clients get 503 with
  Retry-After (never 500), nothing committed is lost;
- after each, every match rebuilt from its log equals its stored snapshot, every step replays.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path

import httpx
import pytest

from app.db.migrate import upgrade_to_head
from tests.reliability.load import Ledger, Load, run_until, wait_for_commits
from tests.reliability.pgcluster import PrivateCluster, pg_bin_dir
from tests.reliability.support import Actor, check_consistency, new_actor, read_matches, start_match
from tests.support.db import uses_postgres
from tests.support.server import Server

pytestmark = [pytest.mark.slow, pytest.mark.serial]  # kills and restarts under load: alone
MATCHES = 8
"""Matches played at once; half toy game, half Draco (three seats)."""


Started = tuple[list[Actor], list[Ledger], list[asyncio.Task[None]]]


async def _start_load(base_url: str, database_url: str, load: Load) -> Started:
    actors = [await new_actor(base_url, database_url) for _ in range(3)]
    ledgers, tasks = [], []
    for i in range(MATCHES):
        players = actors[:2] if i % 2 else actors
        view = await start_match(players, "toy" if i % 2 else "draco")
        ledger = Ledger(view["id"])
        ledgers.append(ledger)
        tasks.append(asyncio.create_task(load.play(ledger, players, seed=i)))
    return actors, ledgers, tasks


async def _assert_ledgers_match_database(database_url: str, ledgers: list[Ledger]) -> None:
    """Exactly the answered decisions are logged, once each, in order; pending ones are intact."""
    stored = {m.id: m for m in await read_matches(database_url, [ledger.match_id for ledger in ledgers])}
    for ledger in ledgers:
        match = stored[ledger.match_id]
        logged = [(row.seat, row.move) for row in match.log]
        assert logged == ledger.log, f"match {ledger.match_id}: the log differs from what clients were told"
        assert [(p["seat"], p["move"]) for p in match.pending] == ledger.pending, (
            f"match {ledger.match_id}: pending decisions differ from what their player was told"
        )
    assert await check_consistency(database_url, stored) == len(ledgers)


async def test_a_worker_killed_mid_load_loses_nothing_and_the_other_carries_on(
    database_url: str, tmp_path: Path
) -> None:
    """SIGKILL one of two workers while twelve matches are being played through both."""
    with Server(database_url, tmp_path / "a") as victim, Server(database_url, tmp_path / "b") as survivor:
        load = Load([victim.base_url, survivor.base_url])
        actors, ledgers, tasks = await _start_load(victim.base_url, database_url, load)
        try:
            await wait_for_commits(load, 15)
            assert victim.process is not None
            served_before = load.tally.count(victim.base_url, 200)
            victim.process.send_signal(signal.SIGKILL)
            victim.process.wait(timeout=5)
            victim.process = None
            killed_at = time.monotonic()
            survivor_ok_before = load.tally.count(survivor.base_url, 200)
            await run_until(load, tasks, 2.0)
        finally:
            load.stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            for actor in actors:
                await actor.aclose()
        assert served_before > 0, "the killed worker served nothing before it died"
        assert load.tally.bad == []
        assert not [s for s, status in load.tally.statuses if s == survivor.base_url and status >= 500]
        commits_after = sum(1 for ledger in ledgers for t in ledger.committed_at if t > killed_at)
        assert commits_after > 0, "nothing was committed after the kill"
        assert load.tally.count(survivor.base_url, 200) > survivor_ok_before
        await _assert_ledgers_match_database(database_url, ledgers)
        assert "Traceback" not in survivor.log(), survivor.log()[-3000:]


@pytest.mark.postgres_only
@pytest.mark.skipif(not uses_postgres(), reason="restarts a PostgreSQL server: set TEST_DATABASE_URL")
@pytest.mark.skipif(pg_bin_dir() is None, reason="needs the PostgreSQL server binaries (initdb, pg_ctl)")
async def test_postgres_restart_mid_load_answers_503_and_recovers_by_itself(tmp_path: Path) -> None:
    """Stop PostgreSQL for a second under load, start it again: 503s, then everything goes on."""
    with PrivateCluster() as cluster:
        await asyncio.to_thread(upgrade_to_head, cluster.url)
        with Server(cluster.url, tmp_path / "server") as server:
            load = Load([server.base_url])
            actors, ledgers, tasks = await _start_load(server.base_url, cluster.url, load)
            try:
                await wait_for_commits(load, 15)
                await asyncio.to_thread(cluster.restart, 1.0)
                restarted_at = time.monotonic()
                await wait_for_commits(load, load.tally.committed + 2 * MATCHES)
                await run_until(load, tasks, 0.5)
                # The live-update listener reconnects by itself too: a nudge still arrives.
                await _assert_a_nudge_arrives(server.base_url, actors)
            finally:
                load.stop.set()
                await asyncio.gather(*tasks, return_exceptions=True)
                for actor in actors:
                    await actor.aclose()
            assert load.tally.bad == []
            statuses = {status for _, status in load.tally.statuses}
            assert 500 not in statuses
            assert load.tally.answers_503, "the outage was never seen: no 503 answered"
            for answer in load.tally.answers_503:
                assert answer.headers["retry-after"].isdigit()
                assert "retry" in answer.json()["detail"]
            assert any(t > restarted_at for ledger in ledgers for t in ledger.committed_at)
            await _assert_ledgers_match_database(cluster.url, ledgers)
            await check_consistency(cluster.url)


async def _assert_a_nudge_arrives(base_url: str, actors: list[Actor]) -> None:
    """After the restart a committed decision still reaches an SSE viewer (LISTEN reconnected)."""
    seats = actors[:2]
    view = await start_match(seats, "toy")
    ready = asyncio.Event()

    async def first_nudge() -> str:
        async with (
            httpx.AsyncClient(timeout=10) as client,
            client.stream("GET", f"{base_url}/api/live?match={view['id']}") as response,
        ):
            ready.set()
            views = 0
            async for line in response.aiter_lines():
                if line.startswith("data:"):
                    views += 1
                    if views > 1:  # the first is the view at connecting
                        return line
        raise AssertionError("the stream ended")

    deadline = time.monotonic() + 10
    while True:  # the listener reconnects with a growing pause: retry until a nudge gets through
        task = asyncio.create_task(first_nudge())
        await asyncio.wait_for(ready.wait(), 5)
        await asyncio.sleep(0.2)
        fresh = (await seats[0].get(f"/api/matches/{view['id']}")).json()
        answer = await seats[0].post(
            f"/api/matches/{view['id']}/confirm",
            {"expected_version": fresh["version"], "request_id": f"nudge{int(time.monotonic() * 1000)}"},
        )
        assert answer.status_code == 200, answer.text
        done, _ = await asyncio.wait({task}, timeout=1.5)
        if done:
            assert json.loads(task.result()[5:])["id"] == view["id"]
            return
        task.cancel()
        ready.clear()
        seats = seats[::-1]
        assert time.monotonic() < deadline, "no SSE nudge arrived after the database restart"
