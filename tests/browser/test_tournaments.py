"""A tournament in the browser: sign up with a click, the first round is played, the open page
shows the standings and the next pairing without a reload."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.browser.pages import DESKTOP, PHONE, VIEWPORTS, api_client, register, register_apart
from tests.browser.test_accessibility import AXE, RUN_AXE, SERIOUS, _axe_missing
from tests.support.client import PASSWORD, request_id, unique_name
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 15_000


def _play_out(match_id: int, clients: dict[str, httpx.Client], rng: random.Random) -> None:
    for _ in range(300):
        seen = next(iter(clients.values())).get(f"/api/matches/{match_id}").json()
        if seen["status"] != "active":
            return
        mover = clients[seen["seats"][seen["to_act"][0]]["name"]]
        view = mover.get(f"/api/matches/{match_id}").json()
        moves = [m for m in view["legal"] if m != "confirm"] or view["legal"]
        body = {"move": rng.choice(moves), "expected_version": view["version"], "request_id": request_id()}
        answer = mover.post(f"/api/matches/{match_id}/moves", json=body)
        assert answer.status_code == 200, answer.text
    raise AssertionError("the match did not end")


@VIEWPORTS
def test_sign_up_play_a_round_and_see_standings_and_the_next_pairing(
    server: Server, browser: Any, viewport: Any
) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    context = browser.new_context(locale="en-US", viewport=viewport)
    clients: dict[str, httpx.Client] = {}
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        alice = register(page, base)
        clients[alice], _ = api_client(base, alice)
        others = []
        for _ in range(3):
            client = httpx.Client(base_url=base, timeout=10.0)
            csrf = client.get("/api/auth/csrf").json()["csrf_token"]
            made = client.post(
                "/api/auth/register",
                json={"name": unique_name("t"), "password": PASSWORD, "locale": "en"},
                headers={"X-CSRF-Token": csrf},
            )
            assert made.status_code == 201, made.text
            client.headers["X-CSRF-Token"] = made.json()["csrf_token"]
            others.append(made.json()["user"]["name"])
            clients[others[-1]] = client
        body = {
            "name": "Browser cup",
            "game": "toy",
            "table_size": 2,
            "format": "swiss",
            "rounds": 2,
            "places": 4,
        }
        created = clients[others[0]].post("/api/tournaments", json=body)
        assert created.status_code == 201, created.text
        tid = created.json()["id"]
        for name in others:
            assert clients[name].post(f"/api/tournaments/{tid}/signup").status_code == 204

        page.goto(f"{base}/tournaments")
        page.get_by_role("link", name="Browser cup").click()
        page.locator("#sign-up").click()  # the last place: the tournament starts
        expect(page.locator("#tournament-state")).to_contain_text("round 1")
        expect(page.locator("#round-1")).to_contain_text(alice)

        rng = random.Random(5)
        t = clients[alice].get(f"/api/tournaments/{tid}").json()
        for table in t["rounds"][0]["tables"]:
            _play_out(table["match_id"], clients, rng)

        # No reload: the live stream tells the page the round is over and the next one paired.
        expect(page.locator("#tournament-state")).to_contain_text("round 2", timeout=TIMEOUT_MS)
        expect(page.locator("#standings")).to_contain_text(alice)
        expect(page.locator("#standings tbody tr")).to_have_count(4)
        second = page.locator("#round-2 a", has_text=alice)
        expect(second).to_be_visible()
        second.click()
        expect(page).to_have_url(f"{base}/matches/" + str(_match_of(clients[alice], tid, alice)))
    finally:
        for client in clients.values():
            client.close()
        context.close()


def _match_of(client: httpx.Client, tid: int, name: str) -> int:
    t = client.get(f"/api/tournaments/{tid}").json()
    return int(next(tb["match_id"] for tb in t["rounds"][1]["tables"] if name in tb["players"]))


@pytest.fixture(scope="module")
def tournament_pages(server: Server, browser: Any) -> Iterator[tuple[str, dict[str, str]]]:
    """An organiser with an invitation-only tournament in sign-up (its forms: remove, invite)
    and a running Swiss (standings, rounds); the paths to check."""
    missing = _axe_missing()
    if missing:
        if os.environ.get("DRACHENHORT_REQUIRE_BROWSER") == "1":
            pytest.fail(missing)
        pytest.skip(missing)
    base = server.base_url
    names = [register_apart(browser, base) for _ in range(5)]
    clients = [api_client(base, name)[0] for name in names]
    try:
        common = {"game": "toy", "table_size": 2}
        private = clients[0].post(
            "/api/tournaments",
            json={**common, "name": "Axe private", "format": "knockout", "places": 8, "public": False},
        )
        assert private.status_code == 201, private.text
        swiss = clients[0].post(
            "/api/tournaments",
            json={**common, "name": "Axe Swiss", "format": "swiss", "rounds": 2, "places": 4},
        )
        assert swiss.status_code == 201, swiss.text
        for client, name in zip(clients[1:3], names[1:3], strict=True):
            invited = clients[0].post(f"/api/tournaments/{private.json()['id']}/invites", json={"name": name})
            assert invited.status_code == 204, invited.text
            assert client.post(f"/api/tournaments/{private.json()['id']}/signup").status_code == 204
        for client in clients[1:]:
            assert client.post(f"/api/tournaments/{swiss.json()['id']}/signup").status_code == 204
        paths = {
            "list": "/tournaments?status=running",
            "sign-up": f"/tournaments/{private.json()['id']}",
            "standings": f"/tournaments/{swiss.json()['id']}",
        }
    finally:
        for client in clients:
            client.close()
    yield names[0], paths


@pytest.mark.parametrize("locale", ["de-DE", "en-US"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("name", ["list", "sign-up", "standings"])
def test_tournament_pages_have_no_serious_accessibility_violations(
    server: Server,
    browser: Any,
    tournament_pages: tuple[str, dict[str, str]],
    name: str,
    viewport: Any,
    locale: str,
) -> None:
    user, paths = tournament_pages
    context = browser.new_context(locale=locale, viewport=viewport, bypass_csp=True)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server.base_url}/login")
        page.fill("input[name=name]", user)
        page.fill("input[name=password]", PASSWORD)
        page.click("form[action='/login'] button[type=submit]")
        page.wait_for_url(f"{server.base_url}/")
        page.goto(f"{server.base_url}{paths[name]}")
        page.wait_for_load_state("load")
        page.wait_for_timeout(300)  # the badges and the live area have settled
        page.add_script_tag(path=str(AXE))
        found = [v for v in page.evaluate(RUN_AXE) if v["impact"] in SERIOUS]
        assert not found, "\n".join(f"{v['impact']} {v['id']}: {v['help']} {v['nodes']}" for v in found)
    finally:
        context.close()
