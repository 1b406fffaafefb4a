"""Issue 20.15: Felsental's card options and Drachenland's tiles explain themselves, on hover
with a mouse (1366 x 768) and on a long press on a phone (390 x 844), in the page's language. A
long press only explains: it does not play the card. A face-down tile's kind is in no page."""

from __future__ import annotations

from typing import Any

import pytest

from app.games.drachenland.text import UI_TEXT as DRACHENLAND_TEXT
from app.games.felsental.text import UI_TEXT as FELSENTAL_TEXT
from tests.browser.pages import api_client, log_in, register_apart
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 20_000
DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
LOCALES = pytest.mark.parametrize("locale", ["de", "en"])
HOLD_MS = 800
"""A long press: longer than the page waits before it explains (static/js/tips.js)."""


def _start(base_url: str, game: str, first: str, second: str) -> int:
    """A running two-player match of ``game``, ``first`` in the first seat."""
    creator, _ = api_client(base_url, first)
    joiner, _ = api_client(base_url, second)
    try:
        created = creator.post("/api/matches", json={"game": game, "seats": 2, "fixed_order": True})
        assert created.status_code == 201, created.text
        match_id = int(created.json()["id"])
        assert joiner.post(f"/api/matches/{match_id}/join", json={}).status_code == 204
        return match_id
    finally:
        creator.close()
        joiner.close()


def _acting(base_url: str, match_id: int, names: tuple[str, str]) -> str:
    """The name of the player to act."""
    client, _ = api_client(base_url, names[0])
    try:
        seat = client.get(f"/api/matches/{match_id}").json()["to_act"][0]
    finally:
        client.close()
    return names[seat]


def _page(browser: Any, base_url: str, name: str, locale: str, viewport: dict[str, int], touch: bool) -> Any:
    context = browser.new_context(viewport=viewport, locale=locale, has_touch=touch, is_mobile=touch)
    log_in(context, base_url, name, locale)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    return page


def _tip_of(page: Any, host: Any) -> Any:
    return page.locator(f"#{host.get_attribute('data-tip')}")


def _long_press(page: Any, host: Any) -> None:
    """Hold a finger on the middle of ``host`` and lift it: real touch input through Chromium."""
    host.scroll_into_view_if_needed()
    box = host.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    assert host.evaluate("(h, p) => h.contains(document.elementFromPoint(p[0], p[1]))", [x, y]), "covered"
    touch = page.context.new_cdp_session(page)
    touch.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    page.wait_for_timeout(HOLD_MS)  # the finger stays down: that is what a long press is
    touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def _expect_explained(page: Any, host: Any, text: str) -> None:
    from playwright.sync_api import expect

    tip = _tip_of(page, host)
    expect(tip).to_be_visible()
    expect(tip).to_contain_text(text)
    box, width = tip.bounding_box(), page.viewport_size["width"]
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, "the explanation leaves the window"


def _help(texts: Any, locale: str, key: str, **values: Any) -> str:
    return str(texts[locale][f"help_{key}"]).format(**values)


@LOCALES
def test_felsental_options_explain_themselves_on_hover_and_long_press(
    server: Server, browser: Any, locale: str
) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    names = (register_apart(browser, base), register_apart(browser, base))
    match_id = _start(base, "felsental", *names)
    actor = _acting(base, match_id, names)

    desktop = _page(browser, base, actor, locale, DESKTOP, touch=False)
    try:
        desktop.goto(f"{base}/matches/{match_id}")
        option = desktop.locator(".fels-cards .option[data-tip]").first
        option.hover()  # a real mouse over the option
        opt = str(option.get_attribute("class")).split("opt-")[1].split()[0]
        _expect_explained(desktop, option, _help(FELSENTAL_TEXT, locale, opt, n="")[:20])
        desktop.mouse.move(0, 0)
        expect(_tip_of(desktop, option)).to_be_hidden()
    finally:
        desktop.context.close()

    phone = _page(browser, base, actor, locale, PHONE, touch=True)
    try:
        phone.goto(f"{base}/matches/{match_id}")
        option = phone.locator(".fels-cards .option.legal[data-move][data-tip]").first
        version = phone.locator("#match-area").get_attribute("data-version")
        moves: list[str] = []
        phone.on("request", lambda r: moves.append(r.url) if r.method == "POST" else None)
        opt = str(option.get_attribute("class")).split("opt-")[1].split()[0]
        tip = _tip_of(phone, option)
        _long_press(phone, option)
        expect(tip).to_be_visible()
        expect(tip).to_contain_text(_help(FELSENTAL_TEXT, locale, opt, n="")[:20])
        phone.wait_for_timeout(500)  # a move's answer would have come by now
        assert not moves, f"a long press played the card: {moves}"
        assert phone.locator("#match-area").get_attribute("data-version") == version
        assert phone.locator(".log-entry.pending").count() == 0
        # The same finger, tapping: that plays the card (the long press above was a real touch).
        with phone.expect_response(lambda r: r.request.method == "POST" and "/moves" in r.url):
            option.tap()
    finally:
        phone.context.close()


@LOCALES
def test_drachenland_tiles_explain_themselves_and_hide_what_lies_face_down(
    server: Server, browser: Any, locale: str
) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    names = (register_apart(browser, base), register_apart(browser, base))
    match_id = _start(base, "drachenland", *names)
    actor = _acting(base, match_id, names)

    desktop = _page(browser, base, actor, locale, DESKTOP, touch=False)
    try:
        desktop.goto(f"{base}/matches/{match_id}")
        tile = desktop.locator(".dl-mine .dl-tile-btn.dl-t-boatman")
        tile.hover()
        _expect_explained(desktop, tile, _help(DRACHENLAND_TEXT, locale, "BOATMAN"))
    finally:
        desktop.context.close()

    phone = _page(browser, base, actor, locale, PHONE, touch=True)
    try:
        phone.goto(f"{base}/matches/{match_id}")
        tile = phone.locator(".dl-mine .dl-tile-btn.dl-t-reroll")
        _long_press(phone, tile)
        _expect_explained(phone, tile, _help(DRACHENLAND_TEXT, locale, "REROLL"))
    finally:
        phone.context.close()

    # A spectator: explanations of the players' own tiles (in front of their screens, public),
    # none of a volcano's face-down tile.
    spectator = register_apart(browser, base)
    page = _page(browser, base, spectator, locale, DESKTOP, touch=False)
    try:
        page.goto(f"{base}/matches/{match_id}")
        expect(page.locator(".dl-board")).to_be_visible()
        volcanoes = page.request.get(f"{base}/api/matches/{match_id}").json()["view"]["volcanoes"]
        shown = {v["id"] for v in volcanoes if v["tile"]}
        tips = page.locator(".tip").evaluate_all("(tips) => tips.map((t) => [t.id, t.textContent])")
        public = {_help(DRACHENLAND_TEXT, locale, k) for k in ("REROLL", "BOATMAN", "SMALL_DRAGON")}
        for tip_id, text in tips:
            if tip_id.startswith("dl-tip-V"):
                assert tip_id.removeprefix("dl-tip-") in shown, f"{tip_id} explains a face-down tile"
            elif not tip_id.startswith("dl-tip-king-"):
                assert any(help_text in text for help_text in public), text
        assert len(tips) == 2 * 3 + len(shown), tips
    finally:
        page.context.close()
