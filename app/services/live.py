"""Live news: "match 42 is at version 17", "user 7, your lists changed", "account 7 changed".

News items are small (kinds, ids and versions), never views: what a viewer may see is built
for that viewer by whoever serves its stream (``app.services.play.pushes``).

With PostgreSQL, LISTEN/NOTIFY carries the news between processes and hosts (one listening
connection per process, reconnecting); with SQLite, an in-process broker is enough because
an embedded server is one process. A process's own subscribers hear its news at once; other
processes hear it through PostgreSQL. Every payload names the process it came from, so a
process drops its own news when PostgreSQL echoes it back.

News goes out after the commit that caused it, never inside it: PostgreSQL serialises the
commits of all transactions that notified, instance-wide, WAL flush included, so a ``NOTIFY``
inside each decision capped the whole database at about a third of its decisions per second
(``bench/notify_ceiling.py``). The broker sends what was published meanwhile in one batched
``pg_notify`` round trip in the background, on its listening connection with
``synchronous_commit`` off (the news is not the truth, so its transaction need not wait for the
disk and holds that lock only briefly). An answer still means durable (the decision committed
before anything was published), and a notification that never arrives (the process died
between its commit and its ``NOTIFY``, the ``NOTIFY`` failed, a listener was reconnecting)
costs about twice ``CATCH_UP_SECONDS`` at most: every process re-reads the committed versions of the
matches its streams watch that often (one query for all of them, started by ``catch_up_from``)
and at once after its listening connection came back, and tells the streams of each match
that is further than the news said (``Nudge.caught_up``). The app lifespan makes the broker
(``await Broker.start(settings)``) and stops it; services use the started broker (or an
in-process one when none was started, e.g. in service tests).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import weakref
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import asyncpg  # type: ignore[import-untyped]

from app.config import Settings, is_postgres_url, normalise_database_url
from app.db.session import CONNECT_TIMEOUT_SECONDS, asyncpg_dsn, watch_link
from app.db.store.postgres import CHANNEL

log = logging.getLogger(__name__)

QUEUE_SIZE = 64
RECONNECT_MAX_SECONDS = 2.0
"""The longest pause between tries to listen again: a host whose link came back hears news
again within seconds (issue 24: streams converge within 5 s after a cut)."""
KEEPALIVE_SECONDS = 30.0
READY_TIMEOUT_SECONDS = 5.0
CATCH_UP_SECONDS = 1.5
"""How often each process reads the versions of its watched matches: a stream lags at most
about twice this behind a commit whose notification was lost (``Broker.catch_up``)."""
_NOTIFY_BATCH = (
    "SELECT pg_notify($1, payload) FROM unnest($2::text[]) WITH ORDINALITY AS n(payload, i) ORDER BY i"
)


NudgeKind = Literal["match", "user", "account", "chat"]
KINDS: frozenset[str] = frozenset(("match", "user", "account", "chat"))


@dataclass(frozen=True, slots=True)
class Nudge:
    """Something changed.

    - "match" with the new committed ``version``: the match's viewers have a new board, and
      ``after`` is the log seq the change logged decisions after (None: nothing logged);
    - "user": the user's badge or lists changed; ``cause`` is the match whose commit changed
      them, when one did (a stream of that very match says so with its new view already);
    - "account": the user's sessions or settings changed (drop cached sessions);
    - "chat": a match's chat has a new message.
    """

    kind: NudgeKind
    id: int
    version: int | None = None
    after: int | None = None
    cause: int | None = None
    caught_up: bool = field(default=False, compare=False)
    """Made by the catch-up read, not by the change itself: a stream that already shows this
    version has nothing to send (never sent between processes)."""

    def encode(self, origin: str = "") -> str:
        return f"{self.kind}:{self.id}:{_text(self.version)}:{_text(self.after)}:{_text(self.cause)}:{origin}"

    @classmethod
    def decode(cls, payload: str) -> tuple[Nudge, str] | None:
        """The nudge and the origin it came from, or None for anything else."""
        try:
            kind, ident, version, after, cause, origin = payload.split(":")
            if kind not in KINDS:
                return None
            nudge = cls(kind, int(ident), _number(version), _number(after), _number(cause))  # type: ignore[arg-type]
        except ValueError:
            return None
        return nudge, origin


class Subscription:
    """An async iterator of the nudges for some matches and users, in the order they came;
    registered as soon as it is made. It stops once ``end`` was called (its stream's client
    went away) and what had arrived was taken.

    Close it (``aclose`` or ``async with``) when done; a forgotten one is dropped when it
    is garbage-collected. Small on purpose (a worker holds thousands): a bounded deque and
    a future only while someone waits, no ``asyncio.Queue``.
    """

    __slots__ = ("__weakref__", "_broker", "_ended", "_items", "_keys", "_waiter")

    def __init__(self, broker: Broker, *keys: tuple[str, int]) -> None:
        self._broker = broker
        self._keys = keys
        # A slow reader only needs the newest news: the oldest nudge drops out when full.
        self._items: deque[Nudge] = deque(maxlen=QUEUE_SIZE)
        self._waiter: asyncio.Future[None] | None = None
        self._ended = False
        for key in keys:
            broker._subscribers.setdefault(key, weakref.WeakSet()).add(self)

    def __aiter__(self) -> AsyncIterator[Nudge]:
        return self

    async def __anext__(self) -> Nudge:
        return await self.get()

    async def get(self, timeout: float | None = None) -> Nudge:
        """The next nudge; ``TimeoutError`` after ``timeout`` seconds, ``StopAsyncIteration``
        once ended."""
        while not self._items:
            if self._ended:
                raise StopAsyncIteration
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await asyncio.wait_for(waiter, timeout)
            finally:
                self._waiter = None
        return self._items.popleft()

    def pending(self) -> list[Nudge]:
        """The nudges that have arrived and not been taken yet (taking them)."""
        taken = list(self._items)
        self._items.clear()
        return taken

    def end(self) -> None:
        """No more nudges are wanted: a waiting ``get`` stops."""
        self._ended = True
        self._wake()

    def _put(self, nudge: Nudge) -> None:
        self._items.append(nudge)
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def aclose(self) -> None:
        for key in self._keys:
            subscribers = self._broker._subscribers.get(key)
            if subscribers is not None:
                subscribers.discard(self)
                if not subscribers:
                    self._broker._subscribers.pop(key, None)
                    if key[0] == "match":
                        self._broker._known.pop(key[1], None)

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
        self._listeners: dict[str, list[Callable[[Nudge], None]]] = {}
        self._known: dict[int, int] = {}
        """The newest committed version news told of, per watched match."""
        self._versions: Callable[[list[int]], Awaitable[dict[int, int]]] | None = None
        self._catcher: asyncio.Task[None] | None = None
        self._behind: dict[int, int] = {}
        """The watched matches the last catch-up read found further than their news."""
        self._reconnected: list[Callable[[], None]] = []
        self.origin = secrets.token_hex(6)
        """Names this process in every payload, so its own news is not delivered twice."""

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
        if self._catcher is not None:
            self._catcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._catcher
            self._catcher = None
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
            self._listener = None
        if _installed is self:
            _install(None)

    def subscribe(self, *keys: tuple[NudgeKind, int]) -> Subscription:
        """One subscription to the news of several (kind, id): ``("match", 42), ("user", 7)``."""
        return Subscription(self, *keys)

    def subscribe_match(self, match_id: int) -> Subscription:
        return self.subscribe(("match", match_id))

    def subscribe_user(self, user_id: int) -> Subscription:
        return self.subscribe(("user", user_id))

    async def publish_match(self, match_id: int, version: int) -> None:
        await self.publish(Nudge("match", match_id, version))

    async def publish_user(self, user_id: int) -> None:
        await self.publish(Nudge("user", user_id))

    async def publish(self, nudge: Nudge) -> None:
        """Send a nudge (after the commit that caused it); never raises."""
        self.publish_many((nudge,))

    def publish_many(self, nudges: Sequence[Nudge]) -> None:
        """Send the nudges of one commit, once it has committed; never raises (a lost nudge
        costs a stream at most ``CATCH_UP_SECONDS``, never a move).

        This process's subscribers hear them at once; other processes through PostgreSQL, where
        the nudges published meanwhile go out together in one ``pg_notify`` round trip, sent
        in the background (the request that published does not wait for it).
        """
        for nudge in nudges:
            self._deliver(nudge)
        if self._dsn is None or not nudges:
            return
        self._outbox.append(self.payload(nudges))
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._send(), name="drachenhort-notify")

    def payload(self, nudges: Sequence[Nudge]) -> str:
        """One NOTIFY payload carrying a commit's ``nudges`` (a line each)."""
        return "\n".join(nudge.encode(self.origin) for nudge in nudges)

    def catch_up_from(
        self,
        versions: Callable[[list[int]], Awaitable[dict[int, int]]],
        *,
        every: float | None = CATCH_UP_SECONDS,
    ) -> None:
        """Re-read the committed versions of the watched matches with ``versions`` every
        ``every`` seconds (None: only when ``catch_up`` is called)."""
        self._versions = versions
        if self._catcher is None and every is not None:
            self._catcher = asyncio.create_task(self._catching_up(every), name="drachenhort-catch-up")

    async def catch_up(self) -> int:
        """Tell the streams of every watched match that is further than its news said; how many.

        A match is told only when the previous read already found it behind and no news came
        since (its news had a whole period to arrive: a commit whose news is on its way, e.g.
        this process's own between its commit and its publishing, is not told twice). After the
        listening connection came back, ``_catch_up`` tells them at once instead.
        """
        if self._versions is None:
            return 0
        watched = sorted(i for (kind, i), held in self._subscribers.items() if kind == "match" and held)
        if not watched:
            self._behind = {}
            return 0
        told = 0
        behind: dict[int, int] = {}
        for match_id, version in (await self._versions(watched)).items():
            known = self._known.get(match_id, -1)
            if version <= known:
                continue
            if self._behind.get(match_id, -1) > known:
                self._deliver(Nudge("match", match_id, version, caught_up=True))
                told += 1
            else:
                behind[match_id] = version
        self._behind = behind
        return told

    def on_reconnect(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` whenever the listening connection came back after a loss (the news
        sent meanwhile never arrives: forget what it would have changed)."""
        self._reconnected.append(callback)

    async def _catching_up(self, every: float) -> None:
        while not self._stopping:
            await asyncio.sleep(every)
            try:
                told = await self.catch_up()
            except Exception as error:  # a background task: log, retry at the next tick
                log.warning("live updates: catching up failed (%s)", error)
                continue
            if told:
                log.info("live updates: %d match(es) caught up without their news", told)

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

    def listen(self, kind: NudgeKind, callback: Callable[[Nudge], None]) -> None:
        """Call ``callback`` with every nudge of ``kind`` this process hears (quick, no I/O)."""
        self._listeners.setdefault(kind, []).append(callback)

    def _deliver(self, nudge: Nudge) -> None:
        version = nudge.version
        # Known only while watched, so the catch-up compares with the news its streams heard.
        watched = nudge.kind == "match" and ("match", nudge.id) in self._subscribers
        if watched and version is not None and version > self._known.get(nudge.id, -1):
            self._known[nudge.id] = version
        for callback in self._listeners.get(nudge.kind, ()):
            callback(nudge)
        for subscription in list(self._subscribers.get((nudge.kind, nudge.id), ())):
            subscription._put(nudge)

    def _on_notify(self, connection: asyncpg.Connection, pid: int, channel: str, payload: str) -> None:
        for line in payload.split("\n"):
            decoded = Nudge.decode(line)
            if decoded is None:
                continue
            nudge, origin = decoded
            if origin == self.origin:  # our own: delivered when published (one origin a payload)
                return
            self._deliver(nudge)

    async def _listen(self) -> None:
        """Keep one LISTEN connection open, reconnecting with a growing pause."""
        assert self._dsn is not None
        pause = 0.2
        while not self._stopping:
            connection: asyncpg.Connection | None = None
            try:
                connection = await asyncpg.connect(self._dsn, timeout=CONNECT_TIMEOUT_SECONDS)
                watch_link(connection)  # a cut link is noticed in seconds, then we reconnect
                lost = asyncio.Event()
                connection.add_termination_listener(lambda _connection, lost=lost: lost.set())
                # The NOTIFYs sent on this connection wait for no disk (module doc).
                await connection.execute("SET synchronous_commit TO off")
                await connection.add_listener(CHANNEL, self._on_notify)
                await self._catch_up(connection)
                self._connection = connection
                if self._ready.is_set():
                    # Back after a loss: what was sent meanwhile never arrives here.
                    for callback in self._reconnected:
                        callback()
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

    async def _catch_up(self, connection: asyncpg.Connection) -> None:
        """Tell every subscriber what it may have missed while this process was not listening.

        News sent meanwhile is lost for good (NOTIFY reaches only those listening), so once
        listening again each subscribed match is told the version it is at now (a stream behind
        it shows it, one that is not ignores it), and every other subscription gets its nudge
        (a badge, a chat, a session to check again). Read after LISTEN: whatever commits later
        is heard.
        """
        keys = list(self._subscribers)
        matches = [ident for kind, ident in keys if kind == "match"]
        versions = {}
        if matches:
            rows = await connection.fetch(_VERSIONS, matches, timeout=READY_TIMEOUT_SECONDS)
            versions = {row["id"]: row["committed_version"] for row in rows}
        for kind, ident in keys:
            if kind == "match":
                if versions.get(ident, -1) > self._known.get(ident, -1):
                    self._deliver(Nudge("match", ident, versions[ident], caught_up=True))
            elif kind in KINDS:
                self._deliver(Nudge(kind, ident))  # type: ignore[arg-type]


_VERSIONS = "SELECT id, committed_version FROM matches WHERE id = any($1::int[])"
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


async def publish(nudge: Nudge) -> None:
    await current_broker().publish(nudge)


def subscribe_match(match_id: int) -> Subscription:
    return current_broker().subscribe_match(match_id)


def subscribe_user(user_id: int) -> Subscription:
    return current_broker().subscribe_user(user_id)


def _text(number: int | None) -> str:
    return "" if number is None else str(number)


def _number(text: str) -> int | None:
    return int(text) if text else None


def _install(broker: Broker | None) -> None:
    global _installed
    _installed = broker
