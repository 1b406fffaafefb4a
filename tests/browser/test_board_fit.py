"""Issue 20.9: each game's board and the decision at hand fit a 1366 x 768 window unscrolled.

For each game, in each of its decision phases (set up over the JSON API), the seat to act opens
the match page at 1366 x 768 in English and in German and, without scrolling, the drawing of the
board and every control of the decision (each ``data-move``, Undo, Confirm) lie inside the
window, and the element under the middle of each control is that control: nothing clickable
lies under the sticky Undo/Confirm bar (after the roll, Drachenland's dice buttons pushed the
board down to its top third and the bar covered the bottom targets; Felsental's defence prompt
and hand were below the fold).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import pytest

from tests.browser.pages import log_in
from tests.browser.studio import Policy, Studio, User, any_move
from tests.support.server import Server

pytestmark = pytest.mark.browser
WINDOW = {"width": 1366, "height": 768}
BOARD = {"draco": ".draco-board", "drachenland": ".dl-board", "felsental": ".fels-valley"}

Until = Callable[[dict[str, Any]], bool]


def _phase(name: str) -> Until:
    return lambda m: m["view"].get("phase") == name and bool(m["legal"])


def _offers(*moves: str) -> Until:
    return lambda m: any(
        x in m["legal"] or (x.endswith(":") and any(y.startswith(x) for y in m["legal"])) for x in moves
    )


def _hand_of(size: int) -> Until:
    """The seat to act holds ``size`` cards (Felsental: 6 is the hand limit, 8 right after
    drawing two onto a full hand, when cards must go)."""
    return lambda m: bool(m["legal"]) and len(m["view"].get("hand") or ()) >= size


def _draw_first(m: dict[str, Any], rnd: random.Random) -> str:
    """Draws whenever it may, so that the hand grows to its largest."""
    return "draw" if "draw" in m["legal"] else any_move(m, rnd)


class Case(NamedTuple):
    game: str
    phase: str
    until: Until
    seats: int = 2
    policy: Policy = any_move


CASES = [
    Case("draco", "play", _offers("play:")),
    Case("draco", "keep-or-take", _offers("mount:keep")),
    Case("draco", "confirm", lambda m: m["can_confirm"]),
    Case("drachenland", "roll", _offers("roll")),
    Case("drachenland", "dice", _phase("choose1")),
    Case("drachenland", "walk", _offers("move:")),
    Case("drachenland", "treasure", _offers("egg", "gems", "clear")),
    # Four players: four seats' screens beside the board.
    Case("drachenland", "roll-4", _offers("roll"), seats=4),
    Case("drachenland", "dice-4", _phase("choose1"), seats=4),
    Case("drachenland", "walk-4", _offers("move:"), seats=4),
    Case("drachenland", "treasure-4", _offers("egg", "gems", "clear"), seats=4),
    Case("felsental", "cards", _offers("play:")),
    Case("felsental", "targets", _offers("to:")),
    Case("felsental", "defend", _offers("accept")),
    # The largest hands: six cards to play from, eight (two drawn onto six) to discard from.
    Case("felsental", "full-hand", lambda m: _hand_of(6)(m) and _offers("play:")(m), policy=_draw_first),
    Case("felsental", "over-the-limit", _hand_of(8), policy=_draw_first),
]

MEASURE = """board => {
    const box = el => { const r = el.getBoundingClientRect();
                        return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
    const shown = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
    const controls = [...document.querySelectorAll(
        '#match-area [data-move], #match-area [data-match-action]:not([disabled])')].filter(shown);
    return {
        height: window.innerHeight, width: window.innerWidth, scrolled: window.scrollY,
        board: box(document.querySelector(board)),
        controls: controls.map(el => {
            const b = box(el);
            const at = document.elementFromPoint((b.left + b.right) / 2, (b.top + b.bottom) / 2);
            const name = el.dataset.move || el.dataset.matchAction;
            return {name, box: b, hit: at !== null && el.contains(at),
                    under: at === null ? 'nothing' : at.tagName.toLowerCase()
                        + [...at.classList].map(c => '.' + c).join('')
                        + (at.closest('.turn-controls') ? ' (in the Undo/Confirm bar)' : '')};
        }),
    };
}"""


@pytest.fixture(scope="module")
def positions(server: Server) -> dict[tuple[str, str], tuple[int, User]]:
    """(game, phase) -> a match in that phase and the seat to act there; one match per case."""
    studio = Studio(server.base_url, seed=9)
    found: dict[tuple[str, str], tuple[int, User]] = {}
    seats = studio.users("fa", "fb", "fc", "fd")
    for case in CASES:
        users = seats[: case.seats]
        match_id = studio.match(case.game, users)
        actor = studio.play(match_id, users, 400, policy=case.policy, until=case.until)
        assert actor is not None and case.until(studio.view(match_id, actor)), (case.game, case.phase)
        found[(case.game, case.phase)] = (match_id, actor)
    return found


@pytest.fixture
def open_page(browser: Any, server: Server) -> Iterator[Any]:
    contexts: list[Any] = []

    def open_(path: str, user: User, locale: str) -> Any:
        context = browser.new_context(viewport=WINDOW, locale="de-DE" if locale == "de" else "en-US")
        contexts.append(context)
        log_in(context, server.base_url, user.name, locale)
        page = context.new_page()
        page.goto(f"{server.base_url}{path}")
        return page

    yield open_
    for context in contexts:
        context.close()


@pytest.mark.parametrize("locale", ["en", "de"])
@pytest.mark.parametrize(("game", "phase"), [(c.game, c.phase) for c in CASES], ids=lambda x: str(x))
def test_the_board_and_the_decision_fit_the_window_unscrolled(
    positions: dict[tuple[str, str], tuple[int, User]], open_page: Any, game: str, phase: str, locale: str
) -> None:
    match_id, actor = positions[(game, phase)]
    page = open_page(f"/matches/{match_id}", actor, locale)
    seen = page.evaluate(MEASURE, BOARD[game])
    where = f"{game} ({phase}, {locale})"
    assert seen["scrolled"] == 0
    board, height, width = seen["board"], seen["height"], seen["width"]
    assert board["top"] >= 0 and board["bottom"] <= height, f"{where}: the board {board} is not all in view"
    assert board["left"] >= 0 and board["right"] <= width, f"{where}: the board {board} is cut at the side"
    assert seen["controls"], f"{where}: no decision on the page"
    for control in seen["controls"]:
        b = control["box"]
        inside = b["top"] >= 0 and b["bottom"] <= height and b["left"] >= 0 and b["right"] <= width
        assert inside, f"{where}: {control['name']} at {b} is outside the {width} x {height} window"
        assert control["hit"], f"{where}: a click on {control['name']} lands on {control['under']}"


PHONE = {"width": 390, "height": 844}
LABELS = """() => {
    const svg = document.querySelector('.dl-board');
    return [...svg.querySelectorAll('text')].filter(t => t.getBBox().width > 0).map(t => ({
        text: t.textContent.trim(),
        px: parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a,
    }));
}"""
TARGET_HIT = """el => {
    el.scrollIntoView({block: 'center', inline: 'center'});
    const r = el.getBoundingClientRect();
    const at = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    return {hit: at !== null && el.contains(at),
            under: at === null ? 'nothing'
                : at.tagName.toLowerCase() + [...at.classList].map(c => '.' + c).join('')};
}"""


@pytest.mark.parametrize("locale", ["en", "de"])
@pytest.mark.parametrize("phase", [c.phase for c in CASES if c.game == "drachenland"])
def test_drachenland_labels_read_on_a_phone_and_its_targets_take_a_tap(
    positions: dict[tuple[str, str], tuple[int, User]], browser: Any, server: Server, phase: str, locale: str
) -> None:
    """At 390 x 844 every place name and number drawn on the board renders at 10 px or more (at the
    box's width they were about 5 px), and each target, panned into view as a person would swipe,
    is what a tap at its middle lands on (the positions are shared, so no move is made)."""
    match_id, actor = positions[("drachenland", phase)]
    context = browser.new_context(
        viewport=PHONE, has_touch=True, is_mobile=True, locale="de-DE" if locale == "de" else "en-US"
    )
    try:
        log_in(context, server.base_url, actor.name, locale)
        page = context.new_page()
        page.goto(f"{server.base_url}/matches/{match_id}")
        small = [f"{x['text']!r} at {x['px']:.1f} px" for x in page.evaluate(LABELS) if x["px"] < 10]
        assert not small, f"drachenland ({phase}, {locale}) on a phone: labels under 10 px: {small}"
        targets = page.locator(".dl-board [data-move]")
        for i in range(targets.count()):
            seen = targets.nth(i).evaluate(TARGET_HIT)
            name = targets.nth(i).get_attribute("data-move")
            assert seen["hit"], f"drachenland ({phase}, {locale}): a tap on {name} lands on {seen['under']}"
    finally:
        context.close()
