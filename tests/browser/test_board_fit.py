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
from typing import Any

import pytest

from tests.browser.pages import log_in
from tests.browser.studio import Studio, User, any_move
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


PHASES: dict[str, dict[str, Until]] = {
    "draco": {
        "play": _offers("play:"),
        "keep-or-take": _offers("mount:keep"),
        "confirm": lambda m: m["can_confirm"],
    },
    "drachenland": {
        "roll": _offers("roll"),
        "dice": _phase("choose1"),
        "walk": _offers("move:"),
        "treasure": _offers("egg", "gems", "clear"),
    },
    "felsental": {"cards": _offers("play:"), "targets": _offers("to:"), "defend": _offers("accept")},
}

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
    """(game, phase) -> a match in that phase and the seat to act there; one match per phase."""
    studio = Studio(server.base_url, seed=9)
    found: dict[tuple[str, str], tuple[int, User]] = {}
    rnd = random.Random(9)
    for game, phases in PHASES.items():
        for phase, until in phases.items():
            users = studio.users("fa", "fb")
            match_id = studio.match(game, users)
            actor = studio.play(match_id, users, 400, policy=lambda m, _r: any_move(m, rnd), until=until)
            assert actor is not None and until(studio.view(match_id, actor)), (game, phase)
            found[(game, phase)] = (match_id, actor)
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
@pytest.mark.parametrize(
    ("game", "phase"), [(g, p) for g, phases in PHASES.items() for p in phases], ids=lambda x: str(x)
)
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
