"""Server-sent events: each stream carries what its own viewer may see, built for that viewer.

- ``GET /api/live?match=ID[&log_after=N]`` (JSON clients): event ``view`` with the caller's
  view at once, then after every committed version (the log holds only the lines after the
  previous event's; versions may be skipped when the client is slow, never reordered);
  ``me`` when the user's badge or lists changed (not when this match's commit changed them:
  its ``view`` says so already).
- ``GET /sse/live?m=ID&m=ID&me=1`` (the pages: one stream per browser, shared by its tabs
  through static/js/live-worker.js): ``hello`` with the viewer's version of each match, then
  ``area`` (a match's new board area, rendered for this viewer, with only the new log lines),
  ``me`` (the rendered badge), ``chat`` (a match's chat changed) and ``stale`` (fetch the
  area yourself: an open table changed).

A stream holds no database connection: a push is built from the process's kept match
(``app.services.play.pushes``), framed once and shared by every stream of the same viewer, and
what a commit's streams must read (the version's clock, a session whose kept answer grew old)
is read once for all the streams waiting for it; a clock and a badge are one statement each on
the move path's pool, with no session. Who the viewer
is *now* decides every event: before each one the stream asks again whether its session
still holds (``Watcher``: the process's kept answer, so no query while it is fresh) and which
seat, if any, the viewer has in that version (a seat changes hands on leave, join, the
shuffle at the start). A stream ends as soon as its session does (logout, disabled, new
password: the account's news reaches every process). Nothing a stream sends depends on
another seat's pending decisions, and only those who may read a match's chat hear of it.

A stream may miss news (a notification lost between processes); the broker then tells it
again within ``live.CATCH_UP_SECONDS`` (a ``caught_up`` nudge, dropped by a stream that
already shows that version). An account holds at most ``MAX_STREAMS_PER_ACCOUNT`` streams
per worker (``app.web.stream_limit``): the next one is refused with 429.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

from fastapi import APIRouter, Query, Request
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.matches import VERSION_SPAN
from app.db.models import MatchStatus
from app.db.store import Store, store_of
from app.services import accounts, notify, sessions
from app.services._rows import MAX_ID
from app.services.live import Broker, Nudge, NudgeKind, Subscription
from app.services.play import chat, pushes
from app.services.play import loaded as kept
from app.services.schemas import UserOut
from app.web.deps import LoginRequired, locale_for
from app.web.live_response import PING, LiveResponse, framed
from app.web.pages import live_pages
from app.web.security import SESSION_COOKIE
from app.web.stream_limit import Slot, StreamSlots

router = APIRouter(include_in_schema=False)
PING_SECONDS = 15
MAX_TOPICS = 50
MatchId = Annotated[int, Query(ge=1, le=MAX_ID)]


@router.get("/api/live")
async def api_live(
    request: Request,
    match: MatchId,
    log_after: Annotated[int | None, Query(ge=0, le=MAX_ID)] = None,
) -> LiveResponse:
    watcher = await Watcher.of(request)
    maker = _maker(request)
    async with maker() as db:
        store = store_of(db)
        await kept.load(db, match)  # 404 before the stream starts
    keys: list[tuple[NudgeKind, int]] = [("match", match), *watcher.keys()]
    slot = watcher.slot()
    subscription = _broker(request).subscribe(*keys)

    async def events() -> AsyncIterator[bytes]:
        async with _holding(slot), subscription:
            loaded = await pushes.match_at(store, match, 0)
            shown = loaded.row.committed_version
            yield _view_event(loaded, watcher.seat_in(loaded), watcher.locale, log_after)
            async for news in _news(subscription):
                if news is None:
                    yield PING
                    continue
                if not await watcher.still_valid():
                    return
                if news.kind == "user":
                    if news.cause != match:
                        yield framed("me", "{}")
                elif news.kind == "match" and news.version is not None and news.version > shown:
                    loaded = await pushes.match_at(store, match, news.version)
                    shown = loaded.row.committed_version
                    yield _view_event(loaded, watcher.seat_in(loaded), watcher.locale, news.after)

    return LiveResponse(events(), subscription)


@router.get("/sse/live")
async def page_live(
    request: Request,
    m: Annotated[list[int], Query(max_length=MAX_TOPICS)] = [],  # noqa: B006 - FastAPI copies it
    me: bool = False,
) -> LiveResponse:
    watcher = await Watcher.of(request)
    user = watcher.user
    if me and user is None:
        raise LoginRequired("please log in first")
    matches = sorted({i for i in m if 1 <= i <= MAX_ID})
    maker = _maker(request)
    keys: list[tuple[NudgeKind, int]] = [("match", i) for i in matches] + [("chat", i) for i in matches]
    keys += watcher.keys(badge=me)
    slot = watcher.slot()
    subscription = _broker(request).subscribe(*keys)

    async def events() -> AsyncIterator[bytes]:
        async with _holding(slot), subscription:
            async with maker() as db:
                store = store_of(db)
                versions = await live_pages.versions(db, matches, user)
            yield framed("hello", json.dumps(versions))
            # The committed version each match's area shows (a caught-up nudge of it is dropped).
            shown = {int(i): v // VERSION_SPAN for i, v in versions.items()}
            async for news in _news(subscription):
                if news is None:
                    yield PING
                    continue
                if not await watcher.still_valid():
                    return
                locale = watcher.locale
                if news.kind == "user" and user is not None:
                    badge = await notify.badge_in(store, user_id=user.id)
                    yield live_pages.badge_event(badge, locale)
                elif news.kind == "chat":
                    # Membership as of the message or later (the nudge names that version).
                    loaded = await pushes.match_at(store, news.id, news.version or 0)
                    if chat.may_read(loaded, watcher.user_id):
                        yield framed("chat", json.dumps({"match": news.id}))
                elif news.kind == "match" and news.version is not None:
                    loaded = await pushes.match_at(store, news.id, news.version)
                    if news.caught_up and loaded.row.committed_version <= shown.get(news.id, -1):
                        continue
                    shown[news.id] = loaded.row.committed_version
                    if loaded.row.status == MatchStatus.OPEN:
                        yield framed("stale", json.dumps({"match": news.id}))
                        continue
                    yield await live_pages.area_event(store, loaded, user, locale, news.after)

    return LiveResponse(events(), subscription)


def _view_event(loaded: kept.LoadedMatch, seat: int | None, locale: str, log_after: int | None) -> bytes:
    """The ``view`` event of this version for ``seat``: built and framed once for all its streams."""
    return loaded.built(
        ("view event", seat, locale, log_after),
        lambda: framed("view", pushes.json_view(loaded, seat, locale, log_after)),
    )


async def _news(subscription: Subscription) -> AsyncIterator[Nudge | None]:
    """The subscription's nudges, the older ones of a match dropped when newer ones wait;
    None every ``PING_SECONDS`` since the stream opened (time for a ping).

    The pings keep a fixed beat whatever news came: news that sends nothing (a caught-up
    nudge of the version shown, a chat this viewer may not read) must not put the next ping
    off, or a client or proxy that drops a stream silent for ``PING_SECONDS`` drops it (the
    streams of a hidden-information test did, its clients' read timeout being 15 s)."""
    clock = asyncio.get_running_loop()
    ping_at = clock.time() + PING_SECONDS
    while True:
        try:
            first = await subscription.get(timeout=max(ping_at - clock.time(), 0))
        except TimeoutError:
            ping_at += PING_SECONDS
            if ping_at <= clock.time():  # the loop was held up past a whole beat
                ping_at = clock.time() + PING_SECONDS
            yield None
            continue
        except StopAsyncIteration:
            return
        waiting = [first, *subscription.pending()]
        newest: dict[tuple[str, int], Nudge] = {}
        for nudge in waiting:
            seen = newest.get((nudge.kind, nudge.id))
            if nudge.kind == "match" and seen is not None:
                # The lines after the earliest seq cover them all (None: not known).
                version = max(seen.version or 0, nudge.version or 0)
                caught_up = seen.caught_up and nudge.caught_up
                after = _earlier(seen.after, nudge.after)
                nudge = Nudge("match", nudge.id, version, after, caught_up=caught_up)
            newest[(nudge.kind, nudge.id)] = nudge
        for nudge in newest.values():
            yield nudge


@asynccontextmanager
async def _holding(slot: Slot | None) -> AsyncIterator[None]:
    """Give the stream's slot back when it ends."""
    try:
        yield
    finally:
        if slot is not None:
            slot.release()


def _earlier(first: int | None, then: int | None) -> int | None:
    return None if first is None or then is None else min(first, then)


class Watcher:
    """Who watches a stream, asked again before every event: a stream may stay open for hours,
    and its session may end meanwhile (its viewer's seat is read from each version)."""

    def __init__(self, request: Request, token: str | None, user: UserOut | None, store: Store) -> None:
        self._request = request
        self._token = token
        self._store = store
        self.user = user
        self.locale = locale_for(request, user)

    @classmethod
    async def of(cls, request: Request) -> Watcher:
        token = request.cookies.get(SESSION_COOKIE)
        async with _maker(request)() as db:
            user = await accounts.user_for_token(db, token=token) if token else None
            return cls(request, token, user, store_of(db))

    @property
    def user_id(self) -> int | None:
        return self.user.id if self.user is not None else None

    def keys(self, *, badge: bool = True) -> list[tuple[NudgeKind, int]]:
        """The news this watcher needs beside its matches': its account's (a session ended,
        the language changed) and, with ``badge``, its own lists'."""
        if self.user is None:
            return []
        keys: list[tuple[NudgeKind, int]] = [("account", self.user.id)]
        if badge:
            keys.append(("user", self.user.id))
        return keys

    async def still_valid(self) -> bool:
        """False once the session the stream was opened with has ended (the stream ends then:
        nothing more goes out under a session the rest of the server refuses). A visitor
        without a session has nothing to lose."""
        if self.user is None or self._token is None:
            return True
        now = await _user_now(_maker(self._request), self._store, self._token)
        if now is None or now.id != self.user.id:
            return False
        if now is not self.user:
            self.user, self.locale = now, locale_for(self._request, now)
        return True

    def slot(self) -> Slot | None:
        """The place of one more stream of this account (429 when it holds them all)."""
        if self.user is None:
            return None
        return _slots(self._request).take(self.user.id)

    def seat_in(self, loaded: kept.LoadedMatch) -> int | None:
        """The viewer's seat in this version (None: a spectator's view)."""
        return loaded.seat_of(self.user_id)


async def _user_now(maker: async_sessionmaker[AsyncSession], store: Store, token: str) -> UserOut | None:
    """The user of the session ``token`` now: the kept answer while fresh (no database
    session: ~1 us), else one read shared by every stream of this session that asks meanwhile
    (its answer is then kept for the others). A commit wakes all the streams of a match at
    once, and a session's streams outlive its kept answer: a read each queued a thousand
    spectators' reads on the pool (``bench/streams.py``)."""
    now = sessions.kept_in(store, token)
    if now is not None:
        return now
    key = (id(store), token)
    asking = _asking.get(key)
    if asking is None:
        asking = _asking[key] = asyncio.ensure_future(_ask(maker, token))
        asking.add_done_callback(lambda _: _asking.pop(key, None))
    # Shielded: a stream that goes away while waiting must not cancel the others' read.
    return await asyncio.shield(asking)


async def _ask(maker: async_sessionmaker[AsyncSession], token: str) -> UserOut | None:
    async with maker() as db:
        return await accounts.user_for_token(db, token=token)


_asking: dict[tuple[int, str], asyncio.Future[UserOut | None]] = {}


def _maker(request: Request) -> async_sessionmaker[AsyncSession]:
    maker: async_sessionmaker[AsyncSession] = request.app.state.sessionmaker
    return maker


def _slots(request: Request) -> StreamSlots:
    slots: StreamSlots | None = getattr(request.app.state, "stream_slots", None)
    if slots is None:
        slots = request.app.state.stream_slots = StreamSlots()
    return slots


def _broker(request: Request) -> Broker:
    broker: Broker = request.app.state.broker
    return broker
