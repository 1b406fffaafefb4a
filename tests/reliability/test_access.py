"""Access over real HTTP (issue 7, "Access"): who may act, read pending decisions and chat;
spectators see only public information; logout ends the session; login is rate-limited."""

from __future__ import annotations

import json
from typing import Any

import httpx

from app.engine.registry import get_game
from tests.reliability.support import Actor, new_actor, read_match, request_id, start_match
from tests.support.client import PASSWORD
from tests.support.server import Server


async def _pending_toy_match(actors: list[Actor]) -> tuple[int, dict[str, Any]]:
    """A toy match where seat 0 has one pending (undoable) decision; its answer."""
    view = await start_match(actors[:2], "toy")
    move = next(m for m in view["legal"] if m != "confirm")
    played = await actors[0].post(
        f"/api/matches/{view['id']}/moves",
        {"move": move, "expected_version": view["version"], "request_id": request_id()},
    )
    assert played.status_code == 200 and played.json()["committed"] is False, played.text
    return int(view["id"]), played.json()["match"]


async def test_a_non_member_can_neither_act_undo_confirm_nor_chat(
    actors: list[Actor], database_url: str
) -> None:
    match_id, mine = await _pending_toy_match(actors)
    outsider = actors[2]
    before = await read_match(database_url, match_id)
    version = before.version
    legal = next(m for m in mine["legal"] if m != "confirm") if mine["legal"] else "confirm"
    api = {
        "moves": {"move": legal, "expected_version": version, "request_id": request_id()},
        "undo": {"expected_version": version, "request_id": request_id()},
        "confirm": {"expected_version": version, "request_id": request_id()},
    }
    for action, body in api.items():
        response = await outsider.post(f"/api/matches/{match_id}/{action}", body)
        assert response.status_code == 403, (action, response.status_code, response.text)
        assert response.json()["detail"] == "you do not play in this match"
    form = {"move": legal, "expected_version": str(version), "request_id": request_id()}
    for action in ("moves", "undo", "confirm"):
        response = await outsider.client.post(
            f"{outsider.base_url}/matches/{match_id}/{action}",
            data=form,
            headers={"X-CSRF-Token": outsider.csrf},
        )
        assert response.status_code == 403, (action, response.status_code)
    chat = await outsider.client.post(
        f"{outsider.base_url}/matches/{match_id}/chat",
        data={"text": "hi"},
        headers={"X-CSRF-Token": outsider.csrf},
    )
    assert chat.status_code == 403
    assert (await outsider.get(f"/matches/{match_id}/chat")).status_code == 403
    after = await read_match(database_url, match_id)
    assert (after.version, after.pending, len(after.log)) == (version, before.pending, len(before.log))


async def test_nobody_but_the_acting_seat_sees_its_pending_decisions(
    actors: list[Actor], database_url: str
) -> None:
    match_id, mine = await _pending_toy_match(actors)
    stored = await read_match(database_url, match_id)
    game = get_game("toy")
    anonymous = httpx.AsyncClient(base_url=actors[0].base_url)
    try:
        for seat, client in ((1, actors[1].client), (None, actors[2].client), (None, anonymous)):
            url = f"{actors[0].base_url}/api/matches/{match_id}"
            body = (await client.get(url)).json()
            assert body["viewer_seat"] == seat
            assert body["view"] == json.loads(json.dumps(game.view(stored.turn.committed, seat)))
            assert body["view"] != mine["view"]
            assert body["can_undo"] is False and body["legal"] == []
            assert not [e for e in body["log"] if e["pending"]]
    finally:
        await anonymous.aclose()


async def test_a_spectator_sees_no_hand_and_no_chat(actors: list[Actor]) -> None:
    view = await start_match(actors[:2], "toy")
    secret_words = "meet-me-at-the-volcano-7"
    posted = await actors[0].client.post(
        f"{actors[0].base_url}/matches/{view['id']}/chat",
        data={"text": secret_words},
        headers={"X-CSRF-Token": actors[0].csrf},
    )
    assert posted.status_code == 303
    assert secret_words in (await actors[1].get(f"/matches/{view['id']}")).text
    spectator = await actors[3].get(f"/api/matches/{view['id']}")
    assert spectator.json()["view"]["hand"] is None
    page = await actors[3].get(f"/matches/{view['id']}")
    assert page.status_code == 200 and secret_words not in page.text


async def test_another_user_cannot_replay_someone_elses_request_id(actors: list[Actor]) -> None:
    """A stored answer holds its player's private view: a reused request id gets 409, not it."""
    view = await start_match(actors[:2], "toy")
    rid = request_id()
    move = next(m for m in view["legal"] if m != "confirm")
    body = {"move": move, "expected_version": view["version"], "request_id": rid}
    assert (await actors[0].post(f"/api/matches/{view['id']}/moves", body)).status_code == 200
    stolen = await actors[1].post(f"/api/matches/{view['id']}/moves", body)
    assert stolen.status_code == 409 and "hand" not in stolen.text


async def test_an_outsider_reusing_a_request_id_is_refused_as_an_outsider(actors: list[Actor]) -> None:
    """Membership comes before the request id (issue 11.5): an outsider learns nothing about
    which ids the players used, and undo and confirm answer the same."""
    view = await start_match(actors[:2], "toy")
    rid = request_id()
    move = next(m for m in view["legal"] if m != "confirm")
    body = {"move": move, "expected_version": view["version"], "request_id": rid}
    assert (await actors[0].post(f"/api/matches/{view['id']}/moves", body)).status_code == 200
    unused = {**body, "request_id": request_id()}
    for action, reused in [("moves", body), ("undo", body), ("confirm", body), ("moves", unused)]:
        answer = await actors[2].post(f"/api/matches/{view['id']}/{action}", reused)
        assert answer.status_code == 403, (action, answer.status_code, answer.text)
        assert answer.json()["detail"] == "you do not play in this match"


async def test_logout_invalidates_the_session_everywhere(rel_server: Server, database_url: str) -> None:
    user = await new_actor(rel_server.base_url, database_url)
    token = user.client.cookies["drachenhort_session"]
    assert (await user.post("/api/auth/logout")).status_code == 204
    await user.aclose()
    async with httpx.AsyncClient(
        base_url=rel_server.base_url, cookies={"drachenhort_session": token}
    ) as thief:
        me = (await thief.get("/api/auth/csrf")).json()
        assert me["user"] is None
        created = await thief.post(
            "/api/matches", json={"game": "toy", "seats": 2}, headers={"X-CSRF-Token": me["csrf_token"]}
        )
        assert created.status_code == 401
        page = await thief.get("/matches", follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"].startswith("/login")


async def test_login_is_rate_limited_per_name(rel_server: Server, database_url: str) -> None:
    victim = await new_actor(rel_server.base_url, database_url)
    await victim.aclose()
    async with httpx.AsyncClient(base_url=rel_server.base_url, timeout=30) as attacker:
        csrf = (await attacker.get("/api/auth/csrf")).json()["csrf_token"]
        statuses = []
        for attempt in range(6):
            response = await attacker.post(
                "/api/auth/login",
                json={"name": victim.name, "password": f"guess-{attempt}-wrong"},
                headers={"X-CSRF-Token": csrf},
            )
            statuses.append(response.status_code)
        assert statuses == [401] * 5 + [429], statuses
        right = await attacker.post(
            "/api/auth/login",
            json={"name": victim.name, "password": PASSWORD},
            headers={"X-CSRF-Token": csrf},
        )
        assert right.status_code == 429, "the right password must not get through while locked"
        assert "wait" in right.json()["detail"]
