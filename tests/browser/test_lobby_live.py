"""Issue 20.3: the lobby's open tables are live, like the header's badges."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.pages import VIEWPORTS, api_client, register
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000


@VIEWPORTS
def test_an_invitation_shows_in_the_open_lobby_without_a_reload(
    server: Server, browser: Any, viewport: Any
) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    alice_ctx = browser.new_context(locale="en-US", viewport=viewport)
    bob_ctx = browser.new_context(locale="en-US", viewport=viewport)
    try:
        alice, bob = alice_ctx.new_page(), bob_ctx.new_page()
        alice.set_default_timeout(TIMEOUT_MS)
        alice_name, bob_name = register(alice, base), register(bob, base)
        alice.goto(f"{base}/")
        tables = alice.locator("#open-matches")
        expect(tables).to_be_visible()

        creator, _ = api_client(base, bob_name)
        try:
            body = {"game": "toy", "seats": 2, "invite": [alice_name]}
            created = creator.post("/api/matches", json=body)
            assert created.status_code == 201, created.text
            match_id = created.json()["id"]
        finally:
            creator.close()

        expect(alice.locator("#unread-badge")).to_contain_text("1 new")
        row = tables.locator(f"a[href='/matches/{match_id}']")
        expect(row).to_be_visible()  # no reload: the page is the one loaded before the invitation
        expect(tables).to_contain_text(f"{alice_name} (invited)")
        row.click()
        expect(alice).to_have_url(f"{base}/matches/{match_id}")
    finally:
        alice_ctx.close()
        bob_ctx.close()
