"""Issue 13.2: resigning asks first and says what follows, in a dialog with scripts and on a
page without them; going back changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.pages import VIEWPORTS, api_client, register, start_toy_match
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000


def _status(base: str, name: str, match_id: int) -> str:
    client, _ = api_client(base, name)
    try:
        return str(client.get(f"/api/matches/{match_id}").json()["status"])
    finally:
        client.close()


@VIEWPORTS
@pytest.mark.parametrize("scripts", [True, False], ids=["dialog", "no-js"])
def test_resigning_asks_first_and_says_what_follows(
    server: Server, browser: Any, viewport: Any, scripts: bool
) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    alice_ctx = browser.new_context(locale="en-US", viewport=viewport, java_script_enabled=scripts)
    bob_ctx = browser.new_context(locale="en-US")
    try:
        alice, bob = alice_ctx.new_page(), bob_ctx.new_page()
        alice.set_default_timeout(TIMEOUT_MS)
        alice_name, bob_name = register(alice, base), register(bob, base)
        match_id = start_toy_match(base, alice_name, bob_name)
        match_url = f"{base}/matches/{match_id}"
        alice.goto(match_url)

        resign = alice.locator("[data-action=resign]")
        resign.click()
        question = alice.locator("#confirm-dialog" if scripts else ".confirm-page")
        expect(question).to_be_visible()
        expect(question).to_contain_text("Resign from Toy cards")
        expect(question).to_contain_text(f"The match ends now: {bob_name} wins, and you are ranked second.")
        if scripts:
            assert alice.url == match_url  # a dialog over the match, no page load
            expect(question.locator("[data-close-dialog]")).to_be_focused()  # Enter goes back

        # Going back leaves the match running.
        question.get_by_role("link", name="No, go back").click()
        expect(alice.locator("#confirm-dialog")).to_be_hidden()
        alice.wait_for_url(match_url)
        assert _status(base, alice_name, match_id) == "active"

        resign.click()
        question.get_by_role("button", name="Yes, resign").click()
        alice.wait_for_url(match_url)
        expect(alice.locator("#match-result")).to_contain_text(f"{bob_name} wins: {alice_name} resigned.")
        assert _status(base, alice_name, match_id) == "finished"
    finally:
        alice_ctx.close()
        bob_ctx.close()
