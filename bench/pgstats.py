"""PostgreSQL for the bench: fresh databases, and what PostgreSQL did, counted by PostgreSQL.

- ``fresh_database`` / ``drop_database``: one database per run (the app's is migrated);
- ``DbCounters``: ``pg_stat_database`` (transactions, rows, WAL) over a window;
- ``PgCpu``: CPU of the backends serving one database (psutil), and of every ``postgres``
  process on the machine (what the peer's load.js reports; it includes neighbours' work);
- ``StatementLog``: every statement the app's connections send, from PostgreSQL's own log
  (``log_statement = all`` for that database only). ``pg_stat_statements`` would be nicer, but
  it needs ``shared_preload_libraries`` and a restart of a PostgreSQL others are using;
  ``pg_stat_statements_usable`` says whether it is there.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]
import psutil  # type: ignore[import-untyped]

ADMIN_DSN = os.environ.get("BENCH_ADMIN_DSN", "postgresql://postgres@127.0.0.1:5432/postgres")
PG_LOG = Path(os.environ.get("BENCH_PG_LOG", "/var/log/postgresql/postgresql-15-main.log"))


async def connect(target: str = ADMIN_DSN, attempts: int = 20) -> asyncpg.Connection:
    """A connection, retried while PostgreSQL is full (other people's tests share it)."""
    for attempt in range(attempts):
        try:
            return await asyncpg.connect(target)
        except asyncpg.TooManyConnectionsError:
            if attempt == attempts - 1:
                raise
            await asyncio.sleep(0.25)
    raise AssertionError("unreachable")


def dsn(database: str) -> str:
    base, _, _ = ADMIN_DSN.rpartition("/")
    return f"{base}/{database}"


def sqlalchemy_url(database: str) -> str:
    return dsn(database).replace("postgresql://", "postgresql+asyncpg://", 1)


async def fresh_database(name: str, *, template: str | None = None, log_statements: bool = False) -> None:
    """Create database ``name`` (dropping an old one), empty or a copy of ``template``;
    ``log_statements`` logs its every statement."""
    conn = await connect()
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
        if log_statements:
            await conn.execute(f"ALTER DATABASE \"{name}\" SET log_statement = 'all'")
            await conn.execute(f'ALTER DATABASE "{name}" SET log_parameter_max_length = 0')
    finally:
        await conn.close()


async def drop_database(name: str) -> None:
    conn = await connect()
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


async def pg_stat_statements_usable(database: str) -> bool:
    conn = await connect(dsn(database))
    try:
        await conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        await conn.fetchval("SELECT count(*) FROM pg_stat_statements")
        return True
    except asyncpg.PostgresError:
        return False
    finally:
        await conn.close()


# --- pg_stat_database ----------------------------------------------------------------------

COUNTERS = ("xact_commit", "xact_rollback", "tup_returned", "tup_fetched", "tup_inserted", "tup_updated")


@dataclass(frozen=True)
class DbCounters:
    values: dict[str, int]
    wal_lsn: str

    @classmethod
    async def read(cls, conn: asyncpg.Connection, database: str) -> DbCounters:
        """The counters of ``database``, read on ``conn`` (any database of the cluster)."""
        row = await conn.fetchrow(
            f"SELECT {', '.join(f'{c}::bigint AS {c}' for c in COUNTERS)},"
            " pg_current_wal_lsn()::text AS lsn FROM pg_stat_database WHERE datname = $1",
            database,
        )
        return cls({c: int(row[c]) for c in COUNTERS}, row["lsn"])

    async def since(self, before: DbCounters, conn: asyncpg.Connection) -> dict[str, int]:
        out = {c: self.values[c] - before.values[c] for c in COUNTERS}
        out["wal_bytes"] = int(
            await conn.fetchval(
                "SELECT pg_wal_lsn_diff($1::text::pg_lsn, $2::text::pg_lsn)", self.wal_lsn, before.wal_lsn
            )
        )
        return out


# --- CPU of PostgreSQL ---------------------------------------------------------------------


def _cpu(process: psutil.Process) -> float:
    try:
        times = process.cpu_times()
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return 0.0
    return float(times.user + times.system)


def all_postgres_cpu() -> float:
    """CPU seconds of every process named postgres (the peer's load.js measures this)."""
    total = 0.0
    for process in psutil.process_iter(["name"]):
        if process.info["name"] == "postgres":
            total += _cpu(process)
    return total


@dataclass
class PgCpu:
    """CPU seconds of the backends connected to one database, between ``start`` and ``stop``.

    A backend that ended in between is lost (the count says how many); one that started in
    between counts from its start.
    """

    database: str
    start_times: dict[int, float] = field(default_factory=dict)
    start_all: float = 0.0
    backends: tuple[int, int] = (0, 0)
    """How many backends served the database at the start and at the end."""

    async def _backends(self, conn: asyncpg.Connection) -> list[int]:
        rows = await conn.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", self.database
        )
        return [r["pid"] for r in rows]

    async def start(self, conn: asyncpg.Connection) -> None:
        self.start_times = {}
        for pid in await self._backends(conn):
            with contextlib.suppress(psutil.NoSuchProcess):
                self.start_times[pid] = _cpu(psutil.Process(pid))
        self.start_all = all_postgres_cpu()

    async def stop(self, conn: asyncpg.Connection) -> tuple[float, float, int]:
        """(CPU s of this database's backends, CPU s of all postgres processes, backends lost)."""
        now_all = all_postgres_cpu()
        pids = await self._backends(conn)
        used = 0.0
        for pid in pids:
            try:
                used += _cpu(psutil.Process(pid)) - self.start_times.get(pid, 0.0)
            except psutil.NoSuchProcess:
                continue
        lost = len(set(self.start_times) - set(pids))
        self.backends = (len(self.start_times), len(pids))
        return used, now_all - self.start_all, lost


