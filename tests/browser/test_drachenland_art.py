"""The Drachenland board as a drawn landscape (issue 21) in Chromium: volcanoes with crater, lava
and smoke carrying their eggs and gems, paths, water crossings, gates, the dice tower and
figures of four kinds, the details drawn from the cached sprite (static/games/drachenland/
art.svg). Every piece stays addressable by a stable ``data-piece`` (a figure keeps its id when it
walks), the players' figures differ by shape and the figure colours by a letter (not by colour
alone), and every legal target takes a tap of 32 px on a phone."""

from __future__ import annotations

import random
import re
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
TAP_PX = 32.0
SPRITE = "/static/games/drachenland/art.svg#"

DRAWN = """() => {
  const box = el => { const b = el.getBoundingClientRect(); return [b.x, b.y, b.width, b.height]; };
  const art = el => el ? {href: el.getAttribute("href"), box: box(el)} : null;
  const board = document.querySelector(".dl-board");
  return {
    land: board.querySelector("image.dl-land")?.getAttribute("href") || null,
    volcanoes: [...board.querySelectorAll(".dl-volcano")].map(v => ({
      id: v.dataset.piece, art: art(v.querySelector("use.dl-volcano-art")),
      eggs: v.querySelectorAll(".dl-egg").length,
      gems: [...v.querySelectorAll(".dl-gem-count")].reduce((n, c) => n + Number(c.textContent), 0),
      hidden: v.classList.contains("dl-hidden-tile"),
      back: art(v.querySelector(".dl-tile-down use")),
      tile: v.querySelector(".dl-tile")?.dataset.piece || null,
    })),
    figures: [...board.querySelectorAll(".dl-figure")].map(f => ({
      id: f.dataset.piece, body: f.querySelector(".dl-fig-body")?.getAttribute("d") || null,
      art: art(f.querySelector("use")), letter: f.querySelector(".dl-fig-letter")?.textContent,
      fill: getComputedStyle(f.querySelector(".dl-fig-body")).fill,
    })),
    water: [...board.querySelectorAll(".dl-water")].map(w => {
      const bed = w.querySelector(".dl-water-bed"), s = bed && getComputedStyle(bed);
      return {id: w.dataset.piece, stroke: s && s.stroke, width: s && parseFloat(s.strokeWidth)};
    }),
    gates: [...board.querySelectorAll(".dl-entrance")]
      .map(e => ({id: e.dataset.piece, art: art(e.querySelector("use"))})),
    paths: [...board.querySelectorAll(".dl-path")].map(p => p.dataset.piece),
    spaces: board.querySelectorAll(".dl-space[data-piece]").length,
    hrefs: [...board.querySelectorAll("use, image")].map(u => u.getAttribute("href")),
  };
}"""

TARGETS = """() => [...document.querySelectorAll(".dl-board [data-move]")].map(el => {
  const b = el.getBoundingClientRect();
  return {move: el.dataset.move, width: b.width, height: b.height};
})"""


def _rgb(css: str) -> tuple[int, int, int]:
    r, g, b = (int(x) for x in re.findall(r"\d+", css)[:3])
    return r, g, b


def _to_space(move: str) -> bool:
    """A walk ending on a path space (not on a volcano, whose tile it may turn up)."""
    return move.startswith("move:") and not move.split(":")[-1].startswith("V")


class Positions:
    """A four-player match in its movement phase (targets on the board) and a two-player match
    where figures standing on the board are themselves the choice ("choose:<colour>")."""

    def __init__(self, studio: Studio) -> None:
        studio.random = random.Random(5)
        self.walk_users = studio.users("wa", "wb", "wc", "wd")
        self.walk = studio.match("drachenland", self.walk_users)
        self.walker = studio.play(
            self.walk,
            self.walk_users,
            400,
            until=lambda m: (
                len(m["log"]) > 30
                and any(_to_space(x) for x in m["legal"])
                and any(f["id"] == m["view"]["active_figure"] for f in m["view"]["figures"])
            ),
        )
        self.pick_users = studio.users("pa", "pb")
        self.pick = studio.match("drachenland", self.pick_users)
        self.picker = studio.play(
            self.pick,
            self.pick_users,
            400,
            until=lambda m: any(
                f"choose:{f['colour']}" in m["legal"]
                for f in m["view"]["figures"]
                if f["seat"] == m["viewer_seat"]
            ),
        )
        assert self.walker is not None and self.picker is not None, "a match ended early"


@pytest.fixture(scope="module")
def positions(server: Server) -> Positions:
    return Positions(Studio(server.base_url))


@pytest.fixture
def open_page(browser: Any, server: Server) -> Iterator[Any]:
    contexts: list[Any] = []

    def open_(viewport: dict[str, int], user: User, match_id: int, **options: Any) -> Any:
        context = browser.new_context(viewport=viewport, locale="en-US", **options)
        contexts.append(context)
        log_in(context, server.base_url, user.name)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server.base_url}/matches/{match_id}")
        page.wait_for_selector(".dl-board")
        # The sprite is a file of its own: drawn once it has loaded.
        page.wait_for_function(
            "() => { const u = document.querySelector('.dl-board use.dl-volcano-art');"
            " return u && u.getBoundingClientRect().height > 20; }"
        )
        return page

    yield open_
    for context in contexts:
        context.close()


