"""The Draco view's board geometry and the new-card marks (app/games/draco/views.py)."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from app.engine.protocol import CONFIRM
from app.engine.rng import Rng
from app.games.draco.board import DRAGONS
from app.games.draco.notation import format_position, parse_position
from app.games.draco.rules import apply, invariants, legal_moves, setup, to_act
from app.games.draco.state import Phase
from app.games.draco.views import SPACE_RADIUS, layout, token, view
from tests.games.draco.support import m, position, rng

LOW = {"blue": 1, "brown": 1, "black": 1, "yellow": 1, "green": 1, "gray": 1, "lightblue": 1, "purple": 1}


@pytest.mark.parametrize("count", range(1, len(DRAGONS) + 1))
def test_every_token_stands_inside_its_space(count: int) -> None:
    """Issue 13.5: dragons stand on their space, however many share it."""
    board = layout(31)
    for space in (1, 12, 30):
        cx, cy = board.centres[space]
        for place in range(count):
            x, y, r = token(board, space, place, count, place)
            assert math.dist((x, y), (cx, cy)) + r <= SPACE_RADIUS, (count, place)
            assert r >= 11


def test_the_camp_holds_all_ten_side_by_side() -> None:
    """At the start all ten stand in the camp, each in its own place, none overlapping."""
    board = layout(31)
    x0, y0, w, h = board.camp
    tokens = [token(board, 0, i, len(DRAGONS), i) for i in range(len(DRAGONS))]
    for x, y, r in tokens:
        assert x0 <= x - r and x + r <= x0 + w and y0 <= y - r and y + r <= y0 + h
    for (a, _, ra), (b, _, rb) in itertools.pairwise(tokens):
        assert b - a >= ra + rb


def test_spaces_do_not_overlap_and_fit_the_board() -> None:
    board = layout(31)
    centres = board.centres[1:]
    for i, a in enumerate(centres):
        assert SPACE_RADIUS <= a[0] <= board.width - SPACE_RADIUS and a[1] >= SPACE_RADIUS
        for b in centres[i + 1 :]:
            assert math.dist(a, b) > 2 * SPACE_RADIUS


def test_the_view_places_each_dragon_in_its_space() -> None:
    state = position(hands=["R1K1A1", "G2A1"], piles=["R2", "B2"], at={**LOW, "red": 5, "orange": 5})
    seen = view(state, None)
    centres = {s["index"]: (s["x"], s["y"]) for s in seen["track"]}
    for d in seen["dragons"]:
        assert math.dist((d["x"], d["y"]), centres[d["space"]]) + d["r"] <= SPACE_RADIUS
    assert {s["index"]: s["dragons"] for s in seen["track"] if s["dragons"]} == {1: 8, 5: 2}


def test_several_targets_on_one_space_share_it_side_by_side() -> None:
    """Two cards whose dragons land on the same space get a ring each, apart."""
    state = position(hands=["R1B2K3", "G2A1"], piles=["R2", "B2"], at={"red": 4, "blue": 3, **{"black": 9}})
    targets = {t["move"]: t for t in view(state, 0)["targets"]}
    red, blue = targets["play:red:1"], targets["play:blue:2"]
    assert red["space"] == blue["space"] == 5
    assert math.dist((red["x"], red["y"]), (blue["x"], blue["y"])) >= red["r"] + blue["r"]
    assert targets["play:black:3"]["r"] > SPACE_RADIUS, "a lone ring covers its whole space"


def test_cards_drawn_at_confirm_are_new_to_their_owner_only() -> None:
    """Issue 13.5: the drawn cards are marked new in the owner's hand until the next play."""
    state = position(hands=["R1K1A1", "G2A1"], piles=["R2", "B2"], at={**LOW, "red": 5})
    after, _ = apply(state, 0, m("play:red:1"), rng())
    done, events = apply(after, 0, CONFIRM, rng())
    invariants(done)
    drawn = sorted(tuple(c) for c in events[-1].data["cards"])
    own = view(done, 0)["hand"]
    assert sorted((c["dragon"], c["value"]) for c in own if c["new"]) == drawn
    assert sum(c["new"] for c in own) == 4 and len(own) == 6
    assert not any(c["new"] for c in view(done, 1)["hand"])
    assert view(done, None)["hand"] is None
    # The owner's next play clears the marks; the position string keeps them until then.
    assert parse_position(format_position(done)) == done
    again, _ = apply(done, 1, m("play:green:2"), rng())
    again, _ = apply(again, 1, CONFIRM, rng())
    assert sum(c["new"] for c in view(again, 0)["hand"]) == 4, "another seat's turn keeps them"
    played, _ = apply(again, 0, m(f"play:{own[0]['dragon']}:{own[0]['value']}"), rng())
    assert not any(c["new"] for c in view(played, 0)["hand"])
    invariants(played)