# --- statements, from PostgreSQL's log ------------------------------------------------------

_LINE = re.compile(r"\[(\d+)\] \S*@(\S+) LOG:  (?:statement|execute [^:]*): (.*)")


@dataclass
class Statements:
    """Statements and transactions seen in the log, by first word."""

    by_kind: Counter[str] = field(default_factory=Counter)
    transactions: int = 0

    @property
    def total(self) -> int:
        return sum(self.by_kind.values())

    def add(self, other: Statements) -> None:
        self.by_kind.update(other.by_kind)
        self.transactions += other.transactions


class StatementLog:
    """Reads the statements of one database from PostgreSQL's log file as they are appended."""

    def __init__(self, database: str, path: Path = PG_LOG) -> None:
        self.database = database
        self.path = path
        self._offset = path.stat().st_size
        self._open: set[int] = set()
        """Backends inside BEGIN ... COMMIT/ROLLBACK."""

    @staticmethod
    def available(path: Path = PG_LOG) -> bool:
        return os.access(path, os.R_OK)

    def take(self) -> Statements:
        """The statements logged since the last call."""
        with self.path.open("rb") as log:
            log.seek(self._offset)
            data = log.read()
        end = data.rfind(b"\n") + 1
        self._offset += end
        seen = Statements()
        lines = data[:end].decode("utf-8", "replace").splitlines()
        for number, raw in enumerate(lines):
            match = _LINE.search(raw)
            if match is None or match.group(2) != self.database:
                continue
            pid, text = int(match.group(1)), match.group(3).strip()
            if not text:  # the statement starts on the next line
                text = next((line.strip() for line in lines[number + 1 : number + 4] if line.strip()), "?")
            kind = (text.split(None, 1) or ["?"])[0].upper().rstrip(";")
            if kind in ("START", "BEGIN"):
                kind = "BEGIN"
                self._open.add(pid)
                seen.transactions += 1
            elif kind in ("COMMIT", "ROLLBACK", "END"):
                self._open.discard(pid)
            elif pid not in self._open:
                seen.transactions += 1  # a statement on its own is a transaction too
            seen.by_kind[kind] += 1
        return seen
