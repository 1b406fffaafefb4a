"""Several server processes and restarts: pending turns survive, SSE crosses processes."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest

from tests.support.client import log_in, register, request_id
from tests.support.server import Server
from tests.web.conftest import first_play, start_toy_match


async def test_pending_decisions_survive_a_server_restart(database_url: str, tmp_path: Path) -> None:
    with Server(database_url, tmp_path / "restart") as server:
        alice, bob = await register(server.base_url), await register(server.base_url)
        m = await start_toy_match(alice, bob)
        move = first_play(m.view)
        played = await m.mover.post(
            f"/api/matches/{m.id}/moves",
            {"move": move, "expected_version": m.version, "request_id": request_id()},
        )
        assert played.status_code == 200 and played.json()["committed"] is False
        before = played.json()["match"]
        for user in (alice, bob):
            await user.aclose()
        server.restart()
        mover = await log_in(server.base_url, m.mover.name)
        try:
            after = (await mover.get(f"/api/matches/{m.id}")).json()
            assert after["version"] == before["version"]
            assert after["view"] == before["view"]
            assert [e["pending"] for e in after["log"]] == [e["pending"] for e in before["log"]]
            assert after["can_undo"] is True
            confirmed = await mover.post(
                f"/api/matches/{m.id}/confirm",
                {"expected_version": after["version"], "request_id": request_id()},
            )
            assert confirmed.status_code == 200, confirmed.text
        finally:
            await mover.aclose()


async def _first_event(client: httpx.AsyncClient, path: str, ready: asyncio.Event) -> tuple[str, float]:
    async with client.stream("GET", path) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        ready.set()
        event = ""
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event in ("match", "me"):
                return event, time.monotonic()
    raise AssertionError("the stream ended without an event")


async def test_sse_nudge_reaches_a_viewer_in_the_same_process(server: Server) -> None:
    alice, bob = await register(server.base_url), await register(server.base_url)
    try:
        m = await start_toy_match(alice, bob)
        ready = asyncio.Event()
        async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as watcher:
            task = asyncio.create_task(_first_event(watcher, f"/sse/matches/{m.id}", ready))
            await asyncio.wait_for(ready.wait(), 5)
            await asyncio.sleep(0.2)
            confirmed = await m.mover.post(
                f"/api/matches/{m.id}/confirm", {"expected_version": m.version, "request_id": request_id()}
            )
            assert confirmed.status_code == 200
            event, _ = await asyncio.wait_for(task, 5)
        assert event == "match"
    finally:
        await alice.aclose()
        await bob.aclose()


async def test_a_pending_move_does_not_nudge_other_viewers(server: Server) -> None:
    alice, bob = await register(server.base_url), await register(server.base_url)
    try:
        m = await start_toy_match(alice, bob)
        ready = asyncio.Event()
        async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as watcher:
            task = asyncio.create_task(_first_event(watcher, f"/sse/matches/{m.id}", ready))
            await asyncio.wait_for(ready.wait(), 5)
            played = await m.mover.post(
                f"/api/matches/{m.id}/moves",
                {"move": first_play(m.view), "expected_version": m.version, "request_id": request_id()},
            )
            assert played.json()["committed"] is False
            done, _ = await asyncio.wait({task}, timeout=1.0)
            task.cancel()
        assert not done, "a pending decision nudged other viewers (a timing leak)"
    finally:
        await alice.aclose()
        await bob.aclose()


@pytest.mark.postgres_only
async def test_a_move_on_one_server_reaches_an_sse_client_of_another_within_a_second(
    database_url: str, is_postgres: bool, tmp_path: Path
) -> None:
    if not is_postgres:
        pytest.skip("needs PostgreSQL: LISTEN/NOTIFY carries nudges between processes")
    with Server(database_url, tmp_path / "one") as one, Server(database_url, tmp_path / "two") as two:
        alice, bob = await register(one.base_url), await register(one.base_url)
        try:
            m = await start_toy_match(alice, bob)
            ready = asyncio.Event()
            async with httpx.AsyncClient(base_url=two.base_url, timeout=10) as watcher:
                task = asyncio.create_task(_first_event(watcher, f"/sse/matches/{m.id}", ready))
                await asyncio.wait_for(ready.wait(), 5)
                await asyncio.sleep(0.2)
                posted_at = time.monotonic()
                confirmed = await m.mover.post(
                    f"/api/matches/{m.id}/confirm",
                    {"expected_version": m.version, "request_id": request_id()},
                )
                assert confirmed.status_code == 200
                event, arrived_at = await asyncio.wait_for(task, 5)
            assert event == "match"
            assert arrived_at - posted_at < 1.0
        finally:
            await alice.aclose()
            await bob.aclose()


async def test_the_next_player_hears_on_their_own_stream(server: Server) -> None:
    alice, bob = await register(server.base_url), await register(server.base_url)
    try:
        m = await start_toy_match(alice, bob)
        ready = asyncio.Event()
        task = asyncio.create_task(_first_event(m.other.client, "/sse/me", ready))
        await asyncio.wait_for(ready.wait(), 5)
        await asyncio.sleep(0.2)
        confirmed = await m.mover.post(
            f"/api/matches/{m.id}/confirm", {"expected_version": m.version, "request_id": request_id()}
        )
        assert confirmed.status_code == 200
        event, _ = await asyncio.wait_for(task, 5)
        assert event == "me"
        badge = await m.other.get("/me/badge")
        assert "Your turn: 1" in badge.text
    finally:
        await alice.aclose()
        await bob.aclose()


async def test_my_stream_needs_a_login(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        response = await client.get("/sse/me")
    assert response.status_code == 401
