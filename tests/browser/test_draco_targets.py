"""Draco targets when four cards reach one space (issue 20, point 8), at 1366 px and on a phone.

Every target on that space is its own chip, clear of the others, of the dragons and of every
rider number; each is what a person hits at its middle, and clicking it (real mouse) or tapping it
(real touch) makes that play pending. The position comes from real matches played over the JSON
API: random plays until the seat to act has four targets on one space.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.draco_positions import CROWD, Crowd, find_crowd
from tests.browser.pages import log_in
from tests.browser.studio import Studio
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000
VIEWPORTS = {"desktop": {"width": 1366, "height": 768}, "phone": {"width": 390, "height": 844}}

MEASURE = """space => {
  const box = el => { const b = el.getBoundingClientRect(); return [b.x, b.y, b.width, b.height]; };
  const svg = document.querySelector("svg.draco-board");
  const targets = [...document.querySelectorAll(".draco .target[data-move]")];
  return {
    viewport: [window.innerWidth, window.innerHeight],
    board: box(svg),
    space: box(svg.querySelector(`[data-piece="space-${space}"] .space-area`)),
    dragons: [...svg.querySelectorAll(`.dragon[data-space="${space}"] .dragon-body`)].map(box),
    letters: [...svg.querySelectorAll(".dragon .dragon-mark")].map(box),
    badges: [...svg.querySelectorAll(".dragon .rider-badge")].map(box),
    targets: targets.map(t => ({move: t.dataset.move, box: box(t), tag: box(t.querySelector(":scope > g"))})),
  };
}"""

HIT = """([x, y]) => { const el = document.elementFromPoint(x, y);
  const target = el && el.closest(".target[data-move]");
  return target ? target.dataset.move : (el ? el.outerHTML.slice(0, 120) : null); }"""


@pytest.fixture(scope="module")
def studio(server: Server) -> Studio:
    return Studio(server.base_url, seed=8)


@pytest.fixture(scope="module")
def crowd(studio: Studio) -> Crowd:
    return find_crowd(studio)


def _apart(a: list[float], b: list[float], slack: float = 0.5) -> bool:
    return (
        a[0] + a[2] <= b[0] + slack
        or b[0] + b[2] <= a[0] + slack
        or a[1] + a[3] <= b[1] + slack
        or b[1] + b[3] <= a[1] + slack
    )


def _within(a: list[float], outer: list[float]) -> bool:
    left, top, width, height = outer
    return (
        left - 0.5 <= a[0]
        and top - 0.5 <= a[1]
        and a[0] + a[2] <= left + width + 0.5
        and (a[1] + a[3] <= top + height + 0.5)
    )


@pytest.mark.parametrize("size", sorted(VIEWPORTS))
def test_four_targets_on_one_space_stay_legible_and_clickable(
    crowd: Crowd, studio: Studio, browser: Any, server: Server, size: str
) -> None:
    touch = size == "phone"
    context = browser.new_context(viewport=VIEWPORTS[size], has_touch=touch, is_mobile=touch, locale="en-US")
    try:
        log_in(context, server.base_url, crowd.actor.name)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        url = f"{server.base_url}/matches/{crowd.match_id}"
        for round_ in range(CROWD + 1):
            page.goto(url)
            page.wait_for_selector("svg.draco-board")
            page.locator(f"svg.draco-board [data-piece='space-{crowd.space}']").scroll_into_view_if_needed()
            seen = page.evaluate(MEASURE, crowd.space)
            view = studio.view(crowd.match_id, crowd.actor)
            moves = {t["move"] for t in view["view"]["targets"] if t["space"] == crowd.space}
            here = [t for t in seen["targets"] if t["move"] in moves]
            assert len(here) >= CROWD, seen
            screen = [0, 0, *seen["viewport"]]
            for t in here:
                # Seen: inside the window (the board scrolled to the space) and on the board.
                assert _within(t["tag"], screen) and _within(t["tag"], seen["board"]), (t, seen["viewport"])
                for dragon in seen["dragons"]:
                    assert _apart(t["tag"], dragon), ("tag over a dragon", t, dragon)
                for badge in seen["badges"]:
                    assert _apart(t["tag"], badge), ("tag over a rider number", t, badge)
                for letter in seen["letters"]:
                    assert _apart(t["tag"], letter), ("tag over a dragon's mark", t, letter)
            for a in here:
                for b in here:
                    if a["move"] < b["move"]:
                        # Each its own place to hit: neither the tags nor the whole targets overlap.
                        assert _apart(a["tag"], b["tag"]) and _apart(a["box"], b["box"], 1.5), (a, b)
            if round_ == CROWD:
                break
            # Hit one of them where a person would: at its tag's middle, nothing on top.
            chosen = sorted(here, key=lambda t: t["move"])[round_]
            x = chosen["tag"][0] + chosen["tag"][2] / 2
            y = chosen["tag"][1] + chosen["tag"][3] / 2
            assert page.evaluate(HIT, [x, y]) == chosen["move"]
            before = page.locator("#match-area").get_attribute("data-version")
            if touch:
                page.touchscreen.tap(x, y)
            else:
                page.mouse.click(x, y)
            page.wait_for_function(
                "v => document.getElementById('match-area')?.getAttribute('data-version') !== v", arg=before
            )
            after = studio.view(crowd.match_id, crowd.actor)
            assert after["version"] == view["version"] + 1 and after["can_undo"], after
            assert page.locator(".log-entry.pending").count() > 0
            # Taken back over the API: the next round starts from the same position.
            studio.decide(crowd.match_id, crowd.actor, "undo", after["version"])
    finally:
        context.close()
