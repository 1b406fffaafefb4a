"""Issue 14: one person opens a Draco table with two computer opponents in the lobby and plays it
to the end through the page; the bots' moves arrive live (no reload), and the replay shows them."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.pages import MatchPlayer, register
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 15_000
MAX_DECISIONS = 400


def test_a_person_plays_draco_against_two_bots_through_the_page(server: Server, browser: Any) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    context = browser.new_context(locale="en-US", viewport={"width": 1366, "height": 900})
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        register(page, base)
        card = page.locator("#game-draco")
        card.locator("summary").click()
        card.locator("select[name=seats]").select_option("3")
        card.locator("select[name=bots]").select_option("easy")
        card.locator("button[type=submit]").click()
        page.wait_for_url(re.compile(r"/matches/\d+$"))
        alice = MatchPlayer(page, base)
        alice.match_id = int(page.url.rsplit("/", 1)[1])
        expect(page.locator(".draco-players .draco-player")).to_have_count(3)  # started at once
        expect(page.locator(".draco-players")).to_contain_text("Bot easy")

        bot_lines_seen = False
        for _ in range(MAX_DECISIONS):
            # The bots' turns arrive over the live stream: the page turns to "Your turn!" by itself.
            expect(page.locator(".turn-status .your-turn, .result-title").first).to_be_visible()
            if page.locator(".result-title").count():
                break
            bot_lines_seen = bot_lines_seen or "Bot easy" in page.locator(".log-list").inner_text()
            legal = alice.state()["legal"]
            before = alice.version()
            if "confirm" in legal:
                page.locator("[data-match-action=confirm]").click()
            else:
                page.locator(f"#match-area [data-move='{legal[0]}']").first.click()
            alice.board_changed(before)
        else:
            raise AssertionError(f"the match did not end in {MAX_DECISIONS} decisions")
        assert bot_lines_seen, "the bots' moves appeared in the log while the match ran"
        expect(page.locator(".result-table")).to_contain_text("Bot easy")

        page.locator(".match-links a", has_text="Replay").click()
        page.wait_for_url(re.compile(r"/replay"))
        page.keyboard.press("Home")
        for _ in range(6):
            page.keyboard.press("ArrowRight")
        expect(page.locator(".log-list")).to_contain_text("Bot easy")
    finally:
        context.close()
