"""The JSON API over real HTTP: status codes with reasons, optimistic locking, idempotency."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tests.support.client import request_id
from tests.support.server import Server
from tests.support.sse import event_stream
from tests.web.conftest import MakeApiUser, ToyMatch, first_play, start_toy_match


async def test_games_list_offers_the_toy_game(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30.0) as client:
        games = (await client.get("/api/games")).json()
    toy = next(g for g in games if g["slug"] == "toy")
    assert (toy["min_players"], toy["max_players"]) == (2, 4)
    assert toy["options"][0]["key"] == "short"


async def test_openapi_documents_the_api(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30.0) as client:
        schema = (await client.get("/api/openapi.json")).json()
        docs = await client.get("/api/docs")
    assert "/api/matches/{match_id}/moves" in schema["paths"]
    assert "/matches/{match_id}" not in schema["paths"]  # pages stay out of the API schema
    assert docs.status_code == 200


async def test_malformed_json_is_422(api_user: MakeApiUser) -> None:
    alice = await api_user()
    response = await alice.post(
        "/api/matches", content=b'{"game": "toy", "seats": ', headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422
    assert "json" in response.json()["detail"].lower()


async def test_unknown_match_is_404(api_user: MakeApiUser) -> None:
    alice = await api_user()
    assert (await alice.get("/api/matches/987654")).status_code == 404
    response = await alice.post(
        "/api/matches/987654/moves", {"move": "play:1", "expected_version": 0, "request_id": request_id()}
    )
    assert response.status_code == 404
    assert response.json()["detail"]


async def test_not_logged_in_is_401(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30.0) as client:
        assert (await client.get("/api/me/matches")).status_code == 401


async def test_move_by_the_waiting_seat_is_403(toy_match: ToyMatch) -> None:
    m = toy_match
    response = await m.other.post(
        f"/api/matches/{m.id}/moves",
        {"move": first_play(m.view), "expected_version": m.version, "request_id": request_id()},
    )
    assert response.status_code == 403
    assert "turn" in response.json()["detail"]


async def test_illegal_move_is_422_with_the_rules_reason(toy_match: ToyMatch) -> None:
    m = toy_match
    absent = next(str(v) for v in range(1, 10) if v not in m.view["view"]["hand"])
    response = await m.mover.post(
        f"/api/matches/{m.id}/moves",
        {"move": f"play:{absent}", "expected_version": m.version, "request_id": request_id()},
    )
    assert response.status_code == 422
    assert f"play:{absent}" in response.json()["detail"]


async def test_stale_version_is_409_with_the_fresh_match(toy_match: ToyMatch) -> None:
    m = toy_match
    ok = await m.mover.post(
        f"/api/matches/{m.id}/moves",
        {"move": first_play(m.view), "expected_version": m.version, "request_id": request_id()},
    )
    assert ok.status_code == 200, ok.text
    stale = await m.mover.post(
        f"/api/matches/{m.id}/confirm", {"expected_version": m.version, "request_id": request_id()}
    )
    assert stale.status_code == 409
    body = stale.json()
    assert body["match"]["version"] == ok.json()["version"] == body["current_version"]
    assert body["detail"]


async def test_same_request_id_twice_applies_once(toy_match: ToyMatch) -> None:
    m = toy_match
    payload = {"move": first_play(m.view), "expected_version": m.version, "request_id": request_id()}
    first = await m.mover.post(f"/api/matches/{m.id}/moves", payload)
    second = await m.mover.post(f"/api/matches/{m.id}/moves", payload)
    assert first.status_code == second.status_code == 200
    assert first.json()["version"] == second.json()["version"]
    view = (await m.mover.get(f"/api/matches/{m.id}")).json()
    assert len(view["view"]["hand"]) == 2  # one card played, not two
    assert len([e for e in view["log"] if e["pending"]]) == 1


async def test_concurrent_submissions_on_one_version_apply_exactly_once(toy_match: ToyMatch) -> None:
    m = toy_match
    hand = sorted(set(m.view["view"]["hand"]))
    moves = [f"play:{hand[0]}", f"play:{hand[-1]}"]
    responses = await asyncio.gather(
        *(
            m.mover.post(
                f"/api/matches/{m.id}/moves",
                {"move": move, "expected_version": m.version, "request_id": request_id()},
            )
            for move in moves
        )
    )
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200, 409], [r.text for r in responses]
    view = (await m.mover.get(f"/api/matches/{m.id}")).json()
    assert len(view["view"]["hand"]) == 2
    assert view["version"] == m.version + 1


async def test_undo_and_confirm_over_the_api(toy_match: ToyMatch) -> None:
    m = toy_match
    played = await m.mover.post(
        f"/api/matches/{m.id}/moves",
        {"move": first_play(m.view), "expected_version": m.version, "request_id": request_id()},
    )
    result = played.json()
    assert result["committed"] is False and result["match"]["can_undo"] is True
    undone = await m.mover.post(
        f"/api/matches/{m.id}/undo", {"expected_version": result["version"], "request_id": request_id()}
    )
    assert undone.status_code == 200, undone.text
    assert len(undone.json()["match"]["view"]["hand"]) == 3
    confirmed = await m.mover.post(
        f"/api/matches/{m.id}/confirm",
        {"expected_version": undone.json()["version"], "request_id": request_id()},
    )
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["committed"] is True
    other_view = (await m.other.get(f"/api/matches/{m.id}")).json()
    assert other_view["viewer_seat"] in other_view["to_act"]


async def test_my_matches_lists_the_your_turn_queue(toy_match: ToyMatch) -> None:
    m = toy_match
    mine = (await m.mover.get("/api/me/matches")).json()
    theirs = (await m.other.get("/api/me/matches?order=recent")).json()
    assert m.id in [s["id"] for s in mine["your_turn"]]
    assert m.id in [s["id"] for s in theirs["waiting"]]


async def test_replay_steps_over_the_api(toy_match: ToyMatch) -> None:
    m = toy_match
    await m.mover.post(
        f"/api/matches/{m.id}/confirm", {"expected_version": m.version, "request_id": request_id()}
    )
    step0 = await m.other.get(f"/api/matches/{m.id}/replay/0")
    assert step0.status_code == 200, step0.text
    assert step0.json()["steps"] >= 1
    steps = step0.json()["steps"]
    last = (await m.other.get(f"/api/matches/{m.id}/replay/{steps}")).json()
    assert last["step"] == steps and last["move"] == "confirm"
    beyond = await m.other.get(f"/api/matches/{m.id}/replay/{steps + 1}")
    assert beyond.status_code == 409 and "no such step" in beyond.json()["detail"]


async def test_a_spectator_sees_no_hand(toy_match: ToyMatch, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30.0) as spectator:
        view = (await spectator.get(f"/api/matches/{toy_match.id}")).json()
    assert view["viewer_seat"] is None
    assert view["view"]["hand"] is None and view["legal"] == []


async def test_a_pending_move_is_invisible_to_the_other_player(toy_match: ToyMatch) -> None:
    m = toy_match
    played = await m.mover.post(
        f"/api/matches/{m.id}/moves",
        {"move": first_play(m.view), "expected_version": m.version, "request_id": request_id()},
    )
    assert played.json()["committed"] is False
    other = await m.other.get(f"/api/matches/{m.id}")
    body = other.json()
    assert body["log"] == []
    assert body["view"]["played"] == [0, 0]
    assert body["view"]["hand_sizes"] == [3, 3]
    assert "seed" not in other.text
    page = await m.other.get(f"/matches/{m.id}")
    assert "log-entry pending" not in page.text


async def test_no_answer_carries_the_seed_or_another_hand(toy_match: ToyMatch) -> None:
    m = toy_match
    mover_hand = m.view["view"]["hand"]
    other = (await m.other.get(f"/api/matches/{m.id}")).json()
    assert other["view"]["hand"] != mover_hand or len(set(mover_hand)) < 3  # its own hand, not the mover's
    for response in (
        await m.other.get(f"/api/matches/{m.id}"),
        await m.other.get(f"/api/matches/{m.id}/replay/0"),
        await m.other.get("/api/me/matches"),
    ):
        assert "seed" not in response.text
        assert "position" not in response.text


async def test_chat_leave_and_cancel_over_the_api(toy_match: ToyMatch, api_user: MakeApiUser) -> None:
    m = toy_match
    said = await m.mover.post(f"/api/matches/{m.id}/messages", {"text": "good luck <3"})
    assert said.status_code == 201, said.text
    heard = (await m.other.get(f"/api/matches/{m.id}/messages")).json()
    assert [msg["text"] for msg in heard] == ["good luck <3"]
    outsider = await api_user()
    assert (await outsider.get(f"/api/matches/{m.id}/messages")).status_code == 403
    assert (await m.mover.post(f"/api/matches/{m.id}/leave")).status_code == 409  # started already

    created = (await outsider.post("/api/matches", {"game": "toy", "seats": 3})).json()
    joined = await m.other.post(f"/api/matches/{created['id']}/join", {})
    assert joined.status_code == 204
    assert (await m.other.post(f"/api/matches/{created['id']}/cancel")).status_code == 403
    assert (await m.other.post(f"/api/matches/{created['id']}/leave")).status_code == 204
    assert (await outsider.post(f"/api/matches/{created['id']}/cancel")).status_code == 204
    assert (await outsider.get(f"/api/matches/{created['id']}")).json()["status"] == "cancelled"


async def test_unknown_routes_are_404_pages(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30.0) as client:
        page = await client.get("/no/such/page")
        api = await client.get("/api/no-such-thing")
    assert page.status_code == 404 and 'class="flash error"' in page.text
    assert api.status_code == 404 and api.json()["detail"]


async def test_a_move_with_confirm_true_ends_the_turn_in_one_request(toy_match: ToyMatch) -> None:
    """The second card leaves nothing but confirm: ``"confirm": true`` commits the turn with it,
    and the other seat sees the turn pass; a non-boolean ``confirm`` is refused with a reason."""
    m = toy_match
    moves = f"/api/matches/{m.id}/moves"
    first = await m.mover.post(
        moves,
        {
            "move": first_play(m.view),
            "expected_version": m.version,
            "request_id": request_id(),
            "confirm": True,
        },
    )
    assert first.status_code == 200 and not first.json()["committed"], first.text
    view = first.json()["match"]
    body = {"move": first_play(view), "expected_version": view["version"], "request_id": request_id()}
    forged = await m.mover.post(moves, {**body, "confirm": "x"})
    assert forged.status_code == 422 and forged.json()["detail"]
    second = await m.mover.post(moves, {**body, "confirm": True})
    assert second.status_code == 200 and second.json()["committed"], second.text
    seen = (await m.other.get(f"/api/matches/{m.id}")).json()
    assert seen["version"] == second.json()["version"] and seen["to_act"] == [seen["viewer_seat"]]


async def test_a_match_stream_says_me_only_for_news_its_own_views_do_not_bring(api_user: MakeApiUser) -> None:
    """A commit of the streamed match brings its view, not also a ``me``; another match's does."""
    alice, bob = await api_user(), await api_user()
    first, second = await start_toy_match(alice, bob), await start_toy_match(alice, bob)
    async with event_stream(first.other.client, f"/api/live?match={first.id}") as stream:
        await stream.next("view")
        for m in (first, second):
            done = await m.mover.post(
                f"/api/matches/{m.id}/confirm", {"expected_version": m.version, "request_id": request_id()}
            )
            assert done.status_code == 200, done.text
            await stream.next("view" if m is first else "me")
        with pytest.raises(TimeoutError):
            await stream.next(timeout=0.5)
    assert [event for event, _ in stream.seen] == ["view", "view", "me"]
