"""Issue 20.10: times in the viewer's zone and language, and a countdown beside the acting seat."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.pages import VIEWPORTS, api_client, register
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000


def _clocked_toy_match(base_url: str, first: str, second: str, days: int) -> int:
    creator, _ = api_client(base_url, first)
    joiner, _ = api_client(base_url, second)
    try:
        body = {"game": "toy", "seats": 2, "fixed_order": True, "days_per_move": days}
        created = creator.post("/api/matches", json=body)
        assert created.status_code == 201, created.text
        match_id = int(created.json()["id"])
        assert joiner.post(f"/api/matches/{match_id}/join", json={}).status_code == 204
        return match_id
    finally:
        creator.close()
        joiner.close()


@VIEWPORTS
def test_a_german_player_reads_times_in_berlin_time_and_sees_the_countdown(
    server: Server, browser: Any, viewport: Any
) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    karin_ctx = browser.new_context(locale="de-DE", timezone_id="Europe/Berlin", viewport=viewport)
    bob_ctx = browser.new_context(locale="en-US", timezone_id="America/New_York", viewport=viewport)
    try:
        karin, bob = karin_ctx.new_page(), bob_ctx.new_page()
        for page in (karin, bob):
            page.set_default_timeout(TIMEOUT_MS)
        karin_name, bob_name = register(karin, base), register(bob, base)
        match_id = _clocked_toy_match(base, karin_name, bob_name, days=2)

        karin.goto(f"{base}/matches/{match_id}")
        own = karin.locator(".player.to-act [data-seat-clock]")
        expect(own).to_be_visible()  # beside her name: 2 days less the seconds gone by
        expect(own).to_have_text(re.compile(r"^1\s*T\s+23\s*h"))
        expect(karin.locator(".player:not(.to-act) [data-seat-clock]")).to_have_count(0)
        deadline = karin.locator("#clock-panel time[data-moment]")
        expect(deadline).to_have_text("in 2 Tagen")
        expect(deadline).to_have_attribute("title", re.compile(r"MEZ|MESZ"))
        expect(karin.locator("#clock-panel")).not_to_contain_text("UTC")

        # The notifications list says when, in her words and her zone, the whole moment on hover.
        karin.goto(f"{base}/notifications")
        when = karin.locator("#notifications time[data-moment]").first
        expect(when).to_have_text(re.compile(r"^heute \d\d:\d\d$"))
        expect(when).to_have_attribute("title", re.compile(r"MEZ|MESZ"))
        karin.goto(f"{base}/notifications")  # the next page is rendered in her zone by the server
        assert "UTC" not in karin.locator("#notifications").inner_html()

        # The settings name her browser's zone as the default choice.
        karin.goto(f"{base}/settings")
        expect(karin.locator("#time-zone option[value='']")).to_have_text("Die des Browsers (Europe/Berlin)")

        # Bob, in English and New York, waits: the countdown stands beside Karin's name on his page.
        bob.goto(f"{base}/matches/{match_id}")
        theirs = bob.locator(f".player.to-act:has-text('{karin_name}') [data-seat-clock]")
        expect(theirs).to_have_text(re.compile(r"^1d 23h"))
        expect(bob.locator("#clock-panel time[data-moment]")).to_have_text("in 2 days")
    finally:
        karin_ctx.close()
        bob_ctx.close()
