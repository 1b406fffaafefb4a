"""Issue 21, per game: a live push (another seat decides over the API while the page is open) and
a replay step move a Drachenland figure and a Felsental dwarf or dragon through the places
between its old and its new one; on Draco, another seat's scoring turn shows its "+N" rising and
the cards a player's confirm draws fly into the hand. Under ``prefers-reduced-motion: reduce``
nothing animates. Draco's walking dragons are in test_board_art.py; the recorder is
tests/browser/motion.py."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.browser.motion import TIMEOUT_MS, Motion, assert_jumped, assert_walked, watch_motion
from tests.browser.pages import log_in
from tests.browser.studio import Studio, User, any_move
from tests.support.server import Server

pytestmark = pytest.mark.browser
DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
SHOWS_FINAL = """() => window.__final !== undefined
  && Number(document.getElementById('match-area').getAttribute('data-version')) >= window.__final"""
AREA_CHANGED = "v => document.getElementById('match-area').getAttribute('data-version') !== v"
"""True once a new board (a later version) is shown."""


def _dl_walks(m: dict[str, Any]) -> bool:
    """A Drachenland seat about to walk a figure that stands on the board."""
    return any(x.startswith("move:") for x in m["legal"]) and any(
        f["id"] == m["view"]["active_figure"] for f in m["view"]["figures"]
    )


def _dl_shown(walker: str, other: dict[str, Any]) -> bool:
    """The walker stands on the board as the other seat sees it: a figure entered earlier in the
    turn (still pending) first appears to them with the walk, and has nowhere to walk from."""
    return any(f["id"] == walker for f in other["view"]["figures"])


def _fels_walks(m: dict[str, Any]) -> bool:
    return any(x.startswith("to:") for x in m["legal"])


def _fels_walking(match: dict[str, Any], rnd: random.Random) -> str:
    """Plays a walking card whenever one is in hand: walks come soon."""
    if "accept" in match["legal"]:
        return "accept"
    walks = [
        m
        for m in match["legal"]
        if m.startswith("play:") and m.split(":")[2] in {"move", "fly", "move1", "move2"}
    ]
    return rnd.choice(walks) if walks else any_move(match, rnd)


@dataclass(frozen=True)
class Game:
    name: str
    board: str
    """The board's drawing, there once the page has loaded."""
    pieces: str
    """The pieces that walk."""
    walks: Callable[[dict[str, Any]], bool]
    policy: Callable[[dict[str, Any], random.Random], str]
    prefix: str
    """The moves that walk a piece."""
    walker: Callable[[dict[str, Any]], str]
    """The piece a walk moves, from the view of the seat about to walk."""
    shown: Callable[[str, dict[str, Any]], bool]
    """Whether that piece is on the board in the other seat's view."""
    users: tuple[str, str]


GAMES = {
    "drachenland": Game(
        "drachenland",
        ".dl-board",
        ".dl-board .dl-figure[data-piece]",
        _dl_walks,
        any_move,
        "move:",
        lambda m: str(m["view"]["active_figure"]),
        _dl_shown,
        ("mla", "mlb"),
    ),
    "felsental": Game(
        "felsental",
        ".fels-valley",
        ".fels-valley [data-piece^='dwarf-'], .fels-valley [data-piece='dragon']",
        _fels_walks,
        _fels_walking,
        "to:",
        lambda m: (
            "dragon" if m["view"]["play"]["selected"] is None else f"dwarf-{m['view']['play']['selected']}"
        ),
        lambda walker, other: True,  # the dragon and the dwarves stand in the valley from the start
        ("mfa", "mfb"),
    ),
}


@dataclass
class Table:
    studio: Studio
    users: list[User]
    match_id: int


@pytest.fixture(scope="module")
def tables(server: Server) -> dict[str, Table]:
    """One two-seat match per game; the tests play it on to their next walk."""
    out = {}
    for name, game in GAMES.items():
        studio = Studio(server.base_url, seed=21)
        users = studio.users(*game.users)
        out[name] = Table(studio, users, studio.match(name, users))
    return out


@pytest.fixture
def open_page(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    contexts: list[Any] = []

    def open_(board: str, path: str, viewport: dict[str, int], user: User | None, reduce: bool) -> Any:
        context = browser.new_context(
            viewport=viewport, locale="en-US", reduced_motion="reduce" if reduce else "no-preference"
        )
        contexts.append(context)
        if user is not None:
            log_in(context, server.base_url, user.name)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server.base_url}{path}")
        page.wait_for_selector(board)
        page.wait_for_timeout(400)  # the live stream connects (and may refresh the area once)
        return page

    yield open_
    for context in contexts:
        context.close()


