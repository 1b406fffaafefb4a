"""Every board on a 390 × 844 phone and at 1366 px (issue 13, points 6 and 10).

On the phone: the page never scrolls sideways and the board has no scroll box of its own, Undo
and Confirm are on screen without scrolling (and stay there while the board scrolls by), pinch
zoom is allowed and the board's zoom button draws it twice as large. At 1366 px: every log line
highlights the pieces it names on the board, the fields of a move included, in the match and
in the replay. Positions are set up over the JSON API (tests/browser/studio.py).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.pages import log_in
from tests.browser.studio import Studio, User
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000
DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
GAMES = {"draco": 3, "drachenland": 3, "felsental": 2}
LINES = 30
"""Newest log lines hovered per page."""
MOVED = {
    "draco": re.compile(r"from space (\d+) to space (\d+)"),
    "drachenland": re.compile(r"walks \d+ spaces?"),
    "felsental": re.compile(r"moved from (\w+) to (\w+)"),
}
"""A line that names two fields, and the pieces those fields are on the board."""
FIELD = {"draco": "space-{}", "drachenland": "{}", "felsental": "hex-{}"}
BOARD_NODE = re.compile(r"V\d\d|P\d\d-\d|E\d")
"""A Drachenland board place as a piece (volcano, path space, entrance)."""


class Tables:
    """A match of each game after some random decisions, and the seat to act in each."""

    def __init__(self, studio: Studio) -> None:
        studio.random = random.Random(5)
        self.matches: dict[str, int] = {}
        self.actors: dict[str, User] = {}
        users = studio.users("ga", "gb", "gc")
        for slug, seats in GAMES.items():
            match_id = studio.match(slug, users[:seats])
            actor = studio.play(match_id, users[:seats], 150, until=lambda m, s=slug: _moved_twice(s, m))
            assert actor is not None, f"the {slug} match ended early"
            self.matches[slug] = match_id
            self.actors[slug] = actor


def _moved_twice(slug: str, match: dict[str, Any]) -> bool:
    # Committed lines only: the pages are looked at as a spectator, who sees no pending ones.
    newest = [e for e in match["log"] if not e["pending"]][-LINES // 2 :]
    return len(match["log"]) > 20 and sum(bool(MOVED[slug].search(e["text"])) for e in newest) >= 2


@pytest.fixture(scope="module")
def tables(server: Server) -> Tables:
    return Tables(Studio(server.base_url))


@pytest.fixture
def open_page(browser: Any, server: Server) -> Iterator[Any]:
    contexts: list[Any] = []

    def open_(path: str, viewport: dict[str, int], user: User | None = None) -> Any:
        context = browser.new_context(viewport=viewport, locale="en-US")
        contexts.append(context)
        if user is not None:
            log_in(context, server.base_url, user.name)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server.base_url}{path}")
        page.wait_for_selector("#board svg")
        return page

    yield open_
    for context in contexts:
        context.close()


@pytest.mark.parametrize("slug", sorted(GAMES))
def test_the_board_fits_a_phone_and_confirm_stays_in_view(tables: Tables, open_page: Any, slug: str) -> None:
    page = open_page(f"/matches/{tables.matches[slug]}", PHONE, tables.actors[slug])
    width = page.evaluate("() => window.innerWidth")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width, "the page scrolls sideways"
    # A board's pan frame ([data-zoom]) scrolls sideways on purpose: Drachenland's board is drawn
    # wider than a phone so that its labels can be read; no other box may.
    boxes = page.evaluate(
        """() => [...document.querySelectorAll("#board, #board *:not([data-zoom])")].filter(el => {
             const s = getComputedStyle(el);
             return ["auto", "scroll"].includes(s.overflowX) && el.scrollWidth > el.clientWidth + 1;
           }).map(el => el.className.baseVal ?? el.className)"""
    )
    assert boxes == [], f"side-scrolling boxes in the board: {boxes}"
    assert page.evaluate("() => document.getElementById('board').getBoundingClientRect().right") <= width
    # Nothing sticks out of the board's box either, cut off where a person cannot scroll to it
    # (Felsental's score table did, in its second leg).
    sticking_out = page.evaluate(
        """() => { const edge = document.getElementById('board').getBoundingClientRect().right + 1;
             return [...document.querySelectorAll("#board *")]
               .filter(el => !el.closest("[data-zoom]") && el.getClientRects().length
                             && el.getBoundingClientRect().right > edge)
               .map(el => el.tagName.toLowerCase() + "." + (el.className.baseVal ?? el.className)); }"""
    )
    assert sticking_out == [], f"cut off at the board's right edge: {sticking_out[:5]}"
    meta = str(page.locator("meta[name=viewport]").get_attribute("content"))
    assert "user-scalable=no" not in meta and "maximum-scale" not in meta, "pinch zoom must work"

    def in_view(selector: str) -> bool:
        return bool(
            page.evaluate(
                """s => { const b = document.querySelector(s).getBoundingClientRect();
                     return b.height > 0 && b.top >= 0 && b.bottom <= window.innerHeight; }""",
                selector,
            )
        )

    for action in ("undo", "confirm"):
        assert in_view(f"[data-match-action={action}]"), f"{action} is below the fold"
    page.evaluate(
        "() => window.scrollBy(0, document.getElementById('board').getBoundingClientRect().top + 200)"
    )
    assert in_view("[data-match-action=confirm]"), "Confirm scrolled away with the board"

    # The zoom button: the board twice as wide, scrolling inside its box; again: back to normal.
    page.evaluate("() => window.scrollTo(0, 0)")
    svg = page.locator("#board [data-zoom] > svg").first
    before = svg.bounding_box()["width"]
    page.locator("[data-board-zoom]").click()
    assert page.locator("[data-board-zoom]").get_attribute("aria-pressed") == "true"
    assert svg.bounding_box()["width"] >= 1.9 * before
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width, "zoomed, the page still fits"
    frame = "document.querySelector('#board [data-zoom]')"
    middle = page.evaluate(f"() => ({frame}.scrollWidth - {frame}.clientWidth) / 2")
    left = page.evaluate(f"() => {frame}.scrollLeft")
    assert abs(left - middle) <= 2, "zoomed, the board opens at its middle"
    # A decision or a push replaces the board area: the zoomed board stays where it was scrolled.
    page.evaluate(f"() => {{ {frame}.scrollLeft = 30; {frame}.scrollTop = 40; }}")
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    scrolled = page.evaluate(f"() => [{frame}.scrollLeft, {frame}.scrollTop]")
    assert scrolled[0] == 30
    page.evaluate(
        """() => { const board = document.getElementById('board');
             board.replaceWith(board.cloneNode(true));
             document.dispatchEvent(new CustomEvent('drachenhort:area-swapped')); }"""
    )
    assert page.evaluate(f"() => [{frame}.scrollLeft, {frame}.scrollTop]") == scrolled
    page.locator("[data-board-zoom]").click()
    assert abs(svg.bounding_box()["width"] - before) < 1


def hover_lines(page: Any, slug: str) -> int:
    """Hover the newest log lines: each highlights every piece it names, visibly on the board
    or beside it; a line with two fields highlights both. The number of such lines."""
    entries = page.locator(".log-list .log-entry")
    moves = 0
    for i in range(min(LINES, entries.count())):
        entry = entries.nth(i)
        pieces = str(entry.get_attribute("data-pieces") or "").split()
        text = entry.inner_text()
        assert pieces, f"the line {text!r} highlights nothing"
        entry.hover()
        # A busy machine may deliver the pointer's events a little later than the hover returns.
        try:
            lit = page.wait_for_function(
                """pieces => {
                     const shown = el => { const b = el.getBoundingClientRect(); return b.width && b.height };
                     const lit = [...document.querySelectorAll("#board .highlight")].filter(shown)
                       .flatMap(el => el.dataset.piece.split(" "));
                     return lit.some(p => pieces.includes(p)) ? lit : null; }""",
                arg=pieces,
                timeout=3_000,
            ).json_value()
        except PlaywrightTimeout:
            lit = []
        assert set(pieces) & set(lit), (text, pieces, lit)
        found = MOVED[slug].search(text)
        if found:
            moves += 1
            # Drachenland names its places, not their ids: the fields are the line's board pieces.
            fields = found.groups() or [p for p in pieces if BOARD_NODE.fullmatch(p)]
            assert len(fields) == 2, (text, pieces)
            for field in fields:
                assert FIELD[slug].format(field) in lit, (text, field, lit)
        page.mouse.move(0, 0)
        assert page.locator("#board .highlight").count() == 0
    return moves


@pytest.mark.parametrize("slug", sorted(GAMES))
def test_a_log_line_highlights_its_pieces_in_the_match_and_the_replay(
    tables: Tables, open_page: Any, slug: str
) -> None:
    match_id = tables.matches[slug]
    page = open_page(f"/matches/{match_id}", DESKTOP)
    assert hover_lines(page, slug) >= 1, "no line moving a piece from one field to another"
    replay = open_page(f"/matches/{match_id}/replay", DESKTOP)
    assert hover_lines(replay, slug) >= 1
