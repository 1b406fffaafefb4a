"""Several hosts behind a real proxy on one PostgreSQL, and one of them cut off (issue 24, part 3).

Three app servers (real uvicorn), each in a network namespace of its own, behind Debian's
HAProxy configured as the README recommends; PostgreSQL reached over each host's own link
(``tests/reliability/netns.py``). Players make random legal moves through the proxy over the
JSON API; spectators and players hold ``/api/live`` streams through it, spread over the hosts.
Under that load:

1. one host is SIGKILLed;
2. another host's link to PostgreSQL is cut for 10 s, then brought back;
3. the proxy is restarted (every connection through it is dropped).

Then: every decision a client was told is committed is in the log exactly once, in order (and
the pending ones are as told), nothing else is; after each fault every stream is open again
through the proxy and shows at least the version that was latest when the fault ended within
5 s; the cut-off host answers 503 with Retry-After in seconds instead of hanging, and rejoins by
itself (serves again, its LISTEN connection hears news again).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url

from app.db.models import Match
from app.db.session import dispose, make_engine, make_sessionmaker
from tests.reliability.haproxy import HAPROXY, Proxy
from tests.reliability.load import Ledger, Load, wait_for_commits
from tests.reliability.netns import Network, netns_unavailable
from tests.reliability.support import Actor, check_consistency, new_actor, read_matches, start_match
from tests.reliability.watchers import Watchers
from tests.support.db import uses_postgres
from tests.support.server import ROOT, Server, free_port

pytestmark = [
    pytest.mark.slow,
    pytest.mark.serial,  # three hosts, one killed, one cut off, timed: alone, not beside busy workers
    pytest.mark.timeout(600),  # three hosts start at once: on a busy machine that alone takes a minute
    pytest.mark.postgres_only,
    pytest.mark.skipif(not uses_postgres(), reason="several hosts need a shared PostgreSQL"),
]

HOSTS = 3
MATCHES = 6
"""Matches played at once: Draco with three seats and with two, alternately. Long matches: the
load must not run out of them before the last fault (toy matches of two seats did end within
the ~300 commits of a fast run, and the load then stalled)."""
SPECTATORS = 2
"""Anonymous streams per match, beside one stream of a seated player."""
CUT_SECONDS = 10.0
CONVERGE_SECONDS = 5.0
OUTAGE_ANSWER_SECONDS = 10.0
"""A request to the cut-off host must be answered (503) within this; it hangs without a fix."""
APP_PORT = 8000


def _require_netns() -> None:
    reason = netns_unavailable()
    if reason is None and not os.path.exists(HAPROXY):
        reason = "HAProxy is not installed (apt-get install -y haproxy)"
    if reason is None:
        return
    if os.environ.get("DRACHENHORT_REQUIRE_NETNS") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture
def network() -> Iterator[Network]:
    _require_netns()
    with Network(HOSTS) as net:
        yield net


@pytest.fixture
def forwarder(network: Network) -> Iterator[None]:
    """PostgreSQL (127.0.0.1:5432 of the root namespace) on every host's back link."""
    server = make_url(os.environ["TEST_DATABASE_URL"])
    target = f"{server.host or '127.0.0.1'}:{server.port or 5432}"
    listen = [f"{h.database_side}:5432" for h in network.hosts]
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.reliability.forward", target, *listen],
        cwd=ROOT,
        stdout=subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == b"ready", "the forwarder did not start"
        yield
    finally:
        process.kill()
        process.wait(timeout=5)


@pytest.fixture
def proxy_port() -> int:
    return free_port()


