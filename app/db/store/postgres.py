"""The move path on PostgreSQL: raw asyncpg statements, one round trip per read or decision.

A decision is ONE statement: the versioned ``UPDATE matches``, its log rows, the stored answer
and the notifications are data-modifying CTEs of one ``WITH`` query, so it runs in its own
implicit transaction (no BEGIN/COMMIT round trips). It sends no ``NOTIFY``: PostgreSQL
serialises the commits of all notifying transactions instance-wide (a lock held through the
WAL flush), which capped every decision on the database at about a third of what the same
writes reach without it (``bench/notify_ceiling.py``); the live broker publishes the news
after the commit instead (``app.services.live``). A read is one statement too: the match, its seats with their
occupants' names, and the log rows after the ones the reader has.

The statements are prepared once per connection (asyncpg's statement cache). Connections come
from an asyncpg pool of their own beside SQLAlchemy's, because SQLAlchemy's checkout and
asyncpg's default reset (a round trip) cost more than the statement itself; a connection
that died under us is dropped and the statement retried once on a fresh one (nothing of a
statement that failed to reach the server can have committed, and a decision that did
commit is found again by its request id).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import asyncpg  # type: ignore[import-untyped]
import orjson

from app.db.matches import VERSION_SPAN
from app.db.session import CONNECT_TIMEOUT_SECONDS, watch_link
from app.db.store.records import (
    CONTROL_COLUMNS,
    YOUR_TURN,
    Answered,
    Applied,
    ControlRow,
    DecisionWrite,
    Loaded,
    LogRow,
    MatchRow,
    Moved,
    SeatRow,
    WriteOutcome,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

CHANNEL = "drachenhort"
"""The LISTEN/NOTIFY channel of ``app.services.live``."""

_MATCH_COLUMNS = """
    m.id, m.game, m.ruleset, m.options, m.players, m.status, m.seed, m.version, m.committed_version,
    m.state, m.rng_counter, m.pending, m.to_act, m.result, m.created_by, m.turn_started_at,
    (SELECT json_agg(json_build_array(s.seat, s.user_id, s.reserved_for, u.name, s.score, s.rank,
                                       coalesce(s.stand_in, u.bot_level))
                     ORDER BY s.seat)
       FROM seats s LEFT JOIN users u ON u.id = coalesce(s.user_id, s.reserved_for)
      WHERE s.match_id = m.id) AS seats,
    (SELECT resigned FROM match_controls WHERE match_id = m.id) AS resigned
"""

LOAD = f"""
SELECT {_MATCH_COLUMNS},
    (SELECT json_agg(json_build_array(l.seq, l.seat, l.move, l.events) ORDER BY l.seq)
       FROM (SELECT seq, seat, move, events FROM moves
              WHERE match_id = m.id AND seq > $2 ORDER BY seq DESC LIMIT $3) l) AS log
  FROM matches m
 WHERE m.id = $1
"""

LOG_BEFORE = """
SELECT seq, seat, move, events FROM (
    SELECT seq, seat, move, events FROM moves
     WHERE match_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3) l
 ORDER BY seq
"""

# $1 match, $2 seen version, $3 request id, $4 user, $5 pending, $6 answer, $7 now,
# $8 the committed state the decision was taken on
_UPDATE_WHERE = """
 WHERE id = $1 AND version = $2 AND state = $8
   AND NOT EXISTS (SELECT 1 FROM move_requests WHERE match_id = $1 AND request_id = $3)
RETURNING version
"""
_STORE_ANSWER = """
r AS (INSERT INTO move_requests (match_id, request_id, user_id, answer, created_at)
      SELECT $1, $3, $4, $6::json, $7 FROM m)
"""

WRITE_PENDING = f"""
WITH m AS (UPDATE matches SET version = version + 1, pending = $5::json {_UPDATE_WHERE}),
{_STORE_ANSWER}
SELECT version FROM m
"""

# $9 state, $10 rng counter, $11 to_act, $12 status, $13 result, $14 new waiting period,
# $15 finished at, $16-$19 log rows, $20-$22 notifications, $23-$25 the final standings
WRITE_COMMIT = f"""
WITH m AS (
    UPDATE matches SET version = (committed_version + 1) * {VERSION_SPAN},
           committed_version = committed_version + 1, pending = $5::json,
           state = $9, rng_counter = $10, to_act = $11::json, status = $12, result = $13::json,
           turn_started_at = coalesce($14, turn_started_at), finished_at = coalesce($15, finished_at),
           updated_at = $7
    {_UPDATE_WHERE}),
{_STORE_ANSWER},
l AS (INSERT INTO moves (match_id, seq, seat, move, events, created_at)
      SELECT $1, x.seq, x.seat, x.move, x.events::json, $7
        FROM m CROSS JOIN unnest($16::int[], $17::int[], $18::text[], $19::text[])
             AS x(seq, seat, move, events)),
