"""The database-side ceiling of the real decision write, with and without live news in it.

K connections (default 16) each commit decisions on a match of their own as fast as they can,
with the move path's own statement (``app.db.store.postgres.WRITE_COMMIT``: the versioned
update, a log row, the stored answer, a notification, the version-checked retry guard), while
another process's broker LISTENs on the channel. Three ways of telling the news:

- ``none``: the write alone (the ceiling without live news);
- ``before``: the statement as it was until issue 24, ``pg_notify`` inside it (PostgreSQL
  serialises the commits of notifying transactions instance-wide, WAL flush included);
- ``after``: the statement as it is now, and the news published after the commit by the real
  ``live.Broker`` (batched ``pg_notify`` in the background, ``synchronous_commit`` off).

Every mode checks the listener heard one nudge per committed decision (``before`` and
``after``). Nothing is asserted on time: it prints decisions/s and the ratios.

    .venv/bin/python -m bench.notify_ceiling [--connections 16] [--seconds 10] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import secrets
import time
from collections.abc import Awaitable, Callable

import asyncpg  # type: ignore[import-untyped]

from app.db.matches import VERSION_SPAN
from app.db.migrate import upgrade_to_head
from app.db.store.postgres import CHANNEL, WRITE_COMMIT
from app.services.live import Broker, Nudge
from bench import pgstats

DATABASE = f"bench_notify_ceiling_{os.getpid()}"
MODES = ("none", "before", "after")

# The statement before issue 24: the same write with the news sent by PostgreSQL at its commit.
WRITE_COMMIT_NOTIFYING = WRITE_COMMIT.replace(
    "st AS (",
    f"k AS (SELECT pg_notify('{CHANNEL}', p) FROM m CROSS JOIN unnest($26::text[]) AS p),\nst AS (",
).replace("SELECT version FROM m", "SELECT (SELECT version FROM m), (SELECT count(*) FROM k)")
assert WRITE_COMMIT_NOTIFYING != WRITE_COMMIT and "$26" in WRITE_COMMIT_NOTIFYING

# A Draco-sized position and answer (the statement's cost grows with them).
STATE = "draco:" + "x" * 1500
ANSWER = json.dumps({"version": 0, "committed": True, "match": {"board": "y" * 3000}})


async def _setup(matches: int) -> list[tuple[int, list[int]]]:
    """``matches`` running 3-seat matches with their users, straight into the tables."""
    await pgstats.fresh_database(DATABASE)
    await asyncio.to_thread(upgrade_to_head, pgstats.sqlalchemy_url(DATABASE))
    conn = await pgstats.connect(pgstats.dsn(DATABASE))
    made: list[tuple[int, list[int]]] = []
    try:
        now = dt.datetime.now(dt.UTC)
        for m in range(matches):
            users = []
            for seat in range(3):
                users.append(
                    await conn.fetchval(
                        "INSERT INTO users (name, name_key, password_hash, locale, is_admin, created_at)"
                        " VALUES ($1, $1, 'x', 'en', false, $2) RETURNING id",
                        f"u{m}_{seat}",
                        now,
                    )
                )
            match_id = await conn.fetchval(
                "INSERT INTO matches (game, ruleset, options, players, status, version, committed_version,"
                " rng_counter, pending, to_act, created_by, invite_token, fixed_order, created_at,"
                " updated_at, state, seed) VALUES ('draco', 'standard', '{}', 3, 'active', 0, 0, 0, '[]',"
                " '[0]', $1, $2, true, $3, $3, $4, $5) RETURNING id",
                users[0],
                secrets.token_hex(16),
                now,
                STATE,
                secrets.token_bytes(32),
            )
            for seat, user in enumerate(users):
                await conn.execute(
                    "INSERT INTO seats (match_id, seat, user_id) VALUES ($1, $2, $3)", match_id, seat, user
                )
            made.append((match_id, users))
    finally:
        await conn.close()
    return made


class Writer:
    """One connection deciding in one match, turn after turn (the seats take turns)."""

    def __init__(self, conn: asyncpg.Connection, match_id: int, users: list[int]) -> None:
        self.conn, self.match_id, self.users = conn, match_id, users
        self.version = 0
        self.seq = 0
        self.done = 0

    async def decide(self, statement: str, payload: str | None) -> None:
        seat = self.seq % 3
        now = dt.datetime.now(dt.UTC)
        following = self.users[(seat + 1) % 3]
        args: list[object] = [
            self.match_id,
            self.version,
            secrets.token_hex(8),
            self.users[seat],
            "[]",
            ANSWER,
            now,
            STATE,
            STATE,
            self.seq + 1,
            json.dumps([(seat + 1) % 3]),
            "active",
            None,
            now,
            None,
            [self.seq + 1],
            [seat],
            ["take 3"],
            [json.dumps([{"kind": "took", "audience": None, "n": 3}])],
            [following],
            ["your_turn"],
            [now],
            [],
            [],
            [],
        ]
        if payload is not None:
            args.append([payload])
        version = await self.conn.fetchval(statement, *args)
        assert version is not None, "the write did not apply"
        self.version = version
        self.seq += 1
        self.done += 1


async def _run_mode(
    mode: str, writers: list[Writer], seconds: float, database: str
) -> tuple[float, int, int]:
    """Decisions/s of ``mode``, decisions, and how many nudges the other process's broker heard."""
    listener = await Broker.start(database_url=pgstats.sqlalchemy_url(database), install=False)
    sender = await Broker.start(database_url=pgstats.sqlalchemy_url(database), install=False)
    heard = 0

    def count(_nudge: Nudge) -> None:
        nonlocal heard
        heard += 1

    listener.listen("match", count)
    for w in writers:
        w.done = 0
    stop_at = time.monotonic() + seconds

    def step(w: Writer) -> Callable[[], Awaitable[None]]:
        async def one() -> None:
            if mode == "none":
                await w.decide(WRITE_COMMIT, None)
            elif mode == "before":
                news = Nudge("match", w.match_id, w.version // VERSION_SPAN + 1, w.seq)
                await w.decide(WRITE_COMMIT_NOTIFYING, news.encode("bench"))
            else:
                after = w.seq
                await w.decide(WRITE_COMMIT, None)
                sender.publish_many((Nudge("match", w.match_id, w.version // VERSION_SPAN, after),))

        return one

    async def loop(w: Writer) -> None:
        one = step(w)
        while time.monotonic() < stop_at:
            await one()

    started = time.monotonic()
    await asyncio.gather(*(loop(w) for w in writers))
    took = time.monotonic() - started
    done = sum(w.done for w in writers)
    await asyncio.sleep(1.0)  # the last batch and its delivery
    await sender.stop()
    await listener.stop()
    return done / took, done, heard


async def main(connections: int, seconds: float, rounds: int) -> None:
    made = await _setup(connections)
    conns = [await pgstats.connect(pgstats.dsn(DATABASE)) for _ in range(connections)]
    try:
        writers = [Writer(c, m, u) for c, (m, u) in zip(conns, made, strict=True)]
        results: dict[str, list[float]] = {mode: [] for mode in MODES}
        print(f"decision writes, {connections} connections, {seconds:.0f} s a run, one LISTENer connected")
        for round_ in range(rounds):
            for mode in MODES:
                tps, done, heard = await _run_mode(mode, writers, seconds, DATABASE)
                results[mode].append(tps)
                print(
                    f"  round {round_ + 1} {mode:>6}: {tps:7.0f} decisions/s"
                    + (f"  (the other process heard {heard} of {done})" if mode != "none" else "")
                )
        best = {mode: max(v) for mode, v in results.items()}
        mean = {mode: sum(v) / len(v) for mode, v in results.items()}
        print("mean decisions/s: " + ", ".join(f"{m} {mean[m]:.0f}" for m in MODES))
        print(
            f"  before / none: {mean['before'] / mean['none']:.2f}"
            f"   after / none: {mean['after'] / mean['none']:.2f}"
        )
        print(
            f"  after / before: {mean['after'] / mean['before']:.2f}"
            f"  (best runs {best['after'] / best['before']:.2f})"
        )
    finally:
        for c in conns:
            await c.close()
        await pgstats.drop_database(DATABASE)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=2)
    a = parser.parse_args()
    asyncio.run(main(a.connections, a.seconds, a.rounds))