@pytest.fixture
def hosts(
    network: Network, forwarder: None, database_url: str, tmp_path: Path, proxy_port: int
) -> Iterator[list[Server]]:
    """One uvicorn server per namespace, each on its own link to the database."""
    servers = []
    for i, links in enumerate(network.hosts):
        url = make_url(database_url).set(host=links.database_side, port=5432)
        env = {
            "DRACHENHORT_BASE_URL": f"http://127.0.0.1:{proxy_port}",
            "FORWARDED_ALLOW_IPS": links.proxy_side,
        }
        servers.append(
            Server(
                url.render_as_string(hide_password=False),
                tmp_path / f"host{i}",
                host=links.address,
                port=APP_PORT,
                env=env,
                wrapper=links.run(),
                ready_timeout=180,  # three hosts importing the app at once on two busy cores
            )
        )
    try:
        with ThreadPoolExecutor(HOSTS) as pool:
            list(pool.map(Server.start, servers))
        yield servers
    finally:
        for server in servers:
            if server.process is not None:
                server.process.kill()
                server.process.wait(timeout=5)
                server.process = None


@pytest.fixture
def proxy(hosts: list[Server], tmp_path: Path, proxy_port: int) -> Iterator[Proxy]:
    backends = [(f"host{i}", f"{server.host}:{server.port}") for i, server in enumerate(hosts)]
    with Proxy(tmp_path, proxy_port, backends) as running:
        yield running


ReadVersions = Callable[[list[int]], Awaitable[dict[int, int]]]


@pytest.fixture
async def read_versions(database_url: str) -> AsyncIterator[ReadVersions]:
    """Reads matches' latest public versions straight from the database."""
    engine = make_engine(database_url)

    async def read(match_ids: list[int]) -> dict[int, int]:
        async with make_sessionmaker(engine)() as db:
            rows = await db.execute(select(Match.id, Match.committed_version).where(Match.id.in_(match_ids)))
            return {match_id: version * 1000 for match_id, version in rows}

    yield read
    await dispose(engine)


