"""Live nudges: "match 42 is at version 17", "user 7, your lists changed".

Messages are nudges only (ids and versions), never views: each page fetches its own view,
so hidden information only travels the per-seat view path.

With PostgreSQL, LISTEN/NOTIFY carries the nudges between processes and hosts (one listening
connection per process, reconnecting); with SQLite, an in-process broker is enough because
an embedded server is one process. A process's own subscribers hear its nudges at once (its
NOTIFY echo is dropped); other processes hear them one batched round trip later. The app
lifespan makes the broker (``await Broker.start(settings)``) and stops it; the services
publish through ``publish_match`` / ``publish_user``, which use the started broker (or an
in-process one when none was started, e.g. in service tests).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Literal

import asyncpg  # type: ignore[import-untyped]

from app.config import Settings, is_postgres_url, normalise_database_url
from app.db.session import asyncpg_dsn

log = logging.getLogger(__name__)

CHANNEL = "drachenhort"
QUEUE_SIZE = 64
RECONNECT_MAX_SECONDS = 10.0
KEEPALIVE_SECONDS = 30.0
READY_TIMEOUT_SECONDS = 5.0
_NOTIFY_BATCH = (
    "SELECT pg_notify($1, payload) FROM unnest($2::text[]) WITH ORDINALITY AS n(payload, i) ORDER BY i"
)


@dataclass(frozen=True, slots=True)
class Nudge:
    """Something changed: ``kind`` "match" with the new ``version``, or "user" (version None)."""

    kind: Literal["match", "user"]
    id: int
    version: int | None = None

    def encode(self) -> str:
        return f"{self.kind}:{self.id}:{'' if self.version is None else self.version}"

    @classmethod
    def decode(cls, payload: str) -> Nudge | None:
        try:
            kind, ident, version = payload.split(":")
            if kind not in ("match", "user"):
                return None
            return cls(kind, int(ident), int(version) if version else None)  # type: ignore[arg-type]
        except ValueError:
            return None


class Subscription:
    """An async iterator of nudges for one match or user; registered as soon as it is made.

    Close it (``aclose`` or ``async with``) when done; a forgotten one is dropped when it
    is garbage-collected.
    """

    def __init__(self, broker: Broker, key: tuple[str, int]) -> None:
        self._broker = broker
        self._key = key
        self._queue: asyncio.Queue[Nudge] = asyncio.Queue(QUEUE_SIZE)
        broker._subscribers.setdefault(key, weakref.WeakSet()).add(self)

    def __aiter__(self) -> AsyncIterator[Nudge]:
        return self

    async def __anext__(self) -> Nudge:
        return await self._queue.get()

    async def get(self, timeout: float | None = None) -> Nudge:
        """The next nudge; ``TimeoutError`` after ``timeout`` seconds."""
        return await asyncio.wait_for(self._queue.get(), timeout)

    def _put(self, nudge: Nudge) -> None:
        if self._queue.full():
            # A slow reader only needs the newest news: drop the oldest nudge.
            self._queue.get_nowait()
        self._queue.put_nowait(nudge)

    async def aclose(self) -> None:
        subscribers = self._broker._subscribers.get(self._key)
        if subscribers is not None:
            subscribers.discard(self)
            if not subscribers:
                self._broker._subscribers.pop(self._key, None)

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class Broker:
    """Fans nudges out to this process's subscribers, and across processes on PostgreSQL."""

    def __init__(self, database_url: str | None = None) -> None:
        url = normalise_database_url(database_url) if database_url else None
        self._dsn = asyncpg_dsn(url) if url and is_postgres_url(url) else None
        self._subscribers: dict[tuple[str, int], weakref.WeakSet[Subscription]] = {}
        self._connection: asyncpg.Connection | None = None
        self._lock = asyncio.Lock()
        self._ready = asyncio.Event()
        self._listener: asyncio.Task[None] | None = None
        self._stopping = False
        self._outbox: list[str] = []
        self._sender: asyncio.Task[None] | None = None

    @classmethod
    async def start(
        cls, settings: Settings | None = None, *, database_url: str | None = None, install: bool = True
    ) -> Broker:
        """Make a broker for the settings' database; ``install`` makes it the process's broker."""
        broker = cls(database_url or (settings.database_url if settings else None))
        if broker._dsn is not None:
            broker._listener = asyncio.create_task(broker._listen(), name="drachenhort-listen")
            try:
                await asyncio.wait_for(broker._ready.wait(), READY_TIMEOUT_SECONDS)
            except TimeoutError:
                log.warning("live updates: PostgreSQL not reachable yet, retrying in the background")
        if install:
            _install(broker)
        return broker

    @property
    def is_distributed(self) -> bool:
        """True when nudges cross processes (PostgreSQL LISTEN/NOTIFY)."""
        return self._dsn is not None

    @property
    def is_listening(self) -> bool:
        return self._connection is not None and not self._connection.is_closed()

    async def stop(self) -> None:
        if self._sender is not None:
            # What was published before stopping still goes out.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._sender), READY_TIMEOUT_SECONDS)
        self._stopping = True
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
            self._listener = None
        if _installed is self:
            _install(None)

    def subscribe_match(self, match_id: int) -> Subscription:
        return Subscription(self, ("match", match_id))

    def subscribe_user(self, user_id: int) -> Subscription:
        return Subscription(self, ("user", user_id))

    async def publish_match(self, match_id: int, version: int) -> None:
        await self._publish(Nudge("match", match_id, version))

    async def publish_user(self, user_id: int) -> None:
        await self._publish(Nudge("user", user_id))

    async def _publish(self, nudge: Nudge) -> None:
        """Send a nudge; never raises (a lost nudge costs a refresh, not a move).

        This process's subscribers hear it at once; other processes through PostgreSQL, where
        the nudges published meanwhile go out together in one ``pg_notify`` round trip, sent
        in the background (the request that published does not wait for it).
        """
        self._deliver(nudge)
        if self._dsn is None:
            return
        self._outbox.append(nudge.encode())
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._send(), name="drachenhort-notify")

    async def _send(self) -> None:
        """NOTIFY everything in the outbox, a batch per round trip, in publishing order."""
        while self._outbox:
            batch, self._outbox = self._outbox, []
            connection = self._connection
            if connection is None or connection.is_closed():
                log.warning("live updates: not connected; %d nudge(s) delivered locally only", len(batch))
                continue
            try:
                async with self._lock:
                    await connection.execute(_NOTIFY_BATCH, CHANNEL, batch)
            except Exception as error:  # a background task: log, never raise
                log.warning("live updates: NOTIFY failed (%s); delivered locally only", error)

    def _deliver(self, nudge: Nudge) -> None:
        for subscription in list(self._subscribers.get((nudge.kind, nudge.id), ())):
            subscription._put(nudge)

    def _on_notify(self, connection: asyncpg.Connection, pid: int, channel: str, payload: str) -> None:
        if pid == connection.get_server_pid():
            return  # our own NOTIFY coming back: delivered locally when published
        nudge = Nudge.decode(payload)
        if nudge is not None:
            self._deliver(nudge)

    async def _listen(self) -> None:
        """Keep one LISTEN connection open, reconnecting with a growing pause."""
        assert self._dsn is not None
        pause = 0.2
        while not self._stopping:
            connection: asyncpg.Connection | None = None
            try:
                connection = await asyncpg.connect(self._dsn)
                lost = asyncio.Event()
                connection.add_termination_listener(lambda _connection, lost=lost: lost.set())
                await connection.add_listener(CHANNEL, self._on_notify)
                self._connection = connection
                self._ready.set()
                pause = 0.2
                while not connection.is_closed():
                    try:
                        await asyncio.wait_for(lost.wait(), KEEPALIVE_SECONDS)
                    except TimeoutError:
                        # A quiet connection may have died without telling us: ask.
                        async with self._lock:
                            await connection.execute("SELECT 1", timeout=KEEPALIVE_SECONDS)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
                log.warning("live updates: listening connection lost (%s); reconnecting", error)
            finally:
                self._connection = None
                if connection is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.shield(connection.close(timeout=2))
            if not self._stopping:
                await asyncio.sleep(pause)
                pause = min(pause * 2, RECONNECT_MAX_SECONDS)


_installed: Broker | None = None
_fallback: Broker | None = None


def current_broker() -> Broker:
    """The started broker, or an in-process one when none was started."""
    global _fallback
    if _installed is not None:
        return _installed
    if _fallback is None:
        _fallback = Broker()
    return _fallback


async def publish_match(match_id: int, version: int) -> None:
    await current_broker().publish_match(match_id, version)


async def publish_user(user_id: int) -> None:
    await current_broker().publish_user(user_id)


def subscribe_match(match_id: int) -> Subscription:
    return current_broker().subscribe_match(match_id)


def subscribe_user(user_id: int) -> Subscription:
    return current_broker().subscribe_user(user_id)


def _install(broker: Broker | None) -> None:
    global _installed
    _installed = broker
