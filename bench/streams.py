"""Many open live streams on one worker: memory per idle stream, database connections, fan-out.

A real uvicorn (one worker, PostgreSQL) serves 1,000 running Draco matches of 250 accounts.
Client processes (raw asyncio sockets, ``--clients`` of them) open ``--streams`` live
streams, half the JSON clients' ``/api/live?match=ID``, half the pages' ``/sse/live?m=ID&me=1``,
each under one of the accounts (at most 40 an account: the cap is 50): ``--hot`` of them watch
one match, the others are spread over the other 999 and stay idle. Then a player of the hot
match commits ``--commits`` turns through the API, a few seconds apart, and every hot stream's
arrival of each new version is timed (CLOCK_MONOTONIC is shared by the processes). Printed:
the worker's memory before and with the streams (per stream), the database connections of
the run's database while the streams are open and idle, and after they closed, the open and
close times, the fan-out p50/p99/max of the commits to the hot streams, and the worker's CPU
per commit with its pushes (the latencies wait for a CPU on a shared machine; this does not).

    .venv/bin/python -m bench.streams [--streams 10000] [--hot 1000] [--clients 4]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import secrets
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]

ACCOUNTS = 250
MATCHES = 1000
SEATS = 3
OPEN_AT_ONCE = 100
"""Streams a client process opens concurrently."""


def _raise_fd_limit() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# --- the client processes -----------------------------------------------------------------


async def _client(spec: dict[str, Any]) -> None:
    """Open the streams of ``spec``, say so, hold them until told, then report the arrivals."""
    port = spec["port"]
    streams: list[dict[str, Any]] = spec["streams"]
    arrivals: list[list[float]] = [[] for _ in streams]
    writers: list[asyncio.StreamWriter] = []
    failures: list[str] = []
    opened = asyncio.Semaphore(OPEN_AT_ONCE)

    async def hold(i: int, stream: dict[str, Any]) -> None:
        async with opened:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.write(
                    f"GET {stream['path']} HTTP/1.1\r\nHost: bench\r\nCookie: {stream['cookie']}\r\n"
                    "Accept: text/event-stream\r\n\r\n".encode()
                )
                head = await reader.readuntil(b"\r\n\r\n")
                if not head.startswith(b"HTTP/1.1 200"):
                    failures.append(head.split(b"\r\n", 1)[0].decode())
                    writer.close()
                    return
                # The first event (view / hello) says the stream is live.
                await reader.readuntil(b"\r\n\r\n")
                writers.append(writer)
            except (OSError, asyncio.IncompleteReadError) as error:
                failures.append(repr(error))
                return
        while True:
            try:
                chunk = await reader.read(65536)
            except OSError:
                return
            if not chunk:
                return
            if b"event: view" in chunk or b"event: area" in chunk:
                arrivals[i].append(time.monotonic())

    started = time.monotonic()
    tasks = [asyncio.create_task(hold(i, s)) for i, s in enumerate(streams)]
    while len(writers) + len(failures) < len(streams):
        await asyncio.sleep(0.05)
    print(json.dumps({"open": len(writers), "failures": failures[:5], "failed": len(failures),
                      "seconds": time.monotonic() - started}), flush=True)  # fmt: skip
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.readline)  # "close"
    closing = time.monotonic()
    for writer in writers:
        writer.close()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    hot = [a for a, s in zip(arrivals, streams, strict=True) if s["hot"]]
    print(json.dumps({"hot": hot, "close_seconds": time.monotonic() - closing}), flush=True)


# --- the driver ---------------------------------------------------------------------------


async def _setup(database_url: str) -> tuple[list[tuple[int, str]], list[int], list[list[int]]]:
    """Accounts (id, session token) and running matches with their players, via the services."""
    from argon2 import PasswordHasher

    from app.db.session import dispose, make_engine, make_sessionmaker
    from app.services import accounts, lobby

    accounts._hasher = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)  # bench only
    engine = make_engine(database_url)
    made: list[tuple[int, str]] = []
    matches: list[int] = []
    players: list[list[int]] = []
    try:
        async with make_sessionmaker(engine)() as db:
            names = []
            for n in range(ACCOUNTS):
                name = f"s{n:04d}x{secrets.token_hex(2)}"
                await accounts.register(db, name=name, password="bench-password-1", locale="en")
                user, token = await accounts.log_in(db, name=name, password="bench-password-1")
                made.append((user.id, token))
                names.append(name)
            for m in range(MATCHES):
                seated = [made[(m * SEATS + k) % ACCOUNTS][0] for k in range(SEATS)]
                summary = await lobby.create_match(
                    db, creator_id=seated[0], game="draco", seats=SEATS, options={}, invite=[],
                    fixed_order=True,
                )  # fmt: skip
                for user_id in seated[1:]:
                    await lobby.join_match(db, match_id=summary.id, user_id=user_id, invite_token=None)
                matches.append(summary.id)
                players.append(seated)
    finally:
        await dispose(engine)
    return made, matches, players


def _worker(master: psutil.Process) -> psutil.Process:
    children = master.children(recursive=True)
    return children[0] if children else master


async def _db_connections(database: str) -> int:
    from bench import pgstats

    conn = await pgstats.connect()
    try:
        count: int = await conn.fetchval("SELECT count(*) FROM pg_stat_activity WHERE datname = $1", database)
        return count
    finally:
        await conn.close()


async def _commit(client: httpx.AsyncClient, base: str, match_id: int, cookies: dict[int, str]) -> int:
    """The acting player's whole turn (move and confirm); the new version."""
    for user_id, token in cookies.items():
        client.cookies.set("drachenhort_session", token)
        view = (await client.get(f"{base}/api/matches/{match_id}")).json()
        if view["viewer_seat"] not in view["to_act"]:
            continue
        csrf = (await client.get(f"{base}/api/auth/csrf")).json()["csrf_token"]
        headers = {"X-CSRF-Token": csrf}
        body = {"expected_version": view["version"], "request_id": secrets.token_hex(8), "confirm": True}
        while True:
            move = "confirm" if "confirm" in view["legal"] else random.choice(view["legal"])
            path = "confirm" if move == "confirm" else "moves"
            answer = await client.post(
                f"{base}/api/matches/{match_id}/{path}", json={**body, "move": move}, headers=headers
            )
            answer.raise_for_status()
            result = answer.json()
            if result["committed"]:
                return int(result["version"])
            view = result["match"]
            body = {
                "expected_version": result["version"],
                "request_id": secrets.token_hex(8),
                "confirm": True,
            }
        _ = user_id
    raise AssertionError("nobody is to act in the hot match")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def main(streams: int, hot: int, clients: int, commits: int) -> None:
    from bench import pgstats
    from bench.appserver import AppServer

    _raise_fd_limit()
    database = f"bench_streams_{secrets.token_hex(3)}"
    log_dir = Path("/tmp") / "drachenhort-bench"
    async with AppServer(database, 1, log_dir) as server:
        base = f"http://127.0.0.1:{server.port}"
        accounts, matches, players = await _setup(pgstats.sqlalchemy_url(database))
        print(f"{ACCOUNTS} accounts, {len(matches)} running Draco matches ready")
        worker = _worker(server.master())
        hot_match, others = matches[0], matches[1:]
        # Who holds which stream: at most 40 streams an account, the hot match's players none.
        hot_players = set(players[0])
        watchers = [a for a in accounts if a[0] not in hot_players]
        plan: list[dict[str, Any]] = []
        for n in range(streams):
            is_hot = n < hot
            match_id = hot_match if is_hot else others[n % len(others)]
            _, token = watchers[n % len(watchers)]
            path = f"/api/live?match={match_id}" if n % 2 == 0 else f"/sse/live?m={match_id}&me=1"
            plan.append({"path": path, "cookie": f"drachenhort_session={token}", "hot": is_hot})
        random.Random(1).shuffle(plan)
        # Warm: every match read once by the worker (its kept copy), as a busy site has them.
        async with httpx.AsyncClient(timeout=30) as warm:
            warm.cookies.set("drachenhort_session", watchers[0][1])
            for match_id in matches:
                (await warm.get(f"{base}/api/matches/{match_id}")).raise_for_status()
        await asyncio.sleep(1)
        rss_before = worker.memory_info().rss
        connections_before = await _db_connections(database)
        procs = []
        started = time.monotonic()
        for c in range(clients):
            spec = {"port": server.port, "streams": plan[c::clients]}
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bench.streams", "--client",
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=2**26,
            )  # fmt: skip
            assert proc.stdin is not None
            proc.stdin.write((json.dumps(spec) + "\n").encode())
            await proc.stdin.drain()
            procs.append(proc)
        reports = [json.loads(await p.stdout.readline()) for p in procs if p.stdout is not None]
        open_seconds = time.monotonic() - started
        held = sum(r["open"] for r in reports)
        failed = sum(r["failed"] for r in reports)
        why = f": {reports[0]['failures'] or reports[-1]['failures']}" if failed else ""
        print(f"streams open: {held} of {streams} in {open_seconds:.1f} s ({failed} failed{why})")
        await asyncio.sleep(5)  # idle
        rss_with = worker.memory_info().rss
        connections_idle = await _db_connections(database)
        cpu_idle_0 = worker.cpu_times()
        await asyncio.sleep(10)
        cpu_idle_1 = worker.cpu_times()
        idle_cpu = (cpu_idle_1.user + cpu_idle_1.system - cpu_idle_0.user - cpu_idle_0.system) / 10
        per_stream = (rss_with - rss_before) / max(held, 1)
        print(f"worker RSS: {rss_before / 2**20:.0f} MiB before, {rss_with / 2**20:.0f} MiB with the "
              f"streams: {per_stream / 1024:.1f} KiB per idle stream")  # fmt: skip
        print(f"database connections of the run's database: {connections_before} before, "
              f"{connections_idle} with {held} streams open and idle")  # fmt: skip
        print(f"worker CPU while {held} streams idle: {100 * idle_cpu:.1f} %")
        # The fan-out: commits in the hot match, a few seconds apart.
        sent: list[float] = []
        cpu_0, fanning = worker.cpu_times(), time.monotonic()
        async with httpx.AsyncClient(timeout=30) as player:
            for _ in range(commits):
                sent.append(time.monotonic())
                await _commit(player, base, hot_match, {u: t for u, t in accounts if u in hot_players})
                await asyncio.sleep(3)
        cpu_1, fanned = worker.cpu_times(), time.monotonic()
        # The worker's CPU for the commits and their pushes, beyond what the idle streams cost.
        busy = cpu_1.user + cpu_1.system - cpu_0.user - cpu_0.system - idle_cpu * (fanned - fanning)
        for p in procs:
            assert p.stdin is not None
            p.stdin.write(b"close\n")
            await p.stdin.drain()
        closing = time.monotonic()
        finals = [json.loads(await p.stdout.readline()) for p in procs if p.stdout is not None]
        for p in procs:
            await p.wait()
        close_seconds = time.monotonic() - closing
        latencies: list[float] = []
        missing = 0
        hot_streams = [a for f in finals for a in f["hot"]]
        for arrivals in hot_streams:
            for k, at in enumerate(sent):
                until = sent[k + 1] if k + 1 < len(sent) else float("inf")
                mine = [t for t in arrivals if at <= t < until]
                if mine:
                    latencies.append(mine[0] - at)
                else:
                    missing += 1
        ms = [1000 * x for x in latencies]
        idle = held - len(hot_streams)
        print(f"fan-out of {commits} commits to {len(hot_streams)} hot streams (while {idle} "
              f"idle), from the mover's request to the push's arrival: p50 {_percentile(ms, 0.5):.0f} ms, "
              f"p99 {_percentile(ms, 0.99):.0f} ms, max {max(ms, default=float('nan')):.0f} ms, "
              f"{missing} not arrived")  # fmt: skip
        if latencies:
            print(f"  mean {statistics.mean(ms):.0f} ms over {len(ms)} deliveries")
        print(f"worker CPU per commit (its requests and its pushes to {len(hot_streams)} streams, "
              f"the idle streams' share taken off): {1000 * busy / max(commits, 1):.0f} ms")  # fmt: skip
        await asyncio.sleep(3)
        rss_after = worker.memory_info().rss
        connections_after = await _db_connections(database)
        print(f"after closing ({close_seconds:.1f} s): worker RSS {rss_after / 2**20:.0f} MiB, "
              f"{connections_after} database connections")  # fmt: skip


if __name__ == "__main__":
    if sys.argv[1:2] == ["--client"]:
        _raise_fd_limit()
        asyncio.run(_client(json.loads(sys.stdin.readline())))
        raise SystemExit(0)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=10_000)
    parser.add_argument("--hot", type=int, default=1_000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--commits", type=int, default=5)
    a = parser.parse_args()
    os.environ.setdefault("PYTHONPATH", str(Path(__file__).resolve().parents[1]))
    asyncio.run(main(a.streams, a.hot, a.clients, a.commits))
