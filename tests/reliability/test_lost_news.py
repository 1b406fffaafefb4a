"""News is sent after the commit, so it can be lost; streams converge all the same (issue 24).

A decision is committed by another process whose notification never reaches the server
(it died between its commit and its NOTIFY, or its NOTIFY failed): here the test process
itself, deciding through the services with an in-process broker that tells nobody else.
The server's open streams of that match (``/api/live`` and the pages' ``/sse/live``) must
still show the new version within ``live.CATCH_UP_SECONDS`` and a little.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

import httpx
import pytest

from app.db.matches import VERSION_SPAN
from app.db.session import dispose, make_engine, make_sessionmaker
from app.services import live, play
from tests.reliability.held import HeldStream
from tests.reliability.support import Actor, start_match
from tests.support.db import new_request_id
from tests.support.server import Server

pytestmark = pytest.mark.serial  # times how soon the pages catch up: alone, not beside busy workers

CONVERGED_WITHIN_SECONDS = 2 * live.CATCH_UP_SECONDS + 3.0
"""Two catch-up reads (the first may find the news on its way) and a loaded machine's slack."""


class PageStream:
    """The pages' stream of one browser: records the committed version of each ``area``."""

    def __init__(self, client: httpx.AsyncClient, url: str) -> None:
        self.client, self.url = client, url
        self.areas: list[dict[str, Any]] = []
        self.changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def open(self) -> None:
        ready = asyncio.Event()
        self._task = asyncio.create_task(self._read(ready))
        await asyncio.wait_for(ready.wait(), 10)

    async def _read(self, ready: asyncio.Event) -> None:
        async with self.client.stream("GET", self.url, timeout=httpx.Timeout(10.0, read=None)) as answer:
            assert answer.status_code == 200, self.url
            event = ""
            async for line in answer.aiter_lines():
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:") and event == "hello":
                    ready.set()
                elif line.startswith("data:") and event == "area":
                    self.areas.append(json.loads(line[5:]))
                    self.changed.set()

    async def reached(self, version: int) -> None:
        async with asyncio.timeout(CONVERGED_WITHIN_SECONDS):
            while not any(a["version"] >= version for a in self.areas):
                self.changed.clear()
                await self.changed.wait()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task


async def _decide_unheard(database_url: str, match_id: int, user_id: int, version: int) -> int:
    """Alice's whole turn, committed here: its news reaches this process's broker only."""
    assert not live.current_broker().is_distributed
    engine = make_engine(database_url)
    try:
        async with make_sessionmaker(engine)() as db:
            view = await play.get_match(db, match_id=match_id, viewer_id=user_id, locale="en")
            assert view.version == version
            moved = await play.submit_move(
                db,
                match_id=match_id,
                user_id=user_id,
                move=view.legal[0],
                expected_version=version,
                request_id=new_request_id(),
                locale="en",
            )
            if not moved.committed:
                moved = await play.confirm_turn(
                    db,
                    match_id=match_id,
                    user_id=user_id,
                    expected_version=moved.version,
                    request_id=new_request_id(),
                    locale="en",
                )
            assert moved.committed
            return moved.version
    finally:
        await dispose(engine)


async def test_streams_converge_on_a_commit_whose_news_never_came(
    rel_server: Server, database_url: str, actors: list[Actor]
) -> None:
    alice, bob, carol = actors[:3]
    match = await start_match([alice, bob], "toy")
    match_id = match["id"]
    base = rel_server.base_url
    streams = [
        HeldStream("bob's api", bob.client, f"{base}/api/live?match={match_id}"),
        HeldStream("a spectator's api", carol.client, f"{base}/api/live?match={match_id}"),
    ]
    page = PageStream(carol.client, f"{base}/sse/live?m={match_id}")
    try:
        for stream in streams:
            await stream.open()
        await page.open()
        assert streams[0].latest == match["version"]
        committed_at = time.monotonic()
        version = await _decide_unheard(database_url, match_id, alice.id, match["version"])
        async with asyncio.timeout(CONVERGED_WITHIN_SECONDS):
            while any(s.latest < version for s in streams):
                assert not any(s.ended.is_set() for s in streams), "a stream ended"
                await asyncio.sleep(0.05)
        await page.reached(version)
        took = time.monotonic() - committed_at
        assert took < CONVERGED_WITHIN_SECONDS, took
        # What the streams were told is what a GET shows now.
        seen = (await bob.get(f"/api/matches/{match_id}")).json()
        assert seen["version"] == version == streams[0].pushes[-1]["version"]
        assert streams[1].pushes[-1]["version"] == version
        assert [a["version"] // VERSION_SPAN for a in page.areas] == [version // VERSION_SPAN]
        # The catch-up tells a stream once: no more pushes of that version on the next ticks.
        await asyncio.sleep(live.CATCH_UP_SECONDS * 1.5)
        assert [p["version"] for p in streams[0].pushes].count(version) == 1
        assert len(page.areas) == 1
    finally:
        for stream in streams:
            await stream.close()
        await page.close()
