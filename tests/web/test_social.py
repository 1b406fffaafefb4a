"""Friends, blocks, search and statistics over HTTP (a real server): the JSON API the checks
use, and the pages in both languages."""

from __future__ import annotations

from typing import Any

from tests.support.client import ApiUser
from tests.web.conftest import MakeApiUser, start_toy_match


async def delete(user: ApiUser, path: str) -> Any:
    return await user.client.delete(path, headers={"X-CSRF-Token": user.csrf})


async def test_a_friend_request_accepted_shows_online_state_and_running_matches(
    api_user: MakeApiUser,
) -> None:
    alice, bob = await api_user(), await api_user()
    asked = await alice.post(f"/api/me/friends/{bob.name}")
    assert asked.status_code == 201 and asked.json() == {"name": bob.name, "relation": "asked"}
    waiting = (await bob.get("/api/me/friends")).json()
    assert waiting["asking"] == [alice.name] and waiting["friends"] == []
    assert (await bob.get(f"/api/me/friends/{alice.name}")).json()["relation"] == "asking"
    accepted = await bob.post(f"/api/me/friends/{alice.name}")
    assert accepted.status_code == 200 and accepted.json()["relation"] == "friend"
    match = await start_toy_match(alice, bob)
    listed = (await alice.get("/api/me/friends")).json()
    [friend] = listed["friends"]
    assert friend["name"] == bob.name and friend["online"] is True
    assert match.id in [m["id"] for m in friend["running"]]
    assert listed["total"] == 1
    removed = await delete(alice, f"/api/me/friends/{bob.name}")
    assert removed.status_code == 200 and removed.json()["relation"] == "none"
    assert (await bob.get("/api/me/friends")).json()["friends"] == []
    assert (await delete(alice, f"/api/me/friends/{bob.name}")).status_code == 404


async def test_friends_need_a_login_and_a_real_name(api_user: MakeApiUser, server: Any) -> None:
    import httpx

    async with httpx.AsyncClient(base_url=server.base_url) as anonymous:
        assert (await anonymous.get("/api/me/friends")).status_code == 401
    alice = await api_user()
    missing = await alice.post("/api/me/friends/nobody-is-called-so")
    assert missing.status_code == 404 and "no player called" in missing.json()["detail"]
    assert (await alice.post(f"/api/me/friends/{alice.name}")).status_code == 422
    assert (await alice.get("/api/me/friends?page=0")).status_code == 422


async def test_a_block_refuses_invitations_chat_and_friend_requests(api_user: MakeApiUser) -> None:
    alice, bob = await api_user(), await api_user()
    match = await start_toy_match(alice, bob)
    blocked = await alice.post(f"/api/me/blocks/{bob.name}")
    assert blocked.status_code == 201 and blocked.json()["relation"] == "blocked"
    assert (await alice.get("/api/me/blocks")).json()["names"] == [bob.name]
    invite = await bob.post("/api/matches", {"game": "toy", "seats": 2, "invite": [alice.name]})
    assert invite.status_code == 403 and "does not accept invitations" in invite.json()["detail"]
    chat = await bob.post(f"/api/matches/{match.id}/messages", {"text": "hi"})
    assert chat.status_code == 403 and "blocked you" in chat.json()["detail"]
    ask = await bob.post(f"/api/me/friends/{alice.name}")
    assert ask.status_code == 403
    assert (await delete(alice, f"/api/me/blocks/{bob.name}")).status_code == 200
    assert (await bob.post(f"/api/matches/{match.id}/messages", {"text": "hi again"})).status_code == 201
    assert (await delete(alice, f"/api/me/blocks/{bob.name}")).status_code == 404


async def test_search_stats_versus_and_game_stats(api_user: MakeApiUser) -> None:
    alice, bob = await api_user(fresh=True), await api_user(fresh=True)
    for loser in (bob, alice, bob):
        match = await start_toy_match(alice, bob)
        resigned = await loser.post(f"/api/matches/{match.id}/resign")
        assert resigned.status_code == 200, resigned.text
    found = (await alice.get("/api/users", params={"q": alice.name[:-2].upper()})).json()
    mine = next(p for p in found["players"] if p["name"] == alice.name)
    assert mine["played"] == {"toy": 3} and "toy" in mine["ratings"]
    assert (await alice.get("/api/users", params={"q": ""})).status_code == 422

    stats = (await alice.get(f"/api/users/{alice.name}/stats")).json()
    [toy] = stats["games"]
    assert (toy["played"], toy["won"], toy["best_streak"]) == (3, 2, 1)
    assert len(toy["rating_history"]) == 3 and toy["rating"] is not None
    assert toy["favourite_opponents"][0]["name"] == bob.name
    versus = (await alice.get(f"/api/users/{alice.name}/versus/{bob.name}")).json()
    assert (versus["played"], versus["won"], versus["lost"], versus["drawn"]) == (3, 2, 1, 0)
    assert len(versus["matches"]) == 3
    assert (await alice.get(f"/api/users/{alice.name}/versus/nobody-called-so")).status_code == 404
    game = (await alice.get("/api/games/toy/stats")).json()
    assert game["matches"] >= 3 and game["tables"][0]["players"] == 2
    assert (await alice.get("/api/games/no-such-game/stats")).status_code == 404

    german = await api_user(locale="de")
    for viewer, words in (
        (alice, ("Statistics", "Win rate", "Rating over time", "Favourite opponents")),
        (german, ("Statistik", "Siegquote", "Wertung im Lauf der Zeit", "Häufigste Gegner")),
    ):
        page = await viewer.get(f"/users/{alice.name}")
        assert page.status_code == 200
        assert all(w in page.text for w in words), [w for w in words if w not in page.text]
        assert page.text.count('class="dot"') == 3  # the rating graph, a point per rated match
    versus_page = await alice.get(f"/users/{alice.name}/versus/{bob.name}")
    assert versus_page.status_code == 200 and 'id="versus-score"' in versus_page.text
    assert (await alice.get("/people", params={"q": alice.name})).status_code == 200
    assert (await alice.get("/friends")).status_code == 200
    assert (await alice.get("/games/toy/stats")).status_code == 200
