"""Issue 13.1: ten tabs of the site in one browser over plain HTTP/1.1 all load, act and hear about
changes (browsers allow six connections per host: the tabs share one live stream through a
SharedWorker instead of holding one or two each). Also 13.13: "my matches" updates live."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.browser.pages import api_client, register, start_toy_match
from tests.support.client import request_id
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000
MATCH_TABS = 7
"""Seven match tabs, the lobby, my matches and a replay: ten."""


def _end_turn(client: httpx.Client, match_id: int) -> None:
    """The other player's whole turn over the API: a card if one is to play, then confirm."""
    view = client.get(f"/api/matches/{match_id}").json()
    body = {"expected_version": view["version"], "request_id": request_id()}
    plays = [m for m in view["legal"] if m != "confirm"]
    if plays:
        answer = client.post(f"/api/matches/{match_id}/moves", json={**body, "move": plays[0]})
        assert answer.status_code == 200, answer.text
        body = {"expected_version": answer.json()["match"]["version"], "request_id": request_id()}
    answer = client.post(f"/api/matches/{match_id}/confirm", json=body)
    assert answer.status_code == 200, answer.text


def test_ten_tabs_load_act_and_hear_changes_over_plain_http(server: Server, browser: Any) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    assert base.startswith("http://"), "plain HTTP/1.1, as `make run` serves it"
    context = browser.new_context(locale="en-US", viewport={"width": 1366, "height": 800})
    try:
        first = context.new_page()
        first.set_default_timeout(TIMEOUT_MS)
        alice = register(first, base)
        bob_page = browser.new_context().new_page()
        bob = register(bob_page, base)
        bob_page.context.close()
        matches = [start_toy_match(base, alice, bob) for _ in range(MATCH_TABS)]

        tabs: dict[str, Any] = {}
        paths = {f"match {i}": f"/matches/{m}" for i, m in enumerate(matches)}
        paths |= {"lobby": "/", "my matches": "/matches", "replay": f"/matches/{matches[0]}/replay"}
        for name, path in paths.items():
            page = first if name == "lobby" else context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(f"{base}{path}")
            tabs[name] = page
        assert len(tabs) == 10
        # Every tab has loaded (each waits on its own content, none on a free connection).
        for i in range(MATCH_TABS):
            expect(tabs[f"match {i}"].locator(".turn-status")).to_contain_text("Your turn!")
        expect(tabs["lobby"].locator("#open-heading")).to_be_visible()
        expect(tabs["my matches"].locator("#your-turn .match-row")).to_have_count(MATCH_TABS)
        expect(tabs["replay"].locator(".step-count")).to_be_visible()
        for page in tabs.values():
            expect(page.locator("#turn-badge")).to_contain_text(str(MATCH_TABS))

        # Every match tab acts: a card (pending), then Confirm; each click reaches the server.
        for i in range(MATCH_TABS):
            page = tabs[f"match {i}"]
            page.locator("#match-area [data-move]").first.click()
            expect(page.locator(".log-entry.pending")).to_have_count(1)
            page.locator("[data-match-action=confirm]").click()
            expect(page.locator(".turn-status")).to_contain_text("Waiting for")
        # The replay tab acts too (a step swaps its board), and my matches has followed live.
        tabs["replay"].keyboard.press("Home")
        expect(tabs["replay"].locator(".step-count")).to_contain_text("Step 0")
        expect(tabs["my matches"].locator("#your-turn .match-row")).to_have_count(0)
        expect(tabs["my matches"].locator("#waiting .match-row")).to_have_count(MATCH_TABS)

        # Bob plays in every match: every tab hears it, without a reload.
        client, _ = api_client(base, bob)
        try:
            for match_id in matches:
                _end_turn(client, match_id)
        finally:
            client.close()
        for i in range(MATCH_TABS):
            page = tabs[f"match {i}"]
            page.bring_to_front()  # a hidden tab may wait until it is shown again
            expect(page.locator(".turn-status")).to_contain_text("Your turn!")
        for page in tabs.values():
            expect(page.locator("#turn-badge")).to_contain_text(str(MATCH_TABS))
        expect(tabs["my matches"].locator("#your-turn .match-row")).to_have_count(MATCH_TABS)
    finally:
        context.close()
