"""One account holds at most 50 live streams on a worker (issue 24): the 51st is refused with a
clear 429, the 50 keep working, other accounts are not touched, and a closed stream frees its
place."""

from __future__ import annotations

import asyncio
import contextlib

import httpx

from app.web.stream_limit import MAX_STREAMS_PER_ACCOUNT, TOO_MANY_STREAMS
from tests.reliability.held import HeldStream
from tests.reliability.support import Actor, request_id, start_match
from tests.support.server import Server


async def _status_of_one_more(actor: Actor, url: str) -> tuple[int, str]:
    """Open one more stream: its status and, when refused, its body (an open one is closed)."""
    async with actor.client.stream("GET", url, timeout=httpx.Timeout(10.0, read=10.0)) as answer:
        if answer.status_code != 200:
            return answer.status_code, (await answer.aread()).decode()
        return 200, ""


async def test_an_account_holds_at_most_fifty_streams(rel_server: Server, actors: list[Actor]) -> None:
    alice, bob, carol = actors[:3]
    match = await start_match([alice, bob], "toy")
    match_id = match["id"]
    base = rel_server.base_url
    urls = [f"{base}/api/live?match={match_id}", f"{base}/sse/live?m={match_id}&me=1"]
    # Pages' and JSON streams count alike.
    held = [HeldStream(f"bob {i}", bob.client, urls[i % 2]) for i in range(MAX_STREAMS_PER_ACCOUNT)]
    others: list[HeldStream] = []
    try:
        for stream in held:
            await stream.open()
        for url in urls:
            status, body = await _status_of_one_more(bob, url)
            assert status == 429, (url, status, body)
            assert TOO_MANY_STREAMS in body, body
        # Somebody else is not touched by bob's streams.
        others.append(HeldStream("carol", carol.client, urls[0]))
        await others[0].open()
        # Bob's fifty keep working: a commit reaches them (and carol's).
        body = {"expected_version": match["version"], "request_id": request_id(), "confirm": True}
        moved = await alice.post(f"/api/matches/{match_id}/moves", {**body, "move": match["legal"][0]})
        assert moved.status_code == 200, moved.text
        if not moved.json()["committed"]:
            body = {"expected_version": moved.json()["version"], "request_id": request_id()}
            moved = await alice.post(f"/api/matches/{match_id}/confirm", body)
            assert moved.status_code == 200, moved.text
        version = moved.json()["version"]
        for stream in [s for s in held if "api/live" in s.url] + others:
            assert await stream.reached(version), stream.label
        # A closed stream gives its place back.
        await held.pop().close()
        status = 429
        for _ in range(50):
            status, _ = await _status_of_one_more(bob, urls[0])
            if status == 200:
                break
            await asyncio.sleep(0.1)
        assert status == 200
    finally:
        for stream in held + others:
            with contextlib.suppress(Exception):
                await stream.close()
