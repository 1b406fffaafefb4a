"""Issue 21, per game: a live push (another seat decides over the API while the page is open) and
a replay step move a Drachenland figure and a Felsental dwarf or dragon through the places
between its old and its new one; under ``prefers-reduced-motion: reduce`` nothing animates.
Draco's cases are in test_board_art.py; the recorder is tests/browser/motion.py."""

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


def _dl_walks(m: dict[str, Any]) -> bool:
    """A Drachenland seat about to walk a figure that stands on the board."""
    return any(x.startswith("move:") for x in m["legal"]) and any(
        f["id"] == m["view"]["active_figure"] for f in m["view"]["figures"]
    )


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
    users: tuple[str, str]


GAMES = {
    "drachenland": Game(
        "drachenland",
        ".dl-board",
        ".dl-board .dl-figure[data-piece]",
        _dl_walks,
        any_move,
        "move:",
        ("mla", "mlb"),
    ),
    "felsental": Game(
        "felsental",
        ".fels-valley",
        ".fels-valley [data-piece^='dwarf-'], .fels-valley [data-piece='dragon']",
        _fels_walks,
        _fels_walking,
        "to:",
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

    def open_(game: Game, path: str, viewport: dict[str, int], user: User | None, reduce: bool) -> Any:
        context = browser.new_context(
            viewport=viewport, locale="en-US", reduced_motion="reduce" if reduce else "no-preference"
        )
        contexts.append(context)
        if user is not None:
            log_in(context, server.base_url, user.name)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server.base_url}{path}")
        page.wait_for_selector(game.board)
        page.wait_for_timeout(400)  # the live stream connects (and may refresh the area once)
        return page

    yield open_
    for context in contexts:
        context.close()


def _walk(table: Table, actor: User, walk: str, version: int) -> None:
    """Walks and ends the turn: the other seats see a turn (and a replay has its steps) once it
    is confirmed; Felsental's dwarves may have actions left, which the confirm gives up."""
    table.studio.decide(table.match_id, actor, walk, version)
    for _ in range(8):
        seen = table.studio.view(table.match_id, actor)
        if not seen["legal"] and not seen["can_confirm"]:
            return
        move = "confirm" if seen["can_confirm"] else any_move(seen, table.studio.random)
        table.studio.decide(table.match_id, actor, move, seen["version"])


def _check(motion: Motion, reduce: bool) -> None:
    moved = motion.moved()
    assert moved, "the walk moved no piece"
    if reduce:
        assert_jumped(motion)
    else:
        assert_walked(motion, moved[0])


@pytest.mark.parametrize("reduce", [False, True], ids=["motion", "reduced-motion"])
@pytest.mark.parametrize("name", list(GAMES))
def test_a_live_push_walks_the_piece(
    tables: dict[str, Table], open_page: Any, name: str, reduce: bool
) -> None:
    game, table = GAMES[name], tables[name]
    actor = table.studio.play(table.match_id, table.users, 400, policy=game.policy, until=game.walks)
    assert actor is not None, "the match ended before a walk"
    looker = next(u for u in table.users if u is not actor)
    page = open_page(game, f"/matches/{table.match_id}", DESKTOP, looker, reduce)
    seen = table.studio.view(table.match_id, actor)
    walk = next(m for m in seen["legal"] if m.startswith(game.prefix))
    version = page.get_attribute("#match-area", "data-version")
    motion = watch_motion(
        page,
        game.pieces,
        lambda: _walk(table, actor, walk, seen["version"]),
        "v => document.getElementById('match-area').getAttribute('data-version') !== v",
        version,
    )
    _check(motion, reduce)


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
    page = open_page(game, f"/matches/{table.match_id}/replay?step={step - 1}", PHONE, None, reduce)
    count = page.locator("[data-replay-count]").inner_text()
    motion = watch_motion(
        page,
        game.pieces,
        lambda: page.locator("[data-replay=next]").click(),
        "c => document.querySelector('[data-replay-count]').innerText !== c",
        count,
    )
    _check(motion, reduce)