def test_the_board_is_a_drawn_landscape_with_addressable_pieces(
    positions: Positions, open_page: Any, server: Server
) -> None:
    user, match_id = positions.walker, positions.walk
    assert user is not None
    seen = Studio(server.base_url).view(match_id, user)["view"]
    page = open_page(DESKTOP, user, match_id)
    drawn = page.evaluate(DRAWN)

    assert drawn["land"] == "/static/games/drachenland/land.svg"
    assert all(h.startswith("/static/games/drachenland/") for h in drawn["hrefs"]), drawn["hrefs"]
    # Volcanoes: each drawn as a volcano (the centre ones bigger), carrying what lies on it.
    assert [v["id"] for v in drawn["volcanoes"]] == [v["id"] for v in seen["volcanoes"]]
    for v, data in zip(drawn["volcanoes"], seen["volcanoes"], strict=True):
        expected = SPRITE + ("volcano-big" if data["ring"] == "centre" else "volcano")
        assert v["art"] and v["art"]["href"] == expected, v
        assert v["art"]["box"][3] > 20, f"{v['id']}: its crater and smoke are not drawn"
        assert v["eggs"] == data["eggs"] and v["gems"] == sum(data["gems"].values()), (v, data)
        assert v["hidden"] == data["face_down"]
        if data["face_down"] or data["tile"]:
            assert v["tile"] == f"tile-{v['id']}", f"{v['id']}: its tile is no piece of its own"
        if data["face_down"]:
            assert v["back"] and v["back"]["href"] == SPRITE + "tile-back" and v["back"]["box"][3] > 10, v
    # Paths, spaces, water and gates.
    assert sorted(drawn["paths"]) == sorted(p["id"] for p in seen["paths"]) and len(drawn["paths"]) == 36
    assert drawn["spaces"] == len(seen["spaces"])
    assert sorted(w["id"] for w in drawn["water"]) == ["W1", "W2", "W3", "W4"]
    for w in drawn["water"]:
        r, _, b = _rgb(w["stroke"])
        assert b > r + 60 and w["width"] >= 10, f"{w['id']} is not drawn as water: {w}"
    assert sorted(g["id"] for g in drawn["gates"]) == ["E1", "E2", "E3"]
    for gate in drawn["gates"]:
        assert gate["art"]["href"] == SPRITE + "gate" and gate["art"]["box"][2] > 20, gate

    # Figures: one kind per player (the outline differs), the colour also a letter.
    figures = {f["id"]: f for f in drawn["figures"]}
    assert set(figures) == {f["id"] for f in seen["figures"]}
    outlines: dict[int, set[str]] = {}
    for data in seen["figures"]:
        f = figures[data["id"]]
        assert f["art"]["href"] == SPRITE + f"fig{data['seat']}" and f["art"]["box"][3] > 15, f
        assert f["letter"] == data["colour"][0].upper(), f
        outlines.setdefault(data["seat"], set()).add(f["body"])
    assert all(len(shapes) == 1 for shapes in outlines.values()), outlines
    assert len({next(iter(s)) for s in outlines.values()}) == len(outlines), "two players' figures look alike"
    assert len(outlines) >= 2, "the position has figures of several players"

    # A figure keeps its piece id when it walks: the same element name at a new place.
    active = seen["active_figure"]
    before = page.locator(f".dl-board [data-piece='{active}']").get_attribute("transform")
    legal = Studio(server.base_url).view(match_id, user)["legal"]
    move = next(m for m in legal if _to_space(m))  # a step onto a volcano may reveal: no undo
    version = page.locator("#match-area").get_attribute("data-version")
    page.locator(f".dl-board [data-move='{move}']").first.click()
    page.wait_for_function("v => document.getElementById('match-area').dataset.version !== v", arg=version)
    moved = page.locator(f".dl-board [data-piece='{active}']")
    assert moved.count() == 1
    assert moved.get_attribute("transform") != before, "the figure did not move"
    # Taken back: the position is shared with the phone test.
    version = page.locator("#match-area").get_attribute("data-version")
    page.locator("[data-match-action=undo]").click()
    page.wait_for_function("v => document.getElementById('match-area').dataset.version !== v", arg=version)
    assert page.locator(f".dl-board [data-piece='{active}']").get_attribute("transform") == before


@pytest.mark.parametrize("which", ["walk", "pick"])
def test_every_legal_target_takes_a_tap_on_a_phone(positions: Positions, open_page: Any, which: str) -> None:
    """At 390 x 844, the board not enlarged: each element carrying a move is at least 32 px each
    way (a target space, a volcano, a flight, and a figure to choose)."""
    if which == "walk":
        user, match_id = positions.walker, positions.walk
    else:
        user, match_id = positions.picker, positions.pick
    page = open_page(PHONE, user, match_id, has_touch=True, is_mobile=True)
    targets = page.evaluate(TARGETS)
    kinds = {t["move"].split(":")[0] for t in targets}
    assert ("move" if which == "walk" else "choose") in kinds, targets
    small = [t for t in targets if min(t["width"], t["height"]) < TAP_PX]
    assert not small, f"targets under {TAP_PX} px on a phone: {small}"