async def test_hosts_behind_a_proxy_survive_a_kill_a_cut_link_and_a_proxy_restart(
    network: Network,
    hosts: list[Server],
    proxy: Proxy,
    database_url: str,
    read_versions: ReadVersions,
) -> None:
    actors = [await new_actor(proxy.url, database_url) for _ in range(3)]
    ledgers: list[Ledger] = []
    load = Load([proxy.url], retry_statuses=frozenset({502, 503, 504}))
    watchers = Watchers(proxy.url)
    spectators = [httpx.AsyncClient(limits=httpx.Limits(max_connections=100)) for _ in range(SPECTATORS)]
    tasks: list[asyncio.Task[None]] = []
    figures: dict[str, float] = {}
    try:
        for i in range(MATCHES):
            players = actors[:2] if i % 2 else actors
            view = await start_match(players, "draco")
            ledgers.append(Ledger(view["id"]))
            watchers.follow(players[-1].client, view["id"], f"player {players[-1].name}")
            for n, client in enumerate(spectators):
                watchers.follow(client, view["id"], f"spectator {n}")
        match_ids = [ledger.match_id for ledger in ledgers]
        for i, ledger in enumerate(ledgers):
            players = actors[:2] if i % 2 else actors
            tasks.append(asyncio.create_task(load.play(ledger, players, seed=i)))
        await watchers.converged(await read_versions(match_ids), time.monotonic(), CONVERGE_SECONDS)
        held_by = {host for w in watchers.watches for host in w.hosts}
        assert held_by == {f"host{i}" for i in range(HOSTS)}, f"streams not spread over the hosts: {held_by}"
        await wait_for_commits(load, 15, tasks=tasks)

        # 1. SIGKILL host 0.
        victim = hosts[0]
        assert victim.process is not None
        on_victim = watchers.opened("host0")
        assert on_victim, "no stream was held by the host to be killed"
        victim.process.send_signal(signal.SIGKILL)
        victim.process.wait(timeout=5)
        victim.process = None
        killed_at = time.monotonic()
        figures["kill"] = await watchers.converged(
            await read_versions(match_ids), killed_at, CONVERGE_SECONDS, reopen=on_victim
        )
        committed = load.tally.committed
        await wait_for_commits(load, committed + 10, tasks=tasks)

        # 2. Cut host 1 off the database for 10 s. A quiet match, decided once on another host
        # while the link is cut and not again, has a stream on the cut-off host: that stream
        # can only catch up when its host learns what it missed meanwhile.
        cut = hosts[1]
        quiet = await start_match(actors[:2], "toy")
        quiet_id = quiet["id"]
        match_ids.append(quiet_id)
        await _follow_on(watchers, spectators[0], quiet_id, "host1")
        network.cut(1)
        cut_at = time.monotonic()
        await asyncio.sleep(1)
        answer = await actors[0].post(
            f"/api/matches/{quiet_id}/confirm",
            {"expected_version": quiet["version"], "request_id": f"quiet{time.monotonic_ns()}"},
            base=hosts[2].base_url,
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["committed"]
        outage = await _answers_while_cut(cut, ledgers[0].match_id, cut_at + CUT_SECONDS - 1)
        await asyncio.sleep(max(0.0, cut_at + CUT_SECONDS - time.monotonic()))
        network.restore(1)
        restored_at = time.monotonic()
        serves_again = asyncio.create_task(_serves_again(cut, actors[0], ledgers[1].match_id, restored_at))
        figures["cut"] = await watchers.converged(
            await read_versions(match_ids), restored_at, CONVERGE_SECONDS
        )
        figures["rejoin"] = await serves_again
        await _hears_news_again(cut, actors[:2], hosts[2].base_url)
        committed = load.tally.committed
        await wait_for_commits(load, committed + 10, tasks=tasks)

        # 3. Restart the proxy.
        held = watchers.opened()
        assert len(held) == len(watchers.watches), "a stream was not open before the proxy restarted"
        restarted_at = time.monotonic()
        await asyncio.to_thread(proxy.restart)
        figures["proxy"] = await watchers.converged(
            await read_versions(match_ids), restarted_at, CONVERGE_SECONDS, reopen=held
        )
        await wait_for_commits(load, load.tally.committed + 10, tasks=tasks)
    finally:
        load.stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    try:
        for task in tasks:
            task.result()  # a player that gave up fails the test here
        stopped_at = time.monotonic()
        figures["end"] = await watchers.converged(
            await read_versions(match_ids), stopped_at, CONVERGE_SECONDS
        )
    finally:
        await watchers.stop()
        for client in spectators:
            await client.aclose()
        for actor in actors:
            await actor.aclose()

    assert load.tally.bad == []
    acknowledged, found = await _ledgers_in_database(database_url, ledgers)
    assert found == acknowledged
    served = {host for host, status in load.tally.served_by if status == 200}
    assert served == {f"host{i}" for i in range(HOSTS)}, f"the load reached only {served}"
    reconnected = sum(1 for w in watchers.watches if w.reconnects)
    print(
        f"\nseveral hosts: decisions acknowledged {acknowledged} (committed {load.tally.committed} times), "
        f"found in the log once each {found}; streams {len(watchers.watches)}, reconnected {reconnected} "
        f"({sum(w.reconnects for w in watchers.watches)} reconnections); converged within "
        + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in figures.items() if name != "rejoin")
        + f"; the cut-off host answered 503 in {min(outage):.2f}-{max(outage):.2f} s"
        f" ({len(outage)} requests) "
        f"and served again {figures['rejoin']:.2f} s after its link came back; retried answers "
        f"{dict(load.tally.retried)}, transport errors {sum(load.tally.transport_errors.values())}"
    )
    assert reconnected == len(watchers.watches), "a stream never had to reconnect: the faults missed it"
    assert "Traceback" not in hosts[1].log(), hosts[1].log()[-3000:]
    assert "Traceback" not in hosts[2].log(), hosts[2].log()[-3000:]


