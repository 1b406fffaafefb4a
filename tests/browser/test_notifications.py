"""Issue 13.8 in the browser: playing the turn clears its notification, one match is one line."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.pages import VIEWPORTS, register, start_toy_match
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000


@VIEWPORTS
def test_playing_the_turn_clears_its_notification(server: Server, browser: Any, viewport: Any) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    alice_ctx = browser.new_context(locale="en-US", viewport=viewport)
    bob_ctx = browser.new_context(locale="en-US", viewport=viewport)
    try:
        alice, bob = alice_ctx.new_page(), bob_ctx.new_page()
        for page in (alice, bob):
            page.set_default_timeout(TIMEOUT_MS)
        alice_name, bob_name = register(alice, base), register(bob, base)
        match_id = start_toy_match(base, alice_name, bob_name)

        alice.goto(f"{base}/notifications")
        line = alice.locator(f"#notifications li[data-match='{match_id}']")
        expect(line).to_have_class("notification unread")
        expect(line).to_contain_text("your turn")
        expect(alice.locator("#unread-badge")).to_contain_text("1 new")

        # Alice plays a card and confirms: her turn is over, and so is its notification.
        alice.goto(f"{base}/matches/{match_id}")
        alice.locator("#match-area [data-move]").first.click()
        expect(alice.locator(".log-entry.pending")).to_have_count(1)
        alice.locator("[data-match-action=confirm]").click()
        expect(alice.locator(".turn-status")).to_contain_text("Waiting for")
        expect(alice.locator("#unread-badge")).not_to_contain_text("new")  # live, no reload
        alice.goto(f"{base}/notifications")
        expect(line).to_have_class("notification")
        expect(alice.locator("#notifications li")).to_have_count(1)

        # Bob's turn came with it: one line for the match (not the invitation and the turn).
        bob.goto(f"{base}/notifications")
        expect(bob.locator("#notifications li")).to_have_count(1)
        expect(bob.locator(f"#notifications li[data-match='{match_id}']")).to_contain_text("your turn")
    finally:
        alice_ctx.close()
        bob_ctx.close()
