"""Several server processes and restarts: pending turns survive, SSE crosses processes."""

from __future__ import annotations

import re
import time
from pathlib import Path

import httpx
import pytest

from app.db.matches import VERSION_SPAN
from tests.support.client import log_in, register, request_id
from tests.support.server import Server
from tests.support.sse import event_stream
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


async def test_the_other_seat_gets_its_new_view_pushed_with_only_the_new_log_lines(server: Server) -> None:
    alice, bob = await register(server.base_url), await register(server.base_url)
    try:
        m = await start_toy_match(alice, bob)
        async with event_stream(m.other.client, f"/api/live?match={m.id}") as stream:
            _, first = await stream.next("view")
            assert first["version"] == m.version and first["viewer_seat"] == 1
            confirmed = await m.mover.post(
                f"/api/matches/{m.id}/confirm", {"expected_version": m.version, "request_id": request_id()}
            )
            assert confirmed.status_code == 200
            _, pushed = await stream.next("view")
        new = confirmed.json()["version"]
        assert pushed["version"] == new and pushed["viewer_seat"] == 1
        assert pushed["to_act"] == [1] and pushed["legal"]  # bob's own view: his turn, his moves
        assert pushed["log_after"] == max((e["seq"] for e in first["log"]), default=0)
        assert pushed["log"] and all(e["seq"] > pushed["log_after"] for e in pushed["log"])
    finally:
        await alice.aclose()
        await bob.aclose()


async def test_a_pending_move_pushes_nothing_to_other_viewers(server: Server) -> None:
    alice, bob = await register(server.base_url), await register(server.base_url)
    try:
        m = await start_toy_match(alice, bob)
        async with (
            httpx.AsyncClient(base_url=server.base_url, timeout=10) as watcher,
            event_stream(watcher, f"/api/live?match={m.id}") as spectator,
            event_stream(m.other.client, f"/api/live?match={m.id}") as other,
        ):
            await spectator.next("view")
            await other.next("view")
            played = await m.mover.post(
                f"/api/matches/{m.id}/moves",
                {"move": first_play(m.view), "expected_version": m.version, "request_id": request_id()},
            )
            assert played.json()["committed"] is False
            for stream in (spectator, other):
                with pytest.raises(TimeoutError):
                    await stream.next(timeout=1.0)  # a pending decision is private: no timing leak
    finally:
        await alice.aclose()
        await bob.aclose()


@pytest.mark.postgres_only
@pytest.mark.serial  # timed: alone, not beside busy workers
async def test_a_move_on_one_server_reaches_a_stream_of_another_within_a_second(
    database_url: str, is_postgres: bool, tmp_path: Path
) -> None:
    if not is_postgres:
        pytest.skip("needs PostgreSQL: LISTEN/NOTIFY carries the news between processes")
    with Server(database_url, tmp_path / "one") as one, Server(database_url, tmp_path / "two") as two:
        alice, bob = await register(one.base_url), await register(one.base_url)
        try:
            m = await start_toy_match(alice, bob)
            async with (
                httpx.AsyncClient(base_url=two.base_url, timeout=10) as watcher,
                event_stream(watcher, f"/api/live?match={m.id}") as stream,
            ):
                await stream.next("view")
                posted_at = time.monotonic()
                confirmed = await m.mover.post(
                    f"/api/matches/{m.id}/confirm",
                    {"expected_version": m.version, "request_id": request_id()},
                )
                assert confirmed.status_code == 200
                _, pushed = await stream.next("view")
                arrived_at = time.monotonic()
            assert pushed["version"] == confirmed.json()["version"]
            assert pushed["viewer_seat"] is None and "hand" not in str(pushed["view"].get("hands", ""))
            assert arrived_at - posted_at < 1.0
        finally:
            await alice.aclose()
            await bob.aclose()


async def test_the_next_player_gets_the_new_board_and_badge_on_the_pages_stream(server: Server) -> None:
    alice, bob = await register(server.base_url), await register(server.base_url)
    try:
        m = await start_toy_match(alice, bob)
        async with event_stream(m.other.client, f"/sse/live?m={m.id}&me=1") as stream:
            _, hello = await stream.next("hello")
            assert hello == {str(m.id): m.version}
            confirmed = await m.mover.post(
                f"/api/matches/{m.id}/confirm", {"expected_version": m.version, "request_id": request_id()}
            )
            assert confirmed.status_code == 200
            _, area = await stream.next("area")
            _, me = await stream.next("me")
        assert area["match"] == m.id and area["version"] == confirmed.json()["version"]
        assert 'id="match-area"' in area["area"] and 'id="clock-panel"' in area["clock"]
        assert 'name="csrf_token" value=""' in area["clock"]  # shared fragments carry no token
        assert "Your turn: 1" in me["turn"]
    finally:
        await alice.aclose()
        await bob.aclose()


async def test_each_turn_ended_on_the_page_answers_with_the_area_its_own_stream_is_pushed(
    server: Server,
) -> None:
    """The answer to a committing decision and the push of that version to the mover's other
    tabs are one render (``shared_area``): the same bytes, turn after turn to the end, where
    the rematch form waits for the page's own token (no session's token is in a shared area)."""
    alice, bob = await register(server.base_url), await register(server.base_url)
    try:
        m = await start_toy_match(alice, bob)
        async with (
            event_stream(alice.client, f"/sse/live?m={m.id}&me=1") as alices,
            event_stream(bob.client, f"/sse/live?m={m.id}&me=1") as bobs,
        ):
            streams = {alice.id: alices, bob.id: bobs}
            for stream in streams.values():
                await stream.next("hello")
            answer, committed = None, 0
            for _decision in range(80):
                views = [(u, (await u.get(f"/api/matches/{m.id}")).json()) for u in (alice, bob)]
                if views[0][1]["status"] != "active":
                    break
                user, view = next((u, v) for u, v in views if v["viewer_seat"] in v["to_act"])
                plays = [move for move in view["legal"] if move != "confirm"]
                log_after = max((e["seq"] for e in view["log"] if not e["pending"]), default=0)
                form = {
                    "expected_version": view["version"],
                    "request_id": request_id(),
                    "log_after": log_after,
                }
                path = f"/matches/{m.id}/moves" if plays else f"/matches/{m.id}/confirm"
                if plays:
                    form["move"] = plays[0]
                answer = await user.post(path, data=form, headers={"HX-Request": "true"})
                assert answer.status_code == 200, answer.text
                version = int(
                    re.search(r'id="match-area" data-match="\d+" data-version="(\d+)"', answer.text)[1]
                )
                if version % VERSION_SPAN:
                    continue  # pending: the mover's alone, nothing is pushed
                committed += 1
                while True:
                    _, pushed = await streams[user.id].next("area")
                    if pushed["version"] == version:
                        break
                assert pushed["area"] == answer.text
                assert user.csrf not in answer.text
        assert answer is not None and committed > 5
        assert answer is not None and 'data-status="finished"' in answer.text
        assert '<input type="hidden" name="csrf_token" value="">' in answer.text  # the rematch form
    finally:
        await alice.aclose()
        await bob.aclose()


async def test_the_badge_stream_needs_a_login(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        response = await client.get("/sse/live?me=1")
    assert response.status_code == 401
