"""Issue 21: the illustrated Draco board and the moves that animate, in Chromium.

The art is there and addressable (every dragon and space a ``data-piece``, drawn from the cached
art file, every legal target at least 32 px on a phone); each dragon keeps a mark of its own, so
that no two dragons (nor two players) are told apart by colour alone under simulated
deuteranopia and protanopia; a live push (another seat decides over the API while the page is
open) and a replay step move a piece through the places between its old and its new one; under
``prefers-reduced-motion: reduce`` nothing animates.

The motion recorder (tests/browser/motion.py) is shared with the other games' cases
(test_board_motion.py).
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.browser.motion import TIMEOUT_MS, Motion, assert_jumped, assert_walked, watch_motion
from tests.browser.pages import log_in
from tests.browser.studio import Studio, User, any_move
from tests.support.server import ROOT, Server

pytestmark = pytest.mark.browser
DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
ART = ROOT / "static" / "games" / "draco" / "art.svg"

# --- Draco ---------------------------------------------------------------------------------------

DRAGONS = "svg.draco-board .dragon[data-piece]"

SPACES_BETWEEN = """([a, b]) => {
  const r = document.querySelector("svg.draco-board").getBoundingClientRect();
  const out = [];
  for (let k = Math.min(a, b) + 1; k < Math.max(a, b); k++) {
    const el = document.querySelector(`svg.draco-board [data-piece="space-${k}"]`);
    const box = el.getBoundingClientRect();
    out.push([box.left + box.width / 2 - r.left, box.top + box.height / 2 - r.top]);
  }
  return out;
}"""


def draco_via(page: Any, motion: Motion, piece: str) -> list[tuple[float, float]]:
    """A dragon walks over the spaces between its old and its new one."""
    first, last = motion.frames[0]["at"][piece], motion.frames[-1]["at"][piece]
    if first[2] is None or last[2] is None:
        return []
    return [tuple(p) for p in page.evaluate(SPACES_BETWEEN, [int(first[2]), int(last[2])])]


def finish_turn(studio: Studio, match_id: int, user: User) -> None:
    """The seat to act plays a card and decides the rest of its turn (keep/take, confirm)."""
    for _ in range(8):
        seen = studio.view(match_id, user)
        if seen["status"] != "active" or (not seen["legal"] and not seen["can_confirm"]):
            return
        plays = [m for m in seen["legal"] if m.startswith("play:")]
        moves = [m for m in seen["legal"] if m != "confirm"]
        if plays and not seen["can_undo"]:
            move = plays[-1]
        elif seen["can_confirm"]:
            move = "confirm"
        else:
            move = moves[0]
        studio.decide(match_id, user, move, seen["version"])


@dataclass
class Table:
    users: list[User]
    live: int
    """Just started: the first seat's turn is played over the API while the second looks on."""
    replayed: int
    """A few turns in: its replay steps move dragons."""


@pytest.fixture(scope="module")
def table(server: Server) -> Table:
    studio = Studio(server.base_url, seed=21)
    users = studio.users("art", "bea")
    replayed = studio.match("draco", users)
    studio.play(replayed, users, 14, policy=any_move)
    return Table(users, studio.match("draco", users), replayed)


@pytest.fixture
def open_page(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    contexts: list[Any] = []

    def open_(path: str, viewport: dict[str, int], user: User | None = None, reduce: bool = False) -> Any:
        context = browser.new_context(
            viewport=viewport, locale="en-US", reduced_motion="reduce" if reduce else "no-preference"
        )
        contexts.append(context)
        if user is not None:
            log_in(context, server.base_url, user.name)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server.base_url}{path}")
        page.wait_for_selector("svg.draco-board")
        page.wait_for_timeout(400)  # the live stream connects (and may refresh the area once)
        return page

    yield open_
    for context in contexts:
        context.close()


ADDRESSABLE = """() => {
  const svg = document.querySelector("svg.draco-board");
  const art = el => { const b = el.getBoundingClientRect(); return [b.width, b.height]; };
  return {
    dragons: [...svg.querySelectorAll(".dragon")].map(d => ({
      piece: d.getAttribute("data-piece"), body: art(d.querySelector(".dragon-body")),
      mark: art(d.querySelector(".dragon-mark")),
      href: d.querySelector(".dragon-body").getAttribute("href"),
    })),
    spaces: [...svg.querySelectorAll(".space")].map(s => s.getAttribute("data-piece")),
    targets: [...document.querySelectorAll(".draco [data-move]")].map(t => {
      const b = (t.querySelector(".target-ring, .chip-pad") || t).getBoundingClientRect();
      return [t.getAttribute("data-move"), Math.min(b.width, b.height)];
    }),
    mountain: svg.querySelector("image.draco-mountain").getAttribute("href"),
  };
}"""


def test_the_drawn_board_is_addressable_and_easy_to_tap_on_a_phone(table: Table, open_page: Any) -> None:
    page = open_page(f"/matches/{table.live}", PHONE, table.users[0])
    facts = page.evaluate(ADDRESSABLE)
    assert sorted(d["piece"] for d in facts["dragons"]) == sorted(
        f"dragon-{d}"
        for d in ("blue", "brown", "black", "red", "yellow", "green", "gray", "lightblue", "purple", "orange")
    )
    assert facts["spaces"] == [f"space-{k}" for k in range(31)]
    for d in facts["dragons"]:
        # Drawn from the cached art file: a use that has loaded renders with a size.
        assert d["href"].startswith("/static/games/draco/art.svg#"), d
        assert min(d["body"]) >= 20 and min(d["mark"]) >= 8, d
    assert facts["mountain"].startswith("/static/games/draco/")
    assert facts["targets"], "the first seat has cards to play"
    for move, size in facts["targets"]:
        assert size >= 32, (move, size)


# Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB.
MACHADO = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
}
CONFUSED = 12.0
"""CIE76 distance below which two simulated colours count as hard to tell apart."""

COLOURS = """() => ({
  dragons: [...document.querySelectorAll("svg.draco-board .dragon")].map(d => ({
    piece: d.getAttribute("data-piece"),
    colour: getComputedStyle(d.querySelector(".dragon-body")).color,
    mark: d.querySelector(".dragon-mark").getAttribute("href"),
  })),
  seats: [...document.querySelectorAll(".draco-player .seat-badge")].map(b => ({
    colour: getComputedStyle(b).backgroundColor, text: b.textContent.trim(),
  })),
})"""


def _rgb(css: str) -> tuple[float, float, float]:
    r, g, b = (int(v) for v in re.findall(r"\d+", css)[:3])
    return r / 255, g / 255, b / 255


def _simulate(rgb: tuple[float, float, float], matrix: Any) -> tuple[float, float, float]:
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    linear = [lin(c) for c in rgb]
    out = [min(1.0, max(0.0, sum(m * c for m, c in zip(row, linear, strict=True)))) for row in matrix]
    return out[0], out[1], out[2]


def _lab(linear: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = linear
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _symbols() -> dict[str, str]:
    """Each mark's drawing in the art file (its inner XML), by id."""
    tree = ET.parse(ART)
    out = {}
    for el in tree.iter():
        if el.tag.endswith("symbol") and el.get("id", "").startswith("m-"):
            out[el.get("id", "")] = "".join(ET.tostring(child, encoding="unicode") for child in el)
    return out


def test_dragons_and_players_stay_apart_under_colour_vision_deficiencies(
    table: Table, open_page: Any
) -> None:
    page = open_page(f"/matches/{table.replayed}", DESKTOP, table.users[0])
    facts = page.evaluate(COLOURS)
    symbols = _symbols()
    dragons = facts["dragons"]
    assert len(dragons) == 10
    drawings = {d["piece"]: symbols.get(d["mark"].split("#", 1)[1]) for d in dragons}
    assert all(drawings.values()), drawings
    confused_pairs = 0
    for name, matrix in MACHADO.items():
        seen = {d["piece"]: _lab(_simulate(_rgb(d["colour"]), matrix)) for d in dragons}
        for a in dragons:
            for b in dragons:
                if a["piece"] >= b["piece"]:
                    continue
                # Every pair differs by its mark's shape, not only its colour; the pairs the
                # simulation confuses are the ones that need it.
                assert drawings[a["piece"]] != drawings[b["piece"]], (name, a, b)
                confused_pairs += math.dist(seen[a["piece"]], seen[b["piece"]]) < CONFUSED
        seats = [(_lab(_simulate(_rgb(s["colour"]), matrix)), s["text"]) for s in facts["seats"]]
        for i, (lab_a, text_a) in enumerate(seats):
            for lab_b, text_b in seats[i + 1 :]:
                # Players: their seat number on every badge, whatever the colours look like.
                assert text_a and text_b and text_a != text_b, (name, text_a, text_b, math.dist(lab_a, lab_b))
    # The check is not empty: the ten colours do collapse for these viewers (grey and black, …).
    assert confused_pairs > 0


def _draco_live(page: Any, studio: Studio, match_id: int, actor: User) -> Motion:
    version = page.get_attribute("#match-area", "data-version")
    return watch_motion(
        page,
        DRAGONS,
        lambda: finish_turn(studio, match_id, actor),
        "v => document.getElementById('match-area').getAttribute('data-version') !== v",
        version,
    )


def _draco_replay_step(page: Any) -> Motion:
    """Steps on until a step moves a dragon (a confirm moves none)."""
    for _ in range(12):
        count = page.locator("[data-replay-count]").inner_text()
        motion = watch_motion(
            page,
            DRAGONS,
            lambda: page.locator("[data-replay=next]").click(),
            "c => document.querySelector('[data-replay-count]').innerText !== c",
            count,
        )
        if motion.moved():
            return motion
    raise AssertionError("twelve replay steps moved no dragon")


@pytest.mark.parametrize("reduce", [False, True], ids=["motion", "reduced-motion"])
def test_a_live_push_walks_the_dragon(table: Table, server: Server, open_page: Any, reduce: bool) -> None:
    studio = Studio(server.base_url)
    # Each run plays one turn of its own: the looker is whoever is not to act.
    actor = studio.to_act(table.live, table.users)
    assert actor is not None
    looker = next(u for u in table.users if u is not actor)
    page = open_page(f"/matches/{table.live}", DESKTOP, looker, reduce=reduce)
    motion = _draco_live(page, studio, table.live, actor)
    moved = motion.moved()
    assert moved, "the other seat's turn moved no dragon"
    if reduce:
        assert_jumped(motion)
    else:
        assert_walked(motion, moved[0], draco_via(page, motion, moved[0]))


@pytest.mark.parametrize("reduce", [False, True], ids=["motion", "reduced-motion"])
def test_a_replay_step_walks_the_dragon(table: Table, open_page: Any, reduce: bool) -> None:
    page = open_page(f"/matches/{table.replayed}/replay?step=0", PHONE, reduce=reduce)
    motion = _draco_replay_step(page)
    if reduce:
        assert_jumped(motion)
    else:
        piece = motion.moved()[0]
        assert_walked(motion, piece, draco_via(page, motion, piece))
