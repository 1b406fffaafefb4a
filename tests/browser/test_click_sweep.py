"""Every kind of action of every game, taken the way a person takes it: a real mouse click at
1366 x 768 and a real tap (a touch screen) at 390 x 844, in English and in German.

The matches are driven over the JSON API to the positions where an action is on offer; only the
action at hand is taken on the page. Whenever the seat to act is offered a kind of action not
yet taken in this run (a card, a target on the board, a figure, a die, a prompt button, Undo,
Confirm), the test finds it on that player's page, scrolls it into view as the browser does,
and checks that the element under the middle of it is the element itself (or inside it): what
a person would hit there. Anything else on top (a sticky bar, another target, a picture that
lets clicks through to the board) fails the test, naming what lies there. No keyboard, no
script clicks, no second try another way.

A kind is the move's action word with its fixed words (``mount:keep``, ``fly:#:small``) and the
element that offers it (``button.dcard``, ``g.target``): a card and the board's target for the
same move are two kinds. Each game has kinds that every run must reach (``REQUIRED``); rarer
ones (a king dragon's flight, the Boatman) are taken whenever a match offers them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.browser.pages import log_in, settled_box
from tests.browser.studio import Studio, User
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000
DOUBLE_CLICK_S = 0.6
"""Two clicks at one spot within this time are a double click to the browser (Chromium: 500 ms)."""


@dataclass(frozen=True)
class Mode:
    name: str
    viewport: dict[str, int]
    touch: bool
    locale: str


MODES = [
    Mode("mouse-en", {"width": 1366, "height": 768}, False, "en"),
    Mode("mouse-de", {"width": 1366, "height": 768}, False, "de"),
    Mode("tap-en", {"width": 390, "height": 844}, True, "en"),
    Mode("tap-de", {"width": 390, "height": 844}, True, "de"),
]

SEATS = {"draco": 2, "drachenland": 2, "felsental": 2}
OPTIONS = {"felsental": {"dwarf_setup": "free", "hand_exchange": True}}
"""Felsental's variants add kinds of their own: the dwarves placed freely, the hand exchanged."""
DECISIONS = {"draco": 160, "drachenland": 260, "felsental": 300}
"""Decisions per match at most (most are posted over the API; a few dozen are clicks)."""
MATCHES = 3
"""Matches at most, each played until it ends or every kind is taken."""

REQUIRED = {
    "draco": {
        "play:#:#@button.dcard",
        "play:#:#@g.target",
        "mount:keep@button.choice",
        "mount:take@button.choice",
        "undo@button",
        "confirm@button",
    },
    "drachenland": {
        "roll@button.dl-btn",
        "choose:#@g.dl-figure",
        "choose:#:#@button.dl-btn",
        "move:#:#@g.dl-target",
        "move:#@g.dl-target",
        "egg@button.dl-btn",
        "gems@button.dl-btn",
        "end@button.dl-btn",
        "undo@button",
        "confirm@button",
    },
    "felsental": {
        "exchange@button.btn",
        "keep@button.btn",
        "place:#:#@g.target",
        "draw@button.btn",
        "play:#:#@button.option",
        "to:#@g.target",
        "dwarf:#@g.figure",
        "dir:#@g.target",
        "fury@button.btn",
        "free@button.btn",
        "done@button.btn",
        "block:#:#@button.btn",
        "accept@button.btn",
        "undo@button",
        "confirm@button",
    },
}

FIXED_WORDS = {"keep", "take", "die", "small"}
"""Arguments that make a move another kind of action (``mount:keep``, ``fly:V03:small``); any
other argument names one of several alike things: ``choose:red`` and ``choose:blue`` are one kind."""

