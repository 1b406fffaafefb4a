"""Issue 20.14: the home page lists your running matches and whose turn it is, by name;
invitations say who invited you; chat lines carry a time."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.pages import VIEWPORTS, api_client, register, start_toy_match
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000


@VIEWPORTS
def test_the_home_page_says_whose_turn_it_is_and_who_invited_you(
    server: Server, browser: Any, viewport: Any
) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    contexts = [browser.new_context(locale="en-US", viewport=viewport) for _ in range(3)]
    try:
        karin, bob, carol = (c.new_page() for c in contexts)
        for page in (karin, bob, carol):
            page.set_default_timeout(TIMEOUT_MS)
        karin_name, bob_name, carol_name = (register(p, base) for p in (karin, bob, carol))
        match_id = start_toy_match(base, karin_name, bob_name)

        bob.goto(f"{base}/")
        row = bob.locator(f"#running-list li[data-match='{match_id}']")
        expect(row).to_contain_text(f"waiting for {karin_name}")
        karin.goto(f"{base}/")
        expect(karin.locator(f"#running-list li[data-match='{match_id}']")).to_contain_text("Your turn!")

        # Karin moves; Bob's home page, open all the while, says it is his turn now.
        karin.locator(f"#running-list a[href='/matches/{match_id}']").click()
        karin.wait_for_url(f"{base}/matches/{match_id}")
        karin.wait_for_load_state()  # the page's scripts: a click before them does nothing
        karin.locator("#match-area [data-move]").first.click()
        expect(karin.locator(".log-entry.pending")).to_have_count(1)
        karin.locator("[data-match-action=confirm]").click()
        expect(karin.locator(".turn-status")).to_contain_text("Waiting for")
        expect(bob.locator("#turn-badge")).to_contain_text("Your turn: 1")  # the live news came
        expect(row).to_contain_text("Your turn!")
        expect(row).not_to_contain_text("waiting for")

        # A chat line says when it was written.
        karin.fill("#chat-text", "dein Zug")
        karin.locator(".chat-form button[type=submit]").click()
        line = karin.locator("#chat li", has_text="dein Zug")
        expect(line.locator("time[data-moment]")).to_have_text(re.compile(r"^today \d\d:\d\d"))

        # Carol is invited by Karin: the lobby and the notification name Karin.
        host, _ = api_client(base, karin_name)
        try:
            created = host.post("/api/matches", json={"game": "toy", "seats": 2, "invite": [carol_name]})
            assert created.status_code == 201, created.text
            table = created.json()["id"]
        finally:
            host.close()
        carol.goto(f"{base}/")
        expect(carol.locator("#open-matches li", has_text=f"#{table}")).to_contain_text(
            f"{karin_name} invites you"
        )
        carol.goto(f"{base}/notifications")
        expect(carol.locator(f"#notifications li[data-match='{table}']")).to_contain_text(
            f"{karin_name} invites you."
        )
    finally:
        for context in contexts:
            context.close()