def _walk(table: Table, actor: User, walk: str, version: int) -> None:
    """Walks and ends the turn: the other seats may see a turn (and a replay has its steps) only
    once it is confirmed; actions left (Felsental's dwarves) are given up by the confirm."""
    table.studio.decide(table.match_id, actor, walk, version)
    for _ in range(8):
        seen = table.studio.view(table.match_id, actor)
        if not seen["legal"] and not seen["can_confirm"]:
            return
        move = "confirm" if seen["can_confirm"] else any_move(seen, table.studio.random)
        table.studio.decide(table.match_id, actor, move, seen["version"])


def _check(motion: Motion, walker: str, reduce: bool) -> None:
    assert walker in motion.moved(), f"the walk did not move {walker}: {motion.moved()}"
    if reduce:
        assert_jumped(motion)
    else:
        assert_walked(motion, walker)


@pytest.mark.parametrize("reduce", [False, True], ids=["motion", "reduced-motion"])
@pytest.mark.parametrize("name", list(GAMES))
def test_a_live_push_walks_the_piece(
    tables: dict[str, Table], open_page: Any, name: str, reduce: bool
) -> None:
    game, table = GAMES[name], tables[name]

    def walk_seen_by_the_other(m: dict[str, Any]) -> bool:
        other = table.users[1 - m["viewer_seat"]]
        return game.walks(m) and game.shown(game.walker(m), table.studio.view(table.match_id, other))

    until = walk_seen_by_the_other
    actor = table.studio.play(table.match_id, table.users, 400, policy=game.policy, until=until)
    assert actor is not None, "the match ended before a walk"
    looker = next(u for u in table.users if u is not actor)
    page = open_page(game.board, f"/matches/{table.match_id}", DESKTOP, looker, reduce)
    seen = table.studio.view(table.match_id, actor)
    walk = next(m for m in seen["legal"] if m.startswith(game.prefix))

    def change() -> None:
        _walk(table, actor, walk, seen["version"])
        page.evaluate("v => { window.__final = v; }", table.studio.view(table.match_id, actor)["version"])

    # The walk and the rest of its turn are shown once confirmed, in one push or a few: the
    # recording runs until the page shows the turn's end.
    motion = watch_motion(page, game.pieces, change, SHOWS_FINAL, None)
    _check(motion, game.walker(seen), reduce)


def _walking_step(actor: User, match_id: int, walk: str) -> int:
    """The newest replay step whose decision is ``walk``."""
    steps = actor.get(f"/api/matches/{match_id}/replay/0")["steps"]
    for step in range(steps, 0, -1):
        if walk in (actor.get(f"/api/matches/{match_id}/replay/{step}")["move"] or ""):
            return step
    raise AssertionError(f"no replay step is {walk}")


@pytest.mark.parametrize("reduce", [False, True], ids=["motion", "reduced-motion"])
@pytest.mark.parametrize("name", list(GAMES))
def test_a_replay_step_walks_the_piece(
    tables: dict[str, Table], open_page: Any, name: str, reduce: bool
) -> None:
    game, table = GAMES[name], tables[name]
    actor = table.studio.play(table.match_id, table.users, 400, policy=game.policy, until=game.walks)
    assert actor is not None, "the match ended before a walk"
    seen = table.studio.view(table.match_id, actor)
    walk = next(m for m in seen["legal"] if m.startswith(game.prefix))
    _walk(table, actor, walk, seen["version"])
    step = _walking_step(actor, table.match_id, walk)
    page = open_page(game.board, f"/matches/{table.match_id}/replay?step={step - 1}", PHONE, None, reduce)
    count = page.locator("[data-replay-count]").inner_text()
    motion = watch_motion(
        page,
        game.pieces,
        lambda: page.locator("[data-replay=next]").click(),
        "c => document.querySelector('[data-replay-count]').innerText !== c",
        count,
    )
    _check(motion, game.walker(seen), reduce)


# --- Draco: points rising, drawn cards flying into the hand ---------------------------------------

POPS = """() => {
  // Every "+N" that rose over the board while recording, by its text.
  const rec = window.__pops = [];
  new MutationObserver(changes => changes.forEach(c => c.addedNodes.forEach(n => {
    if (n.classList && n.classList.contains("score-pop")) rec.push(n.textContent);
  }))).observe(document.body, {childList: true});
}"""

