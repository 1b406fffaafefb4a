"""Pages over real HTTP: accounts, lobby, match page, moves as htmx answers, replay, languages."""

from __future__ import annotations

import re

import httpx

from tests.support.client import PASSWORD, ApiUser, request_id, unique_name
from tests.support.server import Server
from tests.web.conftest import MakeApiUser, ToyMatch, first_play, start_toy_match


def csrf_in(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([0-9a-f]+)"', html)
    assert found, "no CSRF field in the page"
    return found.group(1)


async def test_register_with_the_form_logs_in_and_shows_the_lobby(server: Server) -> None:
    name = unique_name()
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        form = await client.get("/register")
        response = await client.post(
            "/register",
            data={"name": name, "password": PASSWORD, "csrf_token": csrf_in(form.text), "next": "/"},
        )
        assert response.status_code == 303
        lobby = await client.get("/")
    assert name in lobby.text
    assert "Toy cards" in lobby.text
    assert 'src="/static/js/live.js"' in lobby.text and 'data-user="' in lobby.text


async def test_login_form_shows_the_reason_on_bad_credentials(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        form = await client.get("/login")
        response = await client.post(
            "/login",
            data={"name": unique_name(), "password": "wrong-password", "csrf_token": csrf_in(form.text)},
        )
    assert response.status_code == 401
    assert "wrong name or password" in response.text


async def test_accept_language_german_gets_german(server: Server) -> None:
    async with httpx.AsyncClient(
        base_url=server.base_url, headers={"Accept-Language": "de-DE,de;q=0.9"}
    ) as c:
        page = await c.get("/")
    assert '<html lang="de">' in page.text
    assert "Offene Partien" in page.text and "Anmelden" in page.text


async def test_locale_switch_is_remembered_in_a_cookie_and_for_the_user(api_user: MakeApiUser) -> None:
    alice = await api_user(fresh=True)  # its language changes: not for the pool
    page = await alice.get("/")
    assert "Open matches" in page.text
    switched = await alice.client.post(
        "/locale", data={"locale": "de", "next": "/", "csrf_token": alice.csrf}
    )
    assert switched.status_code == 303
    assert "Offene Partien" in (await alice.get("/")).text
    alice.client.cookies.delete("drachenhort_locale")
    assert "Offene Partien" in (await alice.get("/")).text  # the user's setting


async def test_create_match_with_the_form(api_user: MakeApiUser) -> None:
    alice = await api_user(fresh=True)  # her start page shows her newest ten matches
    bob = await api_user()
    response = await alice.client.post(
        "/matches",
        data={"game": "toy", "seats": "2", "opt_short": "True", "invite": bob.name, "csrf_token": alice.csrf},
    )
    assert response.status_code == 303, response.text
    match_id = int(response.headers["location"].rsplit("/", 1)[1])
    summary = (await alice.get(f"/api/matches/{match_id}")).json()
    assert summary["options"] == {"short": True}
    page = await alice.get(f"/matches/{match_id}")
    assert "/invite/" in page.text
    # On the start page the table that has not started waits for players, not for nobody.
    row = (await alice.get("/")).text.split(f'data-match="{match_id}"')[1].split("</li>")[0]
    assert "Waiting for players" in row and "waiting for <" not in row and "waiting for  " not in row


async def test_the_create_form_sets_the_time_control_and_refuses_a_bad_one(api_user: MakeApiUser) -> None:
    alice = await api_user()
    form = {"game": "toy", "seats": "2", "csrf_token": alice.csrf}
    response = await alice.client.post("/matches", data={**form, "days": "3", "policy": "vote"})
    assert response.status_code == 303, response.text
    match_id = int(response.headers["location"].rsplit("/", 1)[1])
    clock = (await alice.get(f"/api/matches/{match_id}/clock")).json()
    assert (clock["days_per_move"], clock["policy"]) == (3, "vote")
    page = await alice.get(f"/matches/{match_id}")
    assert 'id="clock-panel"' in page.text and "3 days per move" in page.text

    before = (await alice.get("/api/me/matches")).json()
    for bad in ({"days": "15"}, {"days": "two"}, {"days": "2", "policy": "coin-flip"}):
        refused = await alice.client.post("/matches", data={**form, **bad})
        assert refused.status_code == 422, (bad, refused.status_code)
    assert (await alice.get("/api/me/matches")).json() == before  # nothing half-made


async def test_match_page_shows_legal_moves_log_and_controls(toy_match: ToyMatch) -> None:
    m = toy_match
    page = await m.mover.get(f"/matches/{m.id}")
    assert page.status_code == 200
    assert f'data-version="{m.version}"' in page.text
    assert f'data-move="{first_play(m.view)}"' in page.text
    assert 'data-match-action="confirm"' in page.text
    assert f'data-live-match="{m.id}"' in page.text
    other = await m.other.get(f"/matches/{m.id}")
    assert "data-move=" not in other.text


async def test_posting_a_move_answers_with_the_match_area(toy_match: ToyMatch) -> None:
    m = toy_match
    move = first_play(m.view)
    response = await m.mover.client.post(
        f"/matches/{m.id}/moves",
        data={
            "move": move,
            "expected_version": m.version,
            "request_id": request_id(),
            "csrf_token": m.mover.csrf,
        },
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200, response.text
    assert response.text.lstrip().startswith('<div id="match-area"')
    pending_line = (
        r'class="log-entry seat-\d pending decision" value="\d+" data-seq="\d+" data-seat="\d" '
        r'data-pieces="card-'
    )
    assert re.search(pending_line, response.text)
    stale = await m.mover.client.post(
        f"/matches/{m.id}/moves",
        data={
            "move": move,
            "expected_version": m.version,
            "request_id": request_id(),
            "csrf_token": m.mover.csrf,
        },
        headers={"HX-Request": "true"},
    )
    assert stale.status_code == 409
    assert 'id="match-area"' in stale.text and "moved on" in stale.text


async def test_illegal_move_from_the_page_is_a_flash_message(toy_match: ToyMatch) -> None:
    m = toy_match
    response = await m.other.client.post(
        f"/matches/{m.id}/moves",
        data={
            "move": "play:1",
            "expected_version": m.version,
            "request_id": request_id(),
            "csrf_token": m.other.csrf,
        },
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 403
    assert 'class="flash error"' in response.text
    assert response.headers["hx-retarget"] == "#flash"


async def test_user_text_is_escaped(toy_match: ToyMatch) -> None:
    m = toy_match
    evil = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    posted = await m.mover.client.post(
        f"/matches/{m.id}/chat",
        data={"text": evil, "csrf_token": m.mover.csrf},
        headers={"HX-Request": "true"},
    )
    assert posted.status_code == 200, posted.text
    page = await m.other.get(f"/matches/{m.id}")
    assert "&lt;script&gt;alert(" in page.text
    assert "<script>alert" not in page.text and "<img src=x" not in page.text


async def test_my_matches_page_and_order_switch(toy_match: ToyMatch) -> None:
    m = toy_match
    page = await m.mover.get("/matches")
    assert f'href="/matches/{m.id}"' in page.text.split('id="waiting"')[0]
    recent = await m.mover.get("/matches?order=recent")
    assert "most recent first</strong>" in recent.text
    badge = await m.mover.get("/me/badge")
    assert "Your turn:" in badge.text
    nxt = await m.mover.get("/matches/next")
    assert nxt.status_code == 303 and nxt.headers["location"].startswith("/matches/")
    # The finished list is paged; a page number out of range is a clear 422 (page and API).
    assert 'id="finished"' in (await m.mover.get("/matches?page=2")).text
    for wrong in ("0", "x", "10001"):
        assert (await m.mover.get(f"/matches?page={wrong}")).status_code == 422
        assert (await m.mover.get(f"/api/me/matches?finished_page={wrong}")).status_code == 422
        assert (await m.mover.get(f"/notifications?page={wrong}")).status_code == 422
        assert (await m.mover.get(f"/api/me/notifications?page={wrong}")).status_code == 422
    assert (await m.mover.get("/api/me/notifications?page=2")).json() == []
    assert 'id="notifications"' in (await m.mover.get("/notifications?page=2")).text
    mine = (await m.mover.get("/api/me/matches?finished_page=2")).json()
    assert mine["finished"] == [] and mine["finished_page"] == 2 and mine["finished_more"] is False


async def test_replay_page_steps(toy_match: ToyMatch) -> None:
    m = toy_match
    await m.mover.post(
        f"/api/matches/{m.id}/confirm", {"expected_version": m.version, "request_id": request_id()}
    )
    page = await m.other.get(f"/matches/{m.id}/replay")
    assert page.status_code == 200, page.text
    assert 'data-replay="prev"' in page.text and 'type="range"' in page.text
    first = await m.other.get(f"/matches/{m.id}/replay?step=0")
    assert 'data-replay="first" class="button" aria-disabled="true"' in first.text
    # A step the match does not have (yet) says so, in the reader's language (issue 19.4).
    steps = (await m.other.get(f"/api/matches/{m.id}/replay/0")).json()["steps"]
    async with httpx.AsyncClient(
        base_url=m.other.client.base_url, headers={"Accept-Language": "de"}
    ) as visitor:
        beyond = await visitor.get(f"/matches/{m.id}/replay?step={steps + 1}")
    assert beyond.status_code == 409
    assert "Diesen Schritt gibt es in dieser Partie (noch) nicht" in beyond.text


async def test_rules_page_and_unknown_game(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        assert (await client.get("/games/toy/rules")).status_code == 200
        missing = await client.get("/games/no-such-game/rules")
    assert missing.status_code == 404
    assert "Traceback" not in missing.text


async def test_unknown_match_page_is_404_page(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        response = await client.get("/matches/987654")
    assert response.status_code == 404
    assert 'class="flash error"' in response.text


async def test_invite_link_seats_a_friend_after_registering(api_user: MakeApiUser, server: Server) -> None:
    alice = await api_user()
    created = await alice.post("/api/matches", {"game": "toy", "seats": 2})
    token = created.json()["invite_token"]
    assert token
    async with httpx.AsyncClient(base_url=server.base_url) as friend:
        first = await friend.get(f"/invite/{token}")
        assert first.status_code == 303 and first.headers["location"].startswith("/register?next=/invite/")
        form = await friend.get(first.headers["location"])
        registered = await friend.post(
            "/register",
            data={
                "name": unique_name(),
                "password": PASSWORD,
                "csrf_token": csrf_in(form.text),
                "next": f"/invite/{token}",
            },
        )
        assert registered.headers["location"] == f"/invite/{token}"
        invite = await friend.get(f"/invite/{token}")
        taken = await friend.post(f"/invite/{token}", data={"csrf_token": csrf_in(invite.text)})
        assert taken.status_code == 303
    view = (await alice.get(f"/api/matches/{created.json()['id']}")).json()
    assert view["status"] == "active"


async def test_logout_ends_the_session(api_user: MakeApiUser) -> None:
    alice: ApiUser = await api_user()
    response = await alice.client.post("/logout", data={"csrf_token": alice.csrf})
    assert response.status_code == 303
    assert (await alice.get("/api/me/matches")).status_code == 401


async def test_start_is_rendered_for_a_second_match(api_user: MakeApiUser) -> None:
    m = await start_toy_match(await api_user(), await api_user())
    assert (await m.other.get(f"/matches/{m.id}/area")).status_code == 200


async def test_known_reasons_are_shown_in_german(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url, headers={"Accept-Language": "de"}) as client:
        form = await client.get("/login")
        response = await client.post(
            "/login",
            data={"name": unique_name(), "password": "wrong-password", "csrf_token": csrf_in(form.text)},
        )
    assert response.status_code == 401
    assert "Name oder Passwort falsch" in response.text


async def test_a_finished_match_shows_ranks_and_replays_every_step(toy_match: ToyMatch) -> None:
    m = toy_match
    players = {m.mover.id: m.mover, m.other.id: m.other}
    view = m.view
    for _ in range(200):
        if view["status"] != "active":
            break
        seat = view["to_act"][0]
        user_id = next(s["user_id"] for s in view["seats"] if s["seat"] == seat)
        actor = players[user_id]
        own = (await actor.get(f"/api/matches/{m.id}")).json()
        plays = [move for move in own["legal"] if move != "confirm"]
        path, body = ("moves", {"move": plays[-1]}) if plays and own["can_undo"] is False else ("confirm", {})
        answer = await actor.post(
            f"/api/matches/{m.id}/{path}",
            {**body, "expected_version": own["version"], "request_id": request_id()},
        )
        assert answer.status_code == 200, answer.text
        view = answer.json()["match"]
    assert view["status"] == "finished"
    page = await m.other.get(f"/matches/{m.id}")
    # The game-over banner names the winner; the table has names, integer scores and ranks.
    outcome = view["outcome"]
    names = {s["seat"]: s["name"] for s in view["seats"]}
    winners = [names[seat] for seat, rank in enumerate(outcome["ranks"]) if rank == 1]
    banner = f"{winners[0]} wins!" if len(winners) == 1 else "A draw: everybody shares first place."
    assert banner in page.text and 'id="match-result"' in page.text
    for seat, name in names.items():
        score, rank = int(outcome["scores"][seat]), outcome["ranks"][seat]
        row = re.search(rf'<tr[^>]*data-seat="{seat}">(.*?)</tr>', page.text, re.S)
        assert row is not None
        assert re.findall(r"<t[dh][^>]*>\s*([^<]+?)\s*<", row.group(1)) == [f"{rank}.", name, str(score)]
    assert ".0<" not in page.text
    assert f'href="/matches/{m.id}/replay"' in page.text and 'data-action="rematch"' in page.text
    assert 'data-match-action="confirm"' not in page.text
    steps = (await m.other.get(f"/api/matches/{m.id}/replay/0")).json()["steps"]
    for step in (0, steps // 2, steps):
        replay = await m.other.get(f"/matches/{m.id}/replay?step={step}")
        assert replay.status_code == 200
        assert f"Step {step} of {steps}" in replay.text


async def test_pages_name_games_in_the_readers_language(api_user: MakeApiUser) -> None:
    anna = await api_user(locale="de")
    created = await anna.post("/api/matches", json={"game": "drachenland", "seats": 2, "options": {}})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    for path in ("/matches", f"/users/{anna.name}"):
        page = await anna.get(path)
        assert f"Drachenland #{match_id}" in page.text, path
        assert "Dragonland" not in page.text, path
    english = await api_user()
    lobby = await english.get("/")
    assert f"Dragonland #{match_id}" in lobby.text  # the open table, in English


async def test_a_player_who_chose_it_has_the_turn_confirm_itself(toy_match: ToyMatch) -> None:
    """The setting "Confirm my turn by itself": the card that leaves nothing but Confirm ends
    the turn; before it is set (and for the other player) the turn waits for Confirm."""
    m = toy_match
    settings = await m.mover.client.get("/settings")
    assert (
        'name="auto_confirm"' in settings.text
        and "checked" not in settings.text.split('name="auto_confirm"')[1][:40]
    )
    saved = await m.mover.client.post("/settings", data={"auto_confirm": "1", "csrf_token": m.mover.csrf})
    assert saved.status_code == 200 and re.search(r'name="auto_confirm" value="1"[^>]*checked', saved.text)

    async def play(view: dict[str, object]) -> dict[str, object]:
        answer = await m.mover.client.post(
            f"/matches/{m.id}/moves",
            data={
                "move": first_play(view),  # type: ignore[arg-type]
                "expected_version": view["version"],
                "request_id": request_id(),
                "csrf_token": m.mover.csrf,
            },
            headers={"HX-Request": "true"},
        )
        assert answer.status_code == 200, answer.text
        seen: dict[str, object] = (await m.mover.get(f"/api/matches/{m.id}")).json()
        return seen

    once = await play(m.view)
    assert once["can_undo"] and once["to_act"] == [once["viewer_seat"]], "a second card may follow: it waits"
    twice = await play(once)
    assert not twice["can_undo"] and twice["to_act"] != [twice["viewer_seat"]], "nothing left: confirmed"
    other = (await m.other.get(f"/api/matches/{m.id}")).json()
    assert other["version"] == twice["version"] and other["to_act"] == [other["viewer_seat"]]
