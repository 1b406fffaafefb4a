"""The header: one line on a 390 px phone in both languages (issue 13.6), and before the badge
has loaded it claims no turn (issue 13.13)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.pages import PHONE, VIEWPORTS, register, register_apart, start_toy_match
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000

ONE_LINE = """() => {
    const header = document.querySelector(".site-header");
    const boxes = [...header.querySelectorAll(".nav > *, .live-me > *, .menu > summary")]
        .filter(el => el.getClientRects().length)
        .map(el => el.getBoundingClientRect());
    return {
        height: header.getBoundingClientRect().height,
        tops: boxes.map(b => Math.round(b.top + b.height / 2)),
        right: Math.max(...boxes.map(b => b.right)),
        scroll: document.documentElement.scrollWidth,
    };
}"""


@pytest.mark.parametrize("locale", ["de-DE", "en-US"])
def test_the_header_is_one_line_on_a_phone(server: Server, browser: Any, locale: str) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    context = browser.new_context(locale=locale, viewport=PHONE)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        other = register_apart(browser, base)
        me = register(page, base)
        start_toy_match(base, me, other)
        page.goto(f"{base}/matches")
        # Says what it counts, not a bare "1" (issue 20.16).
        expect(page.locator("#turn-badge .badge-short")).to_have_text(
            "Am Zug: 1" if locale == "de-DE" else "To play: 1"
        )
        expect(page.locator("#turn-badge")).to_have_accessible_name(
            "Du bist dran: 1" if locale == "de-DE" else "Your turn: 1"
        )
        shape = page.evaluate(ONE_LINE)
        assert max(shape["tops"]) - min(shape["tops"]) <= 6, shape  # every item on one line
        assert (
            shape["height"] < 56 and shape["right"] <= PHONE["width"] and shape["scroll"] <= PHONE["width"]
        ), shape

        # What does not fit is in the menu.
        settings = page.get_by_role("link", name="Einstellungen" if locale == "de-DE" else "Settings")
        expect(settings).to_be_hidden()
        page.locator(".menu summary").click()
        expect(settings).to_be_visible()
        expect(page.locator("#locale-select")).to_be_visible()
        page.keyboard.press("Escape")
        expect(settings).to_be_hidden()
    finally:
        context.close()


@VIEWPORTS
def test_the_badge_claims_no_turn_before_it_has_loaded(server: Server, browser: Any, viewport: Any) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    context = browser.new_context(locale="en-US", viewport=viewport)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        register(page, base)  # no match at all
        page.route("**/me/badge", lambda route: route.abort())  # the badge never arrives
        page.goto(f"{base}/")
        badge = page.locator("#turn-badge")
        expect(badge).to_be_attached()
        assert "Your turn" not in badge.inner_text()
        page.unroute("**/me/badge")
        page.reload()
        expect(badge).to_contain_text("Not your turn")
    finally:
        context.close()
