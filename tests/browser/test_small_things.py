"""Issue 20.16: one "Next match" on a table's page, a Replay link once a match starts while its
page is open, a phone header pill that says what it counts."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.pages import PHONE, VIEWPORTS, api_client, register
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000


@VIEWPORTS
def test_a_table_that_starts_while_open_gets_its_replay_link(
    server: Server, browser: Any, viewport: Any
) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    alice_ctx = browser.new_context(locale="en-US", viewport=viewport, has_touch=viewport == PHONE)
    try:
        alice = alice_ctx.new_page()
        alice.set_default_timeout(TIMEOUT_MS)
        alice_name = register(alice, base)
        bob_name = register(alice_ctx.browser.new_context().new_page(), base)
        host, _ = api_client(base, alice_name)
        try:
            created = host.post("/api/matches", json={"game": "toy", "seats": 2, "fixed_order": True})
            assert created.status_code == 201, created.text
            match_id = created.json()["id"]
        finally:
            host.close()

        alice.goto(f"{base}/matches/{match_id}")
        expect(alice.get_by_role("link", name=re.compile("Next match"))).to_have_count(1)
        replay = alice.get_by_role("link", name="Replay")
        expect(replay).to_have_count(0)  # nothing to replay at an open table

        joiner, _ = api_client(base, bob_name)
        try:
            assert joiner.post(f"/api/matches/{match_id}/join", json={}).status_code == 204
        finally:
            joiner.close()
        expect(alice.locator(".turn-status")).to_contain_text("Your turn!")  # the board came live
        expect(replay).to_be_visible()
        if viewport == PHONE:
            replay.tap()
        else:
            replay.click()
        expect(alice).to_have_url(f"{base}/matches/{match_id}/replay")
        alice.goto(f"{base}/matches/{match_id}")
        expect(alice.get_by_role("link", name=re.compile("Next match"))).to_have_count(1)

        # The header's turn pill says what its number counts, on a phone too.
        shown = alice.locator("#turn-badge " + (".badge-short" if viewport == PHONE else ".badge-count"))
        expect(shown).to_be_visible()
        expect(shown).to_have_text(re.compile(r"^(Your turn|To play): 1$"))  # not a bare "1"
    finally:
        alice_ctx.close()
