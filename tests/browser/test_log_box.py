"""Issue 20.11: the log box never shows a cut line. A scrolling list cut its bottom line in half
(and on a phone the next card and the "Show earlier moves" button could lie over lines). Every
line drawn is whole inside the box and is what a person sees at its place, at the first scroll
position and after scrolling with the mouse wheel, at 1366 x 768 and on a 390 x 844 phone."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.pages import log_in, register_apart, start_toy_match
from tests.browser.test_log_numbers import _pass
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 20_000
SIZES = pytest.mark.parametrize(
    "viewport", [{"width": 1366, "height": 768}, {"width": 390, "height": 844}], ids=["desktop", "phone"]
)

# Per drawn line (not transparent) of the log: whether it lies whole within the list's client
# rect, and whether the element a person would hit at its middle is the line itself.
LINES = """(list) => {
    const box = list.getBoundingClientRect();
    const top = box.top + list.clientTop, bottom = top + list.clientHeight;
    const drawn = [];
    for (const line of list.children) {
        const r = line.getBoundingClientRect();
        if (r.bottom <= top || r.top >= bottom) continue;  // scrolled away: not drawn in the box
        if (getComputedStyle(line).opacity === "0") continue;
        const middle = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        drawn.push({
            text: line.textContent.trim().slice(0, 40),
            whole: r.top >= top - 1 && r.bottom <= bottom + 1,
            seen: !!middle && line.contains(middle),
            onScreen: r.top >= 0 && r.bottom <= innerHeight,
        });
    }
    const earlier = document.querySelector("#match-log [data-log-before]");
    const button = earlier ? earlier.getBoundingClientRect() : null;
    return {
        drawn,
        scrolls: list.scrollHeight > list.clientHeight,
        buttonOverBox: !!button && button.top < bottom && button.bottom > top,
    };
}"""


# Resolves once the list's scroll position has stayed the same for a while (a wheel turn
# scrolls smoothly, then snapping may move it once more).
SETTLED = """(list) => new Promise((done) => {
    let last = NaN;
    const look = () => {
        if (list.scrollTop === last) return done();
        last = list.scrollTop;
        setTimeout(look, 200);
    };
    setTimeout(look, 100);
})"""


def _settled(page: Any) -> None:
    page.locator("#log-list").evaluate(SETTLED)


def _check(page: Any, when: str) -> dict[str, Any]:
    """Scroll the box onto the screen and check every drawn line (whole, not covered)."""
    list_ = page.locator("#log-list")
    list_.scroll_into_view_if_needed()
    page.wait_for_timeout(100)  # a frame for the lines' marks after the page scrolled
    found = list_.evaluate(LINES)
    assert found["drawn"], when
    cut = [line["text"] for line in found["drawn"] if not line["whole"]]
    assert not cut, f"{when}: lines cut at the box's edge: {cut}"
    covered = [line["text"] for line in found["drawn"] if line["onScreen"] and not line["seen"]]
    assert not covered, f"{when}: lines under something else: {covered}"
    assert not found["buttonOverBox"], f"{when}: 'Show earlier moves' lies over the log"
    return dict(found)


@SIZES
@pytest.mark.parametrize("locale", ["de", "en"])
def test_the_log_shows_whole_lines_only(server: Server, browser: Any, viewport: Any, locale: str) -> None:
    alice, bob = register_apart(browser, server.base_url), register_apart(browser, server.base_url)
    match_id = start_toy_match(server.base_url, alice, bob)
    _pass(server.base_url, (alice, bob), match_id, 40)  # eighty lines: more than the box holds
    context = browser.new_context(viewport=viewport, locale=locale)
    log_in(context, server.base_url, alice, locale)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server.base_url}/matches/{match_id}")
        page.locator("#log-list > li").first.wait_for()
        found = _check(page, "at first")
        assert found["scrolls"], "the test needs a log longer than its box"
        box = page.locator("#log-list").bounding_box()
        for step in (37, 120, 333):  # wheel turns of odd sizes, as a hand makes them
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.mouse.wheel(0, step)
            _settled(page)  # the box comes to rest (scroll snapping) before a person reads it
            _check(page, f"after a wheel turn of {step} px")
            box = page.locator("#log-list").bounding_box()
    finally:
        context.close()