seen AS (UPDATE notifications SET read_at = $7
          WHERE user_id = $4 AND match_id = $1 AND kind = '{YOUR_TURN}' AND read_at IS NULL
            AND EXISTS (SELECT 1 FROM m)),
note AS (INSERT INTO notifications (user_id, match_id, kind, period, created_at, mail_state)
         SELECT x.user_id, $1, x.kind, x.period, $7,
                CASE WHEN us.email IS NOT NULL AND NOT us.mail_opt_out AND NOT us.disabled
                     THEN 'pending' ELSE 'none' END
           FROM m CROSS JOIN unnest($20::int[], $21::text[], $22::timestamptz[]) AS x(user_id, kind, period)
           LEFT JOIN user_settings us ON us.user_id = x.user_id
         ON CONFLICT (user_id, match_id, kind, period) DO NOTHING),
st AS (UPDATE seats s SET score = x.score, rank = x.rank
         FROM m, unnest($23::int[], $24::float8[], $25::int[]) AS x(seat, score, rank)
        WHERE s.match_id = $1 AND s.seat = x.seat)
SELECT version FROM m
"""

VERSIONS = "SELECT id, committed_version FROM matches WHERE id = ANY($1::int[])"

CONTROL = f"SELECT {', '.join(CONTROL_COLUMNS)} FROM match_controls WHERE match_id = $1"

BADGE = """
SELECT (SELECT count(*) FROM seats s JOIN matches m ON m.id = s.match_id
         WHERE s.user_id = $1 AND m.status = 'active' AND m.to_act::jsonb @> to_jsonb(s.seat)),
       (SELECT count(DISTINCT match_id) FROM notifications WHERE user_id = $1 AND read_at IS NULL)
"""

ANSWER = "SELECT user_id, answer FROM move_requests WHERE match_id = $1 AND request_id = $2"

WHY_NOT = """
SELECT (SELECT version FROM matches WHERE id = $1),
       (SELECT json_build_array(user_id, answer) FROM move_requests WHERE match_id = $1 AND request_id = $2)
"""

_LOST = (asyncpg.ConnectionDoesNotExistError, asyncpg.InterfaceError, ConnectionError)


async def _no_reset(connection: asyncpg.Connection) -> None:
    """Release without asyncpg's reset round trip: these statements leave no session state."""


async def _json_codec(connection: asyncpg.Connection) -> None:
    watch_link(connection)  # a cut link fails the statement in seconds (then 503)
    await connection.set_type_codec(
        "json", encoder=lambda v: v, decoder=orjson.loads, schema="pg_catalog", format="text"
    )


