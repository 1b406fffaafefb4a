"""The Drachenland board in Chromium (issue 13, point 7): every volcano's contents and every figure
read at a glance at 1366 px, and on a phone with the board zoomed; target spaces big enough to
click and tap. Measured from the drawn SVG (rendered boxes in CSS pixels). Gems, eggs and counts
were a few pixels tall, a count's first digit was cut off at the volcano's edge, labels vanished
under figures, and target spaces were 19 px. Point 12: a turn by keyboard alone."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.pages import log_in
from tests.browser.studio import Studio, User
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000
DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
READABLE_PX = 10.0
"""The smallest text or token height a player reads without leaning in."""
TARGET_PX = {"desktop": 24.0, "phone": 32.0}
"""Click targets at 1366 px; tap targets on the phone (board zoomed)."""

MEASURE = """() => {
  const box = el => { const b = el.getBoundingClientRect(); return [b.x, b.y, b.width, b.height]; };
  const volcanoes = [...document.querySelectorAll(".dl-board .dl-volcano")].map(v => ({
    id: v.dataset.piece,
    cone: box(v.querySelector(".dl-volcano-cone")),
    label: box(v.querySelector(".dl-volcano-id")),
    counts: [...v.querySelectorAll(".dl-gem-count")].map(box),
    gems: [...v.querySelectorAll(".dl-gem polygon")].map(box),
    eggs: [...v.querySelectorAll(".dl-egg")].map(box),
  }));
  const figures = [...document.querySelectorAll(".dl-board .dl-figure")].map(f => ({
    id: f.dataset.piece,
    body: box(f.querySelector(".dl-fig-body") || f),
    letter: box(f.querySelector(".dl-fig-letter")),
  }));
  const targets = [...document.querySelectorAll(".dl-board .dl-target, .dl-board .dl-fly")].map(box);
  // The drawn rings of targets on path spaces (a volcano's target ring surrounds the volcano).
  const rings = [...document.querySelectorAll(".dl-board .dl-target")]
    .filter(t => !t.dataset.move.split(":").pop().startsWith("V"))
    .map(t => box(t.querySelector("circle:not(.dl-hit)")));
  const spaces = [...document.querySelectorAll(".dl-board .dl-space")].map(box);
  return {volcanoes, figures, targets, rings, spaces};
}"""


def within(inner: list[float], outer: list[float], slack: float = 0.75) -> bool:
    x, y, w, h = inner
    ox, oy, ow, oh = outer
    return ox - slack <= x and x + w <= ox + ow + slack and oy - slack <= y and y + h <= oy + oh + slack


def overlap(a: list[float], b: list[float]) -> float:
    dx = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    dy = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return max(0.0, dx) * max(0.0, dy)


def covered(rect: list[float], centre: tuple[float, float], radius: float) -> float:
    """The share of a rectangle (x, y, w, h) inside a circle, sampled on a 20 × 10 grid."""
    x, y, w, h = rect
    inside = sum(
        (x + (i + 0.5) * w / 20 - centre[0]) ** 2 + (y + (j + 0.5) * h / 10 - centre[1]) ** 2 <= radius**2
        for i in range(20)
        for j in range(10)
    )
    return inside / 200


class Table:
    """A three-player match in its movement phase, the seat to act with targets to choose."""

    def __init__(self, studio: Studio) -> None:
        self.users = studio.users("la", "lb", "lc")
        self.match = studio.match("drachenland", self.users)
        studio.random = random.Random(21)
        self.actor = studio.play(
            self.match, self.users, 400, until=lambda m: len(m["log"]) > 25 and _has_targets(m)
        )
        assert self.actor is not None, "the match ended early"


def _has_targets(match: dict[str, Any]) -> bool:
    """Targets on path spaces among the legal moves: the rings the test measures (a match whose
    only targets were volcanoes, a flight say, drew no such ring and failed the test now and then)."""
    return any(
        m.startswith(("move:", "quick:", "boat:", "fly:")) and not m.split(":")[-1].startswith("V")
        for m in match["legal"]
    )


@pytest.fixture(scope="module")
def table(server: Server) -> Table:
    return Table(Studio(server.base_url))


@pytest.fixture
def open_page(browser: Any, server: Server) -> Iterator[Any]:
    contexts: list[Any] = []

    def open_(viewport: dict[str, int], user: User, match_id: int) -> Any:
        context = browser.new_context(viewport=viewport, locale="en-US")
        contexts.append(context)
        log_in(context, server.base_url, user.name)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server.base_url}/matches/{match_id}")
        page.wait_for_selector(".dl-board")
        return page

    yield open_
    for context in contexts:
        context.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_every_volcano_and_figure_reads_at_a_glance(table: Table, open_page: Any, size: str) -> None:
    assert table.actor is not None
    page = open_page(DESKTOP if size == "desktop" else PHONE, table.actor, table.match)
    if size == "phone":
        page.locator("[data-board-zoom]").click()  # a phone reads the board zoomed (pinch or button)
    drawn = page.evaluate(MEASURE)
    assert len(drawn["volcanoes"]) >= 15
    for v in drawn["volcanoes"]:
        assert v["label"][3] >= READABLE_PX, v
        for part in v["counts"] + v["gems"] + v["eggs"]:
            assert part[3] >= READABLE_PX, v
        for count in v["counts"]:
            assert within(count, v["cone"]), f"a count is cut off at the edge of {v['id']}: {v}"
        for f in drawn["figures"]:
            assert overlap(f["body"], v["label"]) <= 0.1 * v["label"][2] * v["label"][3], (v["id"], f["id"])
        # Any path space may be a target: its ring, drawn as big as the rings shown now, leaves
        # every volcano's label readable.
        radius = drawn["rings"][0][2] / 2
        for space in drawn["spaces"]:
            centre = (space[0] + space[2] / 2, space[1] + space[3] / 2)
            assert covered(v["label"], centre, radius) <= 0.1, (v["id"], "a target ring covers the label")
    for f in drawn["figures"]:
        assert f["letter"][3] >= READABLE_PX and f["body"][3] >= f["letter"][3] + 2, f
    assert drawn["targets"] and drawn["rings"], "the seat to act has targets on the board"
    for target in drawn["targets"]:
        assert min(target[2], target[3]) >= TARGET_PX[size], target


def test_a_drachenland_turn_by_keyboard_alone(server: Server, browser: Any) -> None:
    """Point 12: the skip link leads to the first choice, Tab reaches every target (with a
    visible focus ring), Enter decides, and after the last choice the focus is on Confirm
    (not on Undo, which a second Enter would press)."""
    studio = Studio(server.base_url)
    users = studio.users("ka", "kb")
    match_id = studio.match("drachenland", users)
    actor = studio.to_act(match_id, users)
    assert actor is not None
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    try:
        log_in(context, server.base_url, actor.name)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server.base_url}/matches/{match_id}")
        page.wait_for_selector(".dl-board")
        focused = """() => { const el = document.activeElement; const s = getComputedStyle(el);
            const ring = el.querySelector && el.querySelector("circle:not(.dl-hit)");
            return {move: el.dataset.move || null, action: el.dataset.matchAction || null,
                    skip: el.hasAttribute("data-skip-to-move"),
                    outline: s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 3,
                    ring: ring ? getComputedStyle(ring).stroke : null}; }"""

        def press(key: str) -> dict[str, Any]:
            before = page.locator("#match-area").get_attribute("data-version")
            page.keyboard.press(key)
            if key == "Enter" and not now.get("skip"):
                page.wait_for_function(
                    "v => document.getElementById('match-area').dataset.version !== v", arg=before
                )
                page.wait_for_function(
                    "() => !document.getElementById('match-area').hasAttribute('aria-busy')"
                )
            result: dict[str, Any] = page.evaluate(focused)
            return result

        now: dict[str, Any] = {}
        now = press("Tab")
        assert now["skip"], "the first Tab stop is the skip link to the move"
        now = press("Enter")
        assert now["move"] and now["move"].startswith("choose:"), now
        assert now["outline"], "a clearly visible focus ring"
        now = press("Enter")
        assert now["move"] and now["move"].startswith("move:"), now
        first = now["move"]
        now = press("Tab")
        assert now["move"] and now["move"].startswith("move:") and now["move"] != first, now
        assert now["ring"] == "rgb(27, 95, 209)", "the focused target's ring takes the focus colour"
        now = press("Enter")
        assert now["action"] == "confirm", f"after the last choice the focus is on Confirm: {now}"
        press("Enter")
        assert studio.to_act(match_id, users) is not actor, "the turn went to the next player"
    finally:
        context.close()