OFFERED = """() => {
    const shown = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0
        && getComputedStyle(el).visibility !== 'hidden'; };
    const sig = el => el.tagName.toLowerCase() + ([...el.classList].filter(c => c !== 'legal')
        .slice(0, 1).map(c => '.' + c).join(''));
    const out = [];
    document.querySelectorAll('#match-area [data-move]').forEach((el, i) => {
        if (shown(el)) out.push({move: el.dataset.move, element: sig(el), index: i});
    });
    document.querySelectorAll('#match-area [data-match-action]:not([disabled])').forEach(el => {
        if (shown(el)) out.push({move: el.dataset.matchAction, element: 'button', index: -1});
    });
    return out;
}"""

UNDER_POINT = """([x, y, selector, index]) => {
    const all = document.querySelectorAll(selector);
    const el = index < 0 ? all[0] : all[index];
    const at = document.elementFromPoint(x, y);
    if (at !== null && el.contains(at)) return null;
    if (at === null) return 'nothing';
    const name = at.tagName.toLowerCase() + (at.id ? '#' + at.id : '')
        + [...at.classList].map(c => '.' + c).join('');
    return name + ' "' + (at.textContent || '').trim().slice(0, 40) + '"';
}"""


def kind_of(move: str) -> str:
    """``play:black:3`` -> ``play:#:#``; ``mount:keep`` stays; ``choose:red:a`` -> ``choose:#:#``."""
    action, *args = move.split(":")
    words = [a if a in FIXED_WORDS else "#" for a in args]
    return ":".join([action, *words])


class Seat:
    """One player: an API user and a browser page on the match in the run's mode."""

    def __init__(self, user: User, page: Any, url: str) -> None:
        self.user = user
        self.page = page
        self.url = url
        self.last_click = 0.0

    def shows(self, version: int) -> None:
        """The page at ``version``. The seat's own decisions posted over the API are not pushed
        to its page (a page gets the answer to its own decisions), so the page is loaded again."""
        area = self.page.locator("#match-area")
        if self.page.url != self.url or area.get_attribute("data-version") != str(version):
            self.page.goto(self.url)
        assert area.get_attribute("data-version") == str(version)

    def take(self, offer: dict[str, Any], mode: Mode) -> None:
        """Click or tap the offered element where a person would, after checking what is there."""
        page = self.page
        if offer["index"] < 0:
            selector, index = f"#match-area [data-match-action='{offer['move']}']", -1
            target = page.locator(selector)
        else:
            selector, index = "#match-area [data-move]", offer["index"]
            target = page.locator(selector).nth(index)
        target.scroll_into_view_if_needed()
        box = settled_box(page, target)
        assert box is not None, offer
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        covered = page.evaluate(UNDER_POINT, [x, y, selector, index])
        assert covered is None, f"{mode.name}: {offer['move']} ({offer['element']}) is covered by {covered}"
        before = page.locator("#match-area").get_attribute("data-version")
        # The board takes the second click of a double click for a slip (static/js/board.js):
        # a person's next decision comes later than that, so the test waits as long.
        pause = DOUBLE_CLICK_S - (time.monotonic() - self.last_click)
        if pause > 0:
            page.wait_for_timeout(pause * 1000)
        self.last_click = time.monotonic()
        if mode.touch:
            page.touchscreen.tap(x, y)
        else:
            page.mouse.click(x, y)
        try:
            page.wait_for_function(
                "v => document.getElementById('match-area')?.getAttribute('data-version') !== v", arg=before
            )
        except Exception as error:
            raise AssertionError(f"{mode.name}: {offer} at ({x:.0f}, {y:.0f}) changed nothing") from error


def policy(match: dict[str, Any], rnd: random.Random) -> str:
    """An API decision: any legal move, confirming once the turn allows it (now and then earlier).

    Attacks are taken when offered (Felsental's defence prompt comes only after one), walks
    rather than Drachenland's "end" (so that figures reach volcanoes and their treasures)."""
    moves = [m for m in match["legal"] if m != "confirm"]
    if match["can_confirm"] and (not moves or rnd.random() < 0.3):
        return "confirm"
    attacks = [m for m in moves if m.startswith(("target:", "dir:", "attack"))]
    if attacks and rnd.random() < 0.8:
        return rnd.choice(attacks)
    walks = [m for m in moves if m.startswith(("move:", "to:", "play:", "choose:", "block:"))]
    if walks and "end" in moves and rnd.random() < 0.9:
        return rnd.choice(walks)
    return rnd.choice(moves)