def test_positions_stored_before_new_cards_still_parse() -> None:
    state = position(hands=["R1K1A1", "G2A1"], piles=["R2", "B2"])
    text = format_position(state)
    assert text.endswith(" n=-/-")
    assert parse_position(text.removesuffix(" n=-/-")) == state


@pytest.mark.parametrize("space", [1, 3, 5])
def test_four_targets_on_one_space_stand_around_it_clear_of_its_dragons(space: int) -> None:
    """Issue 20.8: four cards reaching one space get a chip each, around the space: apart from
    each other, outside the dragons' tokens and rider badges, inside the board."""
    hand = "".join(f"{dragon}{space}" for dragon in "RBKY")
    state = position(hands=[hand, "G2A1"], piles=["O2", "P2"], at={"orange": space, "purple": space})
    seen = view(state, 0)
    chips = [t for t in seen["targets"] if t["space"] == space]
    assert len(chips) == 4, seen["targets"]
    half_w, half_h = seen["chip"]["width"] / 2, seen["chip"]["height"] / 2
    boxes = [(t["x"] - half_w, t["y"] - half_h, t["x"] + half_w, t["y"] + half_h) for t in chips]
    for a, b in itertools.combinations(boxes, 2):
        assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    for box in boxes:
        assert box[0] >= 0 and box[2] <= seen["width"] and box[1] >= 0 and box[3] <= seen["height"], box
        for d in seen["dragons"]:
            if d["space"] != space:
                continue
            # The nearest point of the chip to the token's centre, and to its rider badge's.
            for cx, cy, r in ((d["x"], d["y"], d["r"]), (d["x"], d["y"] + d["badge"][1], d["badge"][2])):
                near = (min(max(cx, box[0]), box[2]), min(max(cy, box[1]), box[3]))
                assert math.dist(near, (cx, cy)) >= r, (box, d)


def test_no_two_target_chips_on_the_board_overlap_in_random_matches() -> None:
    """Issue 20.8: chips of neighbouring spaces share the pockets between them; each takes its own."""
    chooser = random.Random(20)
    for match in range(12):
        state = setup(3, {}, Rng(match.to_bytes(16, "big")))
        source = Rng(bytes(16) + match.to_bytes(2, "big"))
        for _ in range(80):
            seat = min(to_act(state))
            seen = view(state, seat)
            half_w, half_h = seen["chip"]["width"] / 2, seen["chip"]["height"] / 2
            for a, b in itertools.combinations(seen["targets"], 2):
                (ax, ay), (bx, by) = a["chip"], b["chip"]
                assert abs(ax - bx) >= 2 * half_w or abs(ay - by) >= 2 * half_h, (a, b)
            state, _ = apply(state, seat, chooser.choice(legal_moves(state, seat)), source)
            if state.phase is Phase.OVER:
                break


def _box(x: float, y: float, half_w: float, half_h: float) -> tuple[float, float, float, float]:
    return (x - half_w, y - half_h, x + half_w, y + half_h)


def _apart(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_target_chips_stay_clear_of_every_dragon_and_rider_badge_in_random_matches(players: int) -> None:
    """Issue 20.8: a chip in a pocket between four spaces (where a target's chip stands) covers
    no dragon and no rider number, also at the board's edges (a chip pushed inwards there stood
    on the badge of a two-dragon space's left or right dragon)."""
    chooser = random.Random(players)
    for match in range(25):
        state = setup(players, {}, Rng(match.to_bytes(16, "big")))
        source = Rng(bytes(16) + match.to_bytes(2, "big"))
        for _ in range(150):
            seat = min(to_act(state))
            seen = view(state, seat)
            half_w, half_h = seen["chip"]["width"] / 2, seen["chip"]["height"] / 2
            rows = {s["index"]: s["y"] for s in seen["track"]}
            for target in seen["targets"]:
                chip = _box(*target["chip"], half_w, half_h)
                in_pocket = target["chip"][1] != rows[target["space"]]  # not a place beside it (seldom)
                for d in seen["dragons"]:
                    if d["rider"] is not None:
                        x, y, r = d["badge"]
                        badge = _box(d["x"] + x, d["y"] + y, r, r)
                        assert _apart(chip, badge), (target, d)
                    if in_pocket:
                        assert _apart(chip, _box(d["x"], d["y"], d["r"], d["r"])), (target, d)
            state, _ = apply(state, seat, chooser.choice(legal_moves(state, seat)), source)
            if state.phase is Phase.OVER:
                break