class PostgresStore:
    """Loads matches and writes decisions on one PostgreSQL database."""

    def __init__(self, dsn: str, *, pool_size: int) -> None:
        self._dsn = dsn
        self._pool_size = pool_size
        self._pool: asyncpg.Pool | None = None
        self._opening = asyncio.Lock()

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()

    async def load(self, match_id: int, *, log_after: int, log_limit: int) -> Loaded | None:
        """The match and its newest ``log_limit`` log rows after seq ``log_after``."""
        row = await self._run(lambda c: c.fetchrow(LOAD, match_id, log_after, log_limit))
        if row is None:
            return None
        return Loaded(_match_row(row), _log_rows(row["log"]))

    async def log_before(self, match_id: int, *, before: int, limit: int) -> tuple[LogRow, ...]:
        """The ``limit`` log rows just before seq ``before``, in order."""
        rows = await self._run(lambda c: c.fetch(LOG_BEFORE, match_id, before, limit))
        return tuple(LogRow(r["seq"], r["seat"], r["move"], tuple(r["events"])) for r in rows)

    async def write(self, w: DecisionWrite) -> WriteOutcome:
        """Carry out one decision, or nothing when the match moved on or the request id is used."""
        try:
            version = await self._apply(w)
        except asyncpg.UniqueViolationError:
            # The same request id committed on another version between our snapshot and our
            # row lock: nothing of ours was written, the twin's answer stands.
            version = None
        if version is not None:
            return Applied(version)
        current, used = await self._run(lambda conn: conn.fetchrow(WHY_NOT, w.match_id, w.request_id))
        if used is not None:
            return Answered(used[0], used[1])
        return Moved(current or 0)

    async def answer(self, match_id: int, request_id: str) -> Answered | None:
        """The answer once given to ``request_id`` in this match, if any."""
        used = await self._run(lambda conn: conn.fetchrow(ANSWER, match_id, request_id))
        return None if used is None else Answered(used["user_id"], used["answer"])

    async def versions(self, match_ids: list[int]) -> dict[int, int]:
        """The committed version of each of these matches that exists."""
        rows = await self._run(lambda conn: conn.fetch(VERSIONS, match_ids))
        return {r["id"]: r["committed_version"] for r in rows}

    async def control(self, match_id: int) -> ControlRow | None:
        row = await self._run(lambda conn: conn.fetchrow(CONTROL, match_id))
        return None if row is None else ControlRow(*row)

    async def badge(self, user_id: int) -> tuple[int, int]:
        row = await self._run(lambda conn: conn.fetchrow(BADGE, user_id))
        assert row is not None
        return int(row[0]), int(row[1])

    async def _apply(self, w: DecisionWrite) -> int | None:
        head = (
            w.match_id,
            w.seen,
            w.request_id,
            w.user_id,
            _json(w.pending),
            w.answer,
            w.now,
            w.seen_state,
        )
        c = w.commit
        if c is None:
            pending: int | None = await self._run(lambda conn: conn.fetchval(WRITE_PENDING, *head))
            return pending
        log = c.log
        args = (
            *head,
            c.state,
            c.rng_counter,
            _json(list(c.to_act)),
            c.status,
            None if c.result is None else _json(c.result),
            c.turn_started_at,
            c.finished_at,
            [r.seq for r in log],
            [r.seat for r in log],
            [r.move for r in log],
            [_json(list(r.events)) for r in log],
            [n[0] for n in c.notices],
            [n[1] for n in c.notices],
            [n[2] for n in c.notices],
            [s[0] for s in c.standings],
            [s[1] for s in c.standings],
            [s[2] for s in c.standings],
        )
        committed: int | None = await self._run(lambda conn: conn.fetchval(WRITE_COMMIT, *args))
        return committed

    async def _run(self, statement: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
        try:
            async with self._connection() as connection:
                return await statement(connection)
        except _LOST as error:
            log.warning("move path: PostgreSQL connection lost (%s); retrying once", error)
            async with self._connection() as connection:
                return await statement(connection)

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[asyncpg.Connection]:
        pool = self._pool or await self._open_pool()
        async with pool.acquire() as connection:
            yield connection

    async def _open_pool(self) -> asyncpg.Pool:
        # One pool however many first requests arrive at once (each made its own before).
        async with self._opening:
            if self._pool is None:
                self._pool = await asyncpg.create_pool(
                    self._dsn,
                    # No minimum: asyncpg would keep reconnecting one in the background (and
                    # log a traceback for each try) while PostgreSQL is down.
                    min_size=0,
                    max_size=self._pool_size,
                    init=_json_codec,
                    reset=_no_reset,
                    max_inactive_connection_lifetime=60.0,
                    timeout=CONNECT_TIMEOUT_SECONDS,
                )
            return self._pool


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


def _match_row(row: Any) -> MatchRow:
    return MatchRow(
        id=row["id"],
        game=row["game"],
        ruleset=row["ruleset"],
        options=row["options"],
        players=row["players"],
        status=row["status"],
        seed=row["seed"],
        version=row["version"],
        committed_version=row["committed_version"],
        state=row["state"],
        rng_counter=row["rng_counter"],
        pending=row["pending"],
        to_act=tuple(row["to_act"]),
        result=row["result"],
        created_by=row["created_by"],
        turn_started_at=row["turn_started_at"],
        seats=tuple(SeatRow(*s) for s in row["seats"] or ()),
        resigned=tuple(row["resigned"] or ()),
    )


def _log_rows(raw: list[list[Any]] | None) -> tuple[LogRow, ...]:
    return tuple(LogRow(seq, seat, move, tuple(events)) for seq, seat, move, events in raw or ())
