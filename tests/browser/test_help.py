"""Issue 20.15: the rules open in a panel beside the board, and a first match says what to click."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.pages import DESKTOP, PHONE, VIEWPORTS, register, start_toy_match
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000


@VIEWPORTS
def test_the_rules_open_beside_the_board_and_a_first_match_says_what_to_click(
    server: Server, browser: Any, viewport: Any
) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    touch = viewport == PHONE
    contexts = [browser.new_context(locale="en-US", viewport=viewport, has_touch=touch) for _ in range(2)]
    try:
        alice, bob = (c.new_page() for c in contexts)
        alice.set_default_timeout(TIMEOUT_MS)
        alice_name, bob_name = register(alice, base), register(bob, base)
        match_id = start_toy_match(base, alice_name, bob_name)
        url = f"{base}/matches/{match_id}"
        alice.goto(url)

        hint = alice.locator("#first-hint")
        expect(hint).to_be_visible()
        expect(hint).to_contain_text("click (or tap) a highlighted piece")

        rules_link = alice.locator(".match-links").get_by_role("link", name="Rules")
        if touch:
            rules_link.tap()
        else:
            rules_link.click()
        panel = alice.locator("#rules-panel")
        expect(panel).to_be_visible()
        expect(panel.locator("h1")).to_contain_text("Rules")
        expect(alice).to_have_url(url)  # not a new page
        if viewport == DESKTOP:  # beside the board, not over it
            board, aside = alice.locator("#board").bounding_box(), panel.bounding_box()
            assert board is not None and aside is not None
            assert board["x"] + board["width"] <= aside["x"], (board, aside)
        close = panel.get_by_role("button", name="Close the rules")
        if touch:
            close.tap()
        else:
            close.click()
        expect(panel).to_be_hidden()
        expect(alice.locator("#board")).to_be_visible()
        expect(alice.locator("h1")).to_have_text(re.compile(r"#\d+"))  # the rules' heading is gone
    finally:
        for context in contexts:
            context.close()
