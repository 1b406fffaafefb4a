"""Tournaments over real HTTP: the JSON API from sign-up to podium (moves through the API), clear
4xx for bad input, and the pages in both languages."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import User
from tests.support.client import ApiUser, request_id
from tests.support.server import Server
from tests.web.conftest import MakeApiUser


async def _play_out(match_id: int, players: dict[str, ApiUser], rng: random.Random) -> None:
    """Random legal moves through the API (a non-confirm decision first where there is one)."""
    for _ in range(300):
        any_view = (await next(iter(players.values())).get(f"/api/matches/{match_id}")).json()
        if any_view["status"] != "active":
            return
        seat = any_view["to_act"][0]
        name = any_view["seats"][seat]["name"]
        mover = players[name]
        view = (await mover.get(f"/api/matches/{match_id}")).json()
        moves = [m for m in view["legal"] if m != "confirm"] or view["legal"]
        body = {"move": rng.choice(moves), "expected_version": view["version"], "request_id": request_id()}
        response = await mover.post(f"/api/matches/{match_id}/moves", body)
        assert response.status_code == 200, response.text
    raise AssertionError("the match did not end")


async def _paired_after(user: ApiUser, tid: int, rounds: int) -> dict[str, Any]:
    """The tournament once the round after ``rounds`` is paired or it has finished: the server
    pairs in the background after the move that ended the round has been answered."""
    for _ in range(300):
        t: dict[str, Any] = (await user.get(f"/api/tournaments/{tid}")).json()
        if len(t["rounds"]) > rounds or t["status"] != "running":
            return t
        await asyncio.sleep(0.05)
    raise AssertionError(f"tournament {tid}: round {rounds + 1} was not paired")


async def test_a_knockout_with_a_bye_from_sign_up_to_podium_over_http(
    api_user: MakeApiUser, server: Server
) -> None:
    creator = await api_user()
    created = await creator.post(
        "/api/tournaments",
        {
            "name": "HTTP cup",
            "game": "toy",
            "table_size": 2,
            "format": "knockout",
            "places": 3,
            "days_per_move": 2,
        },
    )
    assert created.status_code == 201, created.text
    tid = created.json()["id"]
    players = [await api_user() for _ in range(3)]
    by_name = {p.name: p for p in players}
    leaving = players[0]
    assert (await leaving.post(f"/api/tournaments/{tid}/signup")).status_code == 204
    assert (await leaving.post(f"/api/tournaments/{tid}/signup")).status_code == 409
    left = await leaving.client.delete(
        f"/api/tournaments/{tid}/signup", headers={"X-CSRF-Token": leaving.csrf}
    )
    assert left.status_code == 204
    for p in players:
        assert (await p.post(f"/api/tournaments/{tid}/signup")).status_code == 204
    t = (await creator.get(f"/api/tournaments/{tid}")).json()
    assert t["status"] == "running" and len(t["rounds"][0]["tables"]) == 2
    assert "user_id" not in str(t) and all(
        str(p.id) not in [e["name"] for e in t["entrants"]] for p in players
    )
    rng = random.Random(3)
    for _ in range(5):
        t = (await creator.get(f"/api/tournaments/{tid}")).json()
        if t["status"] == "finished":
            break
        for table in t["rounds"][-1]["tables"]:
            if table["match_id"] is not None and table["status"] == "active":
                await _play_out(table["match_id"], by_name, rng)
        t = await _paired_after(creator, tid, len(t["rounds"]))
    assert t["status"] == "finished", t
    assert len(t["rounds"]) == 2 and len(t["podium"]) == 3
    assert t["standings"][0]["name"] == t["podium"][0]
    listed = (await creator.get("/api/tournaments", params={"status": "finished"})).json()
    assert any(x["id"] == tid for x in listed["tournaments"])
    page = (await players[1].get("/notifications")).text
    assert f"tournament HTTP cup has ended; the podium: {', '.join(t['podium'])}." in page
    assert f'href="/tournaments/{tid}"' in page


async def test_bad_input_is_a_clear_4xx(api_user: MakeApiUser, server: Server) -> None:
    alice = await api_user()
    good = {"name": "Cup", "game": "toy", "table_size": 2, "format": "swiss", "rounds": 3, "places": 8}
    for bad, status in (
        ({"format": "ladder"}, 422),
        ({"rounds": None}, 422),
        ({"table_size": 3}, 422),
        ({"places": 9999}, 422),
        ({"game": "nope"}, 422),
        ({"signup_until": "yesterday"}, 422),
        ({"days_per_move": 0}, 422),
    ):
        response = await alice.post("/api/tournaments", {**good, **bad})
        assert response.status_code == status, (bad, response.text)
        assert response.json()["detail"]
    assert (await alice.get("/api/tournaments/987654")).status_code == 404
    assert (await alice.get("/api/tournaments/0")).status_code == 422
    assert (await alice.get("/api/tournaments", params={"status": "lost"})).status_code == 422
    assert (await alice.get("/api/tournaments", params={"page": 0})).status_code == 422
    assert (await alice.post("/api/tournaments/987654/signup")).status_code == 404
    tid = (await alice.post("/api/tournaments", good)).json()["id"]
    bob = await api_user()
    assert (await bob.post(f"/api/tournaments/{tid}/start")).status_code == 403
    assert (await alice.post(f"/api/tournaments/{tid}/start")).status_code == 409  # too few players
    assert (await bob.post(f"/api/tournaments/{tid}/withdraw")).status_code == 409
    async with httpx.AsyncClient(base_url=server.base_url) as anonymous:
        assert (await anonymous.post("/api/tournaments", json=good)).status_code in (401, 403)


async def test_pages_in_both_languages(api_user: MakeApiUser, server: Server) -> None:
    alice = await api_user()
    tid = (
        await alice.post(
            "/api/tournaments",
            {"name": "Seiten <Cup>", "game": "toy", "table_size": 2, "format": "knockout", "places": 2},
        )
    ).json()["id"]
    bob, carol = await api_user(), await api_user()
    for p in (bob, carol):
        await p.post(f"/api/tournaments/{tid}/signup")
    for locale, word in (("de", "Turniere"), ("en", "Tournaments")):
        async with httpx.AsyncClient(base_url=server.base_url, cookies={"locale": locale}) as client:
            listing = await client.get(
                "/tournaments", params={"status": "running"}, headers={"Accept-Language": locale}
            )
            assert listing.status_code == 200 and "Seiten &lt;Cup&gt;" in listing.text
            one = await client.get(f"/tournaments/{tid}", headers={"Accept-Language": locale})
            assert one.status_code == 200 and 'id="bracket"' in one.text and bob.name in one.text
            assert word in listing.text
    assert (await alice.get("/tournaments/new")).status_code == 200


async def _put_policy(user: ApiUser, admins_only: object) -> httpx.Response:
    return await user.client.put(
        "/api/tournaments/policy", json={"admins_only": admins_only}, headers={"X-CSRF-Token": user.csrf}
    )


async def test_the_administrator_may_restrict_creation_to_administrators(
    api_user: MakeApiUser, server: Server, db: AsyncSession
) -> None:
    admin, alice = await api_user(fresh=True), await api_user(fresh=True)
    await db.execute(update(User).where(User.id == admin.id).values(is_admin=True))
    await db.execute(
        update(User).where(User.id == alice.id).values(is_admin=False)
    )  # (the first user is one)
    await db.commit()
    good = {"name": "Cup", "game": "toy", "table_size": 2, "format": "knockout", "places": 4}
    assert (await _put_policy(alice, True)).status_code == 403
    for unclear in (0, "no", None):  # a JSON true or false only, never read as one
        assert (await _put_policy(admin, unclear)).status_code == 422
    try:
        assert (await _put_policy(admin, True)).json() == {
            "admins_only": True,
            "may_create": True,
        }
        refused = await alice.post("/api/tournaments", good)
        assert refused.status_code == 403
        assert refused.json()["detail"] == "on this server only administrators create tournaments"
        assert (await alice.get("/api/tournaments/policy")).json()["may_create"] is False
        assert (await alice.get("/tournaments/new")).status_code == 403
        listing = await alice.get("/tournaments")
        assert 'href="/tournaments/new"' not in listing.text and "/tournaments/policy" not in listing.text
        assert (await admin.post("/api/tournaments", good)).status_code == 201
        # The setting from the list page: the administrator sees the form and sets it back.
        assert 'action="/tournaments/policy"' in (await admin.get("/tournaments")).text
        response = await admin.client.post(
            "/tournaments/policy", data={"creators": "anyone", "csrf_token": admin.csrf}
        )
        assert response.status_code == 303
        assert (await alice.post("/api/tournaments", good)).status_code == 201
    finally:
        await _put_policy(admin, False)


async def test_the_creator_invites_by_name_and_removes_a_sign_up_on_the_page(
    api_user: MakeApiUser, server: Server
) -> None:
    alice, bob, carol = await api_user(), await api_user(), await api_user()
    tid = (
        await alice.post(
            "/api/tournaments",
            {
                "name": "Private",
                "game": "toy",
                "table_size": 2,
                "format": "knockout",
                "places": 4,
                "public": False,
            },
        )
    ).json()["id"]

    async def form(user: ApiUser, action: str, name: str) -> httpx.Response:
        data = {"name": name, "csrf_token": user.csrf}
        return await user.client.post(f"/tournaments/{tid}/{action}", data=data)

    assert (await bob.post(f"/api/tournaments/{tid}/signup")).status_code == 403  # not invited yet
    page = (await alice.get(f"/tournaments/{tid}")).text
    assert 'action="/tournaments/' in page and 'id="invite"' in page
    assert (await form(alice, "invite", bob.name)).status_code == 303
    assert (await form(bob, "invite", carol.name)).status_code == 403  # only the creator invites
    assert (await form(alice, "invite", "nobody-by-this-name")).status_code == 404
    assert bob.name in (await alice.get(f"/tournaments/{tid}")).text
    assert "You are invited to this tournament." in (await bob.get(f"/tournaments/{tid}")).text
    mine = (await bob.get("/api/tournaments", params={"status": "signup"})).json()["tournaments"]
    assert any(x["id"] == tid for x in mine)  # listed for the invited player
    assert (await bob.post(f"/api/tournaments/{tid}/signup")).status_code == 204
    assert (await carol.post(f"/api/tournaments/{tid}/signup")).status_code == 403

    page = (await alice.get(f"/tournaments/{tid}")).text
    assert f'aria-label="Remove {bob.name}"' in page
    assert 'aria-label="Remove' not in (await bob.get(f"/tournaments/{tid}")).text
    assert (await form(bob, "remove", bob.name)).status_code == 403
    assert (await form(alice, "remove", bob.name)).status_code == 303
    t = (await alice.get(f"/api/tournaments/{tid}")).json()
    assert t["entrants"] == [] and t["invitations"] == [bob.name]
