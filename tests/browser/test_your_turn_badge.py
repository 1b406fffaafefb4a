"""The your-turn badge and "next match": a user with two running matches follows the queue,
moves, and the other player's badge goes up live (SSE), without a reload."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.browser.test_play import register
from tests.support.client import PASSWORD
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000


def _api(base: str, name: str) -> tuple[httpx.Client, str]:
    client = httpx.Client(base_url=base, timeout=10.0)
    csrf = client.get("/api/auth/csrf").json()["csrf_token"]
    answer = client.post(
        "/api/auth/login", json={"name": name, "password": PASSWORD}, headers={"X-CSRF-Token": csrf}
    )
    assert answer.status_code == 200, answer.text
    return client, client.get("/api/auth/csrf").json()["csrf_token"]


def test_the_badge_leads_to_the_next_match_and_appears_live_for_the_other_player(
    server: Server, browser: Any
) -> None:
    # ``server`` first: on PostgreSQL its database is made with asyncio.run, which cannot run
    # once Playwright's sync API has its event loop going.
    from playwright.sync_api import expect

    base = server.base_url
    alice_ctx = browser.new_context(locale="en-US")
    bob_ctx = browser.new_context(locale="en-US")
    try:
        alice, bob = alice_ctx.new_page(), bob_ctx.new_page()
        for page in (alice, bob):
            page.set_default_timeout(TIMEOUT_MS)
        alice_name, bob_name = register(alice, base), register(bob, base)

        # Two running matches in which Alice moves first (fixed order, she created them).
        alice_api, alice_csrf = _api(base, alice_name)
        bob_api, bob_csrf = _api(base, bob_name)
        ids = []
        for _ in range(2):
            created = alice_api.post(
                "/api/matches",
                json={"game": "toy", "seats": 2, "fixed_order": True},
                headers={"X-CSRF-Token": alice_csrf},
            )
            assert created.status_code == 201, created.text
            ids.append(created.json()["id"])
            joined = bob_api.post(f"/api/matches/{ids[-1]}/join", json={}, headers={"X-CSRF-Token": bob_csrf})
            assert joined.status_code == 204, joined.text
        alice_api.close()
        bob_api.close()

        bob.goto(f"{base}/")
        expect(bob.locator("#turn-badge")).to_contain_text("Not your turn")
        alice.goto(f"{base}/")
        expect(alice.locator("#turn-badge")).to_contain_text("Your turn: 2")

        # "Next match" opens the match that has waited longest.
        alice.locator("#turn-badge").click()
        alice.wait_for_url(re.compile(rf"/matches/{ids[0]}$"))
        expect(alice.locator(".turn-status")).to_contain_text("Your turn!")
        alice.locator("#match-area [data-move]").first.click()
        expect(alice.locator(".log-entry.pending")).to_have_count(1)
        alice.locator("[data-match-action=confirm]").click()
        expect(alice.locator(".turn-status")).to_contain_text("Waiting for")

        # Bob's lobby page, untouched since it loaded, shows his turn now (the SSE nudge).
        expect(bob.locator("#turn-badge")).to_contain_text("Your turn: 1")
        expect(alice.locator("#turn-badge")).to_contain_text("Your turn: 1")

        # From this match page, "next match" goes on to Alice's other waiting match.
        alice.locator("#turn-badge").click()
        alice.wait_for_url(re.compile(rf"/matches/{ids[1]}$"))
        expect(alice.locator(".turn-status")).to_contain_text("Your turn!")
    finally:
        alice_ctx.close()
        bob_ctx.close()