DRACO_BOARD = "svg.draco-board"


@dataclass
class DracoTable:
    studio: Studio
    users: list[User]
    match_id: int


@pytest.fixture(scope="module")
def draco(server: Server) -> DracoTable:
    studio = Studio(server.base_url, seed=21)
    users = studio.users("mda", "mdb")
    return DracoTable(studio, users, studio.match("draco", users))


def _scores(seen: dict[str, Any]) -> list[int]:
    return [p["score"] for p in seen["view"]["players"]]


SHOWN_SCORES = """() => Object.fromEntries([...document.querySelectorAll("[data-score]")]
  .map(el => [el.dataset.score, Number(el.dataset.value)]))"""


def _to_confirm(table: DracoTable, actor: User) -> dict[str, Any]:
    """The seat to act plays its last card and decides the rest, up to its confirm."""
    seen = table.studio.view(table.match_id, actor)
    plays = [m for m in seen["legal"] if m.startswith("play:")]
    table.studio.decide(table.match_id, actor, plays[-1], seen["version"])
    for _ in range(6):
        seen = table.studio.view(table.match_id, actor)
        if seen["can_confirm"]:
            return seen
        table.studio.decide(table.match_id, actor, seen["legal"][0], seen["version"])
    raise AssertionError("the turn never came to its confirm")


@pytest.mark.parametrize("reduce", [False, True], ids=["motion", "reduced-motion"])
def test_points_rise_when_another_seats_turn_scores(draco: DracoTable, open_page: Any, reduce: bool) -> None:
    for _ in range(20):
        actor = draco.studio.to_act(draco.match_id, draco.users)
        assert actor is not None, "the match ended before a turn scored"
        before = _scores(draco.studio.view(draco.match_id, actor))
        seen = _to_confirm(draco, actor)
        if _scores(seen) != before:
            break
        draco.studio.decide(draco.match_id, actor, "confirm", seen["version"])
    else:
        raise AssertionError("twenty turns scored nothing")
    looker = next(u for u in draco.users if u is not actor)
    page = open_page(DRACO_BOARD, f"/matches/{draco.match_id}", DESKTOP, looker, reduce)
    version = page.get_attribute("#match-area", "data-version")
    shown = page.evaluate(SHOWN_SCORES)
    page.evaluate(POPS)
    draco.studio.decide(draco.match_id, actor, "confirm", seen["version"])
    page.wait_for_function(AREA_CHANGED, arg=version, timeout=TIMEOUT_MS)
    page.wait_for_timeout(300)
    now = page.evaluate(SHOWN_SCORES)
    # Whoever's score the turn raised (a dragon's rider may be another seat): "+N" for each.
    gains = {f"+{now[k] - shown[k]}" for k in now if now[k] > shown[k]}
    assert gains, (shown, now)
    pops = page.evaluate("() => window.__pops")
    assert pops == [] if reduce else (pops and set(pops) == gains), (pops, gains)


@pytest.mark.parametrize("reduce", [False, True], ids=["motion", "reduced-motion"])
def test_drawn_cards_fly_into_the_hand(draco: DracoTable, open_page: Any, reduce: bool) -> None:
    for _ in range(20):
        actor = draco.studio.to_act(draco.match_id, draco.users)
        assert actor is not None, "the match ended before a turn drew cards"
        seen = _to_confirm(draco, actor)
        if seen["view"]["draws"] > 0:
            break
        draco.studio.decide(draco.match_id, actor, "confirm", seen["version"])
    else:
        raise AssertionError("twenty turns drew no card")
    page = open_page(DRACO_BOARD, f"/matches/{draco.match_id}", DESKTOP, actor, reduce)
    version = page.get_attribute("#match-area", "data-version")
    motion = watch_motion(
        page,
        "[data-hand] > [data-piece]",
        lambda: page.locator("[data-match-action=confirm]").click(),
        AREA_CHANGED,
        version,
    )
    first, last = motion.frames[0]["at"], motion.frames[-1]["at"]
    drawn = [k for k in last if k not in first]
    assert drawn, (first, last)
    for card in drawn:
        end = last[card]
        shown = [f["at"][card] for f in motion.frames if card in f["at"]]
        flying = [p for p in shown if abs(p[0] - end[0]) > 2 or abs(p[1] - end[1]) > 2]
        if reduce:
            assert not flying, (card, shown)
        else:
            assert flying, (card, shown)
    assert (motion.animations() == 0) if reduce else (motion.animations() > 0)