async def _answers_while_cut(host: Server, match_id: int, until: float) -> list[float]:
    """Ask the cut-off host directly (not through the proxy) until ``until``: each answer must be
    a 503 with Retry-After, and come in seconds. Returns how long each took."""
    took: list[float] = []
    async with httpx.AsyncClient(timeout=OUTAGE_ANSWER_SECONDS + 5) as client:
        while time.monotonic() < until - 1 or not took:
            started = time.monotonic()
            response = await client.get(f"{host.base_url}/api/matches/{match_id}")
            took.append(time.monotonic() - started)
            assert response.status_code == 503, f"{response.status_code} {response.text[:300]}"
            assert response.headers["retry-after"].isdigit()
            assert took[-1] < OUTAGE_ANSWER_SECONDS, f"the cut-off host took {took[-1]:.1f} s to answer"
            await asyncio.sleep(0.2)
    return took


async def _follow_on(watchers: Watchers, client: httpx.AsyncClient, match_id: int, host: str) -> None:
    """Open streams of ``match_id`` through the proxy until one of them is held by ``host``."""
    for n in range(12):
        watch = watchers.follow(client, match_id, f"quiet spectator {n}")
        deadline = time.monotonic() + 10
        while not watch.hosts:
            assert time.monotonic() < deadline, "a stream did not open through the proxy"
            await asyncio.sleep(0.02)
        if watch.hosts[0] == host:
            return
    raise AssertionError(f"the proxy never sent a stream to {host}")


async def _serves_again(host: Server, actor: Actor, match_id: int, since: float) -> float:
    """Seconds from ``since`` until the host whose link came back serves a match again (its pools
    refill by themselves)."""
    while True:
        response = await actor.get(f"/api/matches/{match_id}", base=host.base_url)
        if response.status_code == 200:
            return time.monotonic() - since
        assert response.status_code == 503, response.text
        assert time.monotonic() - since < 30, "the host did not serve again within 30 s"
        await asyncio.sleep(0.05)


async def _hears_news_again(host: Server, seats: list[Actor], elsewhere: str) -> None:
    """The rejoined host's LISTEN connection is back: a stream held on it directly hears of a
    decision taken on another host."""
    view = await start_match(seats, "toy")
    path = f"/api/matches/{view['id']}"
    async with (
        httpx.AsyncClient(timeout=httpx.Timeout(5.0, read=None)) as client,
        client.stream("GET", f"{host.base_url}/api/live?match={view['id']}") as stream,
    ):
        assert stream.status_code == 200
        lines = stream.aiter_lines()
        first = await _next_view(lines)
        answer = await seats[0].post(
            f"{path}/confirm",
            {"expected_version": view["version"], "request_id": f"rejoin{time.monotonic_ns()}"},
            base=elsewhere,
        )
        assert answer.status_code == 200, answer.text
        heard = await asyncio.wait_for(_next_view(lines), CONVERGE_SECONDS)
        assert heard > first


async def _next_view(lines: AsyncIterator[str]) -> int:
    event = ""
    async for line in lines:
        if line.startswith("event:"):
            event = line.split(":", 1)[1].strip()
        elif line.startswith("data:") and event == "view":
            return int(json.loads(line.split(":", 1)[1])["version"])
    raise AssertionError("the stream ended")


async def _ledgers_in_database(database_url: str, ledgers: list[Ledger]) -> tuple[int, int]:
    """How many decisions clients were told of (committed and pending), and how many of them the
    database holds exactly once in the place they were told; nothing else may be there."""
    stored = {m.id: m for m in await read_matches(database_url, [ledger.match_id for ledger in ledgers])}
    acknowledged = found = 0
    for ledger in ledgers:
        match = stored[ledger.match_id]
        logged = [(row.seat, row.move) for row in match.log]
        pending = [(p["seat"], p["move"]) for p in match.pending]
        acknowledged += len(ledger.log) + len(ledger.pending)
        found += sum(1 for told, kept in zip(ledger.log, logged, strict=False) if told == kept)
        found += sum(1 for told, kept in zip(ledger.pending, pending, strict=False) if told == kept)
        assert logged == ledger.log, f"match {ledger.match_id}: the log differs from what clients were told"
        assert pending == ledger.pending, (
            f"match {ledger.match_id}: pending decisions differ from what was told"
        )
    assert await check_consistency(database_url, stored) == len(ledgers)
    return acknowledged, found