@pytest.fixture(scope="module")
def studio(server: Server) -> Studio:
    return Studio(server.base_url, seed=20)


@pytest.fixture
def seats_in(browser: Any, server: Server) -> Iterator[Any]:
    contexts: list[Any] = []

    def open_(users: list[User], match_id: int, mode: Mode) -> list[Seat]:
        seats = []
        for user in users:
            context = browser.new_context(
                viewport=mode.viewport,
                has_touch=mode.touch,
                is_mobile=mode.touch,
                locale="de-DE" if mode.locale == "de" else "en-US",
            )
            contexts.append(context)
            log_in(context, server.base_url, user.name, mode.locale)
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            seats.append(Seat(user, page, f"{server.base_url}/matches/{match_id}"))
        return seats

    yield open_
    for context in contexts:
        context.close()


@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
@pytest.mark.parametrize("game", sorted(SEATS))
def test_every_kind_of_action_is_taken_by_mouse_and_by_tap(
    studio: Studio, seats_in: Any, game: str, mode: Mode
) -> None:
    rnd = random.Random(f"{game}-{mode.name}")
    taken: dict[str, str] = {}
    shown: dict[str, set[str]] = {}
    """Move kind -> the kinds of elements its pages offered it on (a card, a board target)."""
    # A match dealt so that one kind never comes up (a Felsental dragon nobody nets) ends
    # before all are taken: the next match goes on from what the first one took.
    for number in range(MATCHES):
        users = studio.users(*[f"{mode.name[:1]}{number}{i}" for i in range(SEATS[game])])
        match_id = studio.match(game, users, OPTIONS.get(game))
        seats = {s.user.name: s for s in seats_in(users, match_id, mode)}
        _sweep(studio, match_id, users, seats, game, mode, rnd, taken, shown)
        if REQUIRED[game] <= set(taken):
            break
    missing = REQUIRED[game] - set(taken)
    assert not missing, f"{game} {mode.name}: never offered {sorted(missing)}; taken {sorted(taken)}"


def _sweep(
    studio: Studio,
    match_id: int,
    users: list[User],
    seats: dict[str, Seat],
    game: str,
    mode: Mode,
    rnd: random.Random,
    taken: dict[str, str],
    shown: dict[str, set[str]],
) -> None:
    """One match: each kind of action not taken yet is clicked where its page offers it; the
    other decisions go over the API."""
    for _ in range(DECISIONS[game]):
        if REQUIRED[game] <= set(taken):
            return
        actor = studio.to_act(match_id, users)
        if actor is None:
            return
        seen = studio.view(match_id, actor)
        offered = {kind_of(m) for m in seen["legal"]} | {a for a in ("undo", "confirm") if seen[f"can_{a}"]}
        # The page is looked at only when it may offer something new: loading it for each of
        # the many API decisions would take minutes.
        wanted = {r.split("@")[0] for r in REQUIRED[game] if r not in taken}
        if any(
            k not in shown or k in wanted or any(f"{k}@{e}" not in taken for e in shown[k]) for k in offered
        ):
            seat = seats[actor.name]
            seat.shows(seen["version"])
            offers = seat.page.evaluate(OFFERED)
            for o in offers:
                shown.setdefault(kind_of(o["move"]), set()).add(o["element"])
            fresh = [o for o in offers if f"{kind_of(o['move'])}@{o['element']}" not in taken]
            if fresh:
                offer = fresh[0]
                seat.take(offer, mode)
                taken[f"{kind_of(offer['move'])}@{offer['element']}"] = offer["move"]
                continue
        studio.decide(match_id, actor, policy(seen, rnd), seen["version"])
