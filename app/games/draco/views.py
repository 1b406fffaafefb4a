"""What each seat may see (the only place hidden information is removed) and board geometry.

Hidden: every hand but the viewer's own, the draw pile's order and the cards below each pile's
top. Public: dragon positions and riders, top cards, hand, pile and draw-pile sizes, scores, the
card played this turn. The viewer's own hand marks the cards drawn at its last confirm as new.
For the player to act the view also lists the target space of every legal play, so the board
can draw target circles. The geometry (every coordinate the board draws) is computed here too.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache

from app.engine.protocol import JSON, Seat
from app.games.draco.board import DRAGONS, Card, Kind, side_for, track_for
from app.games.draco.rules import cards_to_draw, legal_moves, target_space, winners
from app.games.draco.state import DracoState, Phase

SPACE_RADIUS = 44
"""Every space is a circle this big; the dragons on it stand inside it."""
_COLUMNS = 5
_COLUMN = 104
_ROW = 108
_LEFT = 72
_TOP = 96
"""Centre of the top row: the path climbs in rows of five, turning at the ends (a tall mountain
that fits a phone's width); the start is a camp below the first row, one place per dragon."""
VIEW_WIDTH = 2 * _LEFT + (_COLUMNS - 1) * _COLUMN
_CAMP_GAP = 100
_CAMP_SLOT = 50
CAMP_TOKEN = 22
_CAMP_HEIGHT = 64
_TARGET_MARGIN = 4
"""A lone target covers its space and a little more: a big tap target."""
DRAGON_IDS: tuple[str, ...] = tuple(d.value for d in DRAGONS)


def view(state: DracoState, seat: Seat | None) -> JSON:
    board = layout(len(state.track))
    riders = tuple(sorted(state.riders().items()))
    dragons, track = _pieces(state.players, state.positions, riders)
    players = [
        {
            "seat": s,
            "dragon": DRAGON_IDS[pile[-1].dragon_index],
            "top": _card(pile[-1]),
            "score": state.scores[s],
            "hand_size": len(state.hands[s]),
            "pile_size": len(pile),
            "active": s == state.active and state.phase is not Phase.OVER,
            # Standing by score: 1 + the seats ahead (equal scores share a rank).
            "rank": 1 + sum(1 for other in state.scores if other > state.scores[s]),
        }
        for s, pile in enumerate(state.piles)
    ]
    play = None
    if state.play is not None:
        p = state.play
        play = {**_card(p.card), "from": p.origin, "to": p.target, "scored": p.scored}
    result: JSON = {
        "side": side_for(state.players).value,
        "phase": state.phase.value,
        "active": state.active,
        "over": state.phase is Phase.OVER,
        "winners": winners(state) if state.phase is Phase.OVER else [],
        "width": board.width,
        "height": board.height,
        "radius": SPACE_RADIUS,
        "chip": {"width": CHIP_WIDTH, "height": CHIP_HEIGHT, "lone": _CHIP_CORNERS[3]},
        "camp": list(board.camp),
        "mountain": board.mountain,
        "track": track,
        "path": board.path,
        "dragons": dragons,
        "players": players,
        "deck_size": len(state.deck),
        "play": play,
        "hand": None,
        "targets": [],
        "mount": None,
        "draws": 0,
    }
    if seat is not None and 0 <= seat < state.players:
        result.update(_private(state, seat, board, dragons))
    return result


@dataclass(frozen=True, slots=True)
class Layout:
    """The drawn board for a track of some length (SVG user units)."""

    width: int
    height: int
    centres: tuple[tuple[int, int], ...]
    """Centre of every space; index 0 is the middle of the camp."""
    camp: tuple[int, int, int, int]
    """The start space: x, y, width, height of its rectangle."""
    path: str
    mountain: str


@cache
def layout(spaces: int) -> Layout:
    """Rows of five from the camp up, alternating direction; the last row holds the summit."""
    rows = math.ceil((spaces - 1) / _COLUMNS)
    bottom = _TOP + (rows - 1) * _ROW
    camp_y = bottom + _CAMP_GAP
    height = camp_y + _CAMP_HEIGHT // 2 + 12
    width = VIEW_WIDTH
    centres = [(width // 2, camp_y)]
    for k in range(spaces - 1):
        row, column = divmod(k, _COLUMNS)
        if row % 2:
            column = _COLUMNS - 1 - column
        centres.append((_LEFT + column * _COLUMN, bottom - row * _ROW))
    camp = (20, camp_y - _CAMP_HEIGHT // 2, width - 40, _CAMP_HEIGHT)
    path = " ".join(f"{x},{y}" for x, y in [(_LEFT, camp_y), *centres[1:]])
    w, h = width, height
    outline = ((0, h), (0, 0.36 * h), (0.03 * w, 0.16 * h), (0.12 * w, 0.05 * h), (0.3 * w, 0.012 * h))
    peak = (0.5 * w, 0.0)
    right = [(w - x, y) for x, y in reversed(outline)]
    mountain = " ".join(f"{round(x)},{round(y)}" for x, y in (*outline, peak, *right))
    return Layout(width, height, tuple(centres), camp, path, mountain)


def token(board: Layout, space: int, place: int, count: int, dragon_index: int) -> tuple[int, int, int]:
    """Centre and radius of a dragon's token: the ``place``-th of ``count`` dragons on ``space``.

    In the camp every dragon has its own place; on a space the tokens share its circle, the
    fewer the bigger, below the space's value (which then sits at the circle's top).
    """
    cx, cy = board.centres[space]
    if space == 0:
        x0 = board.camp[0] + (board.camp[2] - len(DRAGONS) * _CAMP_SLOT) // 2 + _CAMP_SLOT // 2
        return x0 + dragon_index * _CAMP_SLOT, cy, CAMP_TOKEN
    dx, dy, r = _cluster(count)[place]
    return cx + dx, cy + dy, r


@lru_cache(maxsize=1024)
def _pieces(
    players: int, positions: tuple[int, ...], riders: tuple[tuple[int, Seat], ...]
) -> tuple[list[JSON], list[JSON]]:
    """The dragons' tokens and the spaces with their dragon counts: they follow from where the
    dragons stand and who rides them, so every seat's view of a position shares them (read
    only: views are serialised, never changed)."""
    track = track_for(players)
    board = layout(len(track))
    lowest = min(positions)
    ridden = dict(riders)
    on_space: dict[int, list[int]] = {}
    for i, pos in enumerate(positions):
        on_space.setdefault(pos, []).append(i)
    dragons = []
    for i, dragon_id in enumerate(DRAGON_IDS):
        pos = positions[i]
        x, y, r = token(board, pos, on_space[pos].index(i), len(on_space[pos]), i)
        dragons.append(
            {
                "id": dragon_id,
                "space": pos,
                "value": track[pos].value,
                "rider": ridden.get(i),
                "summit": track[pos].kind is Kind.RED,
                "last": pos == lowest,
                "x": x,
                "y": y,
                "r": r,
                "font": max(10, round(0.8 * r)),
                "badge": _badge(r),
            }
        )
    spaces = [{**space, "dragons": len(on_space.get(space["index"], ()))} for space in _track_view(players)]
    return dragons, spaces


# --- private helpers -------------------------------------------------------------------------


_CLUSTERS: dict[int, tuple[tuple[int, int, int], ...]] = {
    1: ((0, 6, 27),),
    2: ((-19, 6, 19), (19, 6, 19)),
    3: ((-18, -4, 17), (18, -4, 17), (0, 24, 17)),
    4: ((-16, -8, 15), (16, -8, 15), (-16, 20, 15), (16, 20, 15)),
}
"""Token places inside a space's circle (offsets and radius), by the number of dragons on it."""


@cache
def _cluster(count: int) -> tuple[tuple[int, int, int], ...]:
    if count in _CLUSTERS:
        return _CLUSTERS[count]
    ring, r = (22, 13) if count <= 6 else (24, 11)
    return tuple((*_around(k, count, ring, 6), r) for k in range(count))


def _around(k: int, count: int, ring: int, dy: int = 0) -> tuple[int, int]:
    angle = 2 * math.pi * k / count - math.pi / 2
    return round(ring * math.cos(angle)), dy + round(ring * math.sin(angle))


def _badge(r: int) -> list[int]:
    """The rider's seat badge: on the token's lower edge, clear below its letters (which end
    about 0.46 r below the centre; the space's value is at the top of its circle)."""
    size = max(11, round(0.46 * r))
    return [0, max(r, round(0.46 * r) + size + 1), size]


CHIP_WIDTH = 44
CHIP_HEIGHT = 34
"""A target that shares its space is a chip (the card's colour and value) beside the space."""
_CHIP_CORNERS = ((-50, -52), (50, -52), (-50, 52), (50, 52), (-52, 0), (52, 0))
"""Chip centres around a space, corners first: the corners lie outside the circle and clear of
the tokens and rider badges inside it, and inside the board's edge at the ends of a row (a
fifth and sixth chip, seldom seen, sit on the circle's sides)."""


def _target_places(count: int) -> tuple[tuple[int, int, int], ...]:
    """A lone target rings its whole space (a big tap target); several each get a chip."""
    if count == 1:
        return ((0, 0, SPACE_RADIUS + _TARGET_MARGIN),)
    corners = _CHIP_CORNERS[:count] if count <= len(_CHIP_CORNERS) else _more_corners(count)
    return tuple((dx, dy, CHIP_HEIGHT // 2) for dx, dy in corners)


def _more_corners(count: int) -> tuple[tuple[int, int], ...]:
    return tuple(_around(k, count, 58) for k in range(count))


def _card(card: Card) -> JSON:
    return {"dragon": DRAGON_IDS[card.dragon_index], "value": card.value}


@cache
def _track_view(players: int) -> tuple[JSON, ...]:
    track = track_for(players)
    xy = layout(len(track)).centres
    return tuple(
        {"index": s.index, "value": s.value, "kind": s.kind.value, "x": xy[s.index][0], "y": xy[s.index][1]}
        for s in track
    )


def _private(state: DracoState, seat: Seat, board: Layout, dragons: list[JSON]) -> JSON:
    """The viewer's hand (drawn cards marked new) and, when they are to act, the board's moves."""
    legal = {str(m) for m in legal_moves(state, seat)}
    new = Counter(state.drawn_by(seat))
    hand = []
    for card in state.hands[seat]:
        entry = _card(card)
        notation = f"{DRAGON_IDS[card.dragon_index]}:{card.value}"
        entry["play"] = f"play:{notation}" if f"play:{notation}" in legal else None
        entry["discard"] = f"discard:{notation}" if f"discard:{notation}" in legal else None
        entry["target"] = target_space(state, card)
        entry["summit"] = state.on_summit(card.dragon_index)
        entry["new"] = new[card] > 0
        new[card] -= 1
        hand.append(entry)
    targets: dict[tuple[int, int], JSON] = {}
    if state.phase is Phase.PLAY and seat == state.active:
        for card in sorted(set(state.hands[seat])):
            space = target_space(state, card)
            key = (card.dragon_index, space)
            if key in targets:
                continue  # several cards reach the same space (capped): the lowest plays
            dragon = dragons[card.dragon_index]
            targets[key] = {
                **_card(card),
                "space": space,
                "space_value": state.track[space].value,
                "move": f"play:{DRAGON_IDS[card.dragon_index]}:{card.value}",
                "from": [dragon["x"], dragon["y"]],
            }
    by_space: dict[int, list[JSON]] = {}
    for target in targets.values():
        by_space.setdefault(target["space"], []).append(target)
    for space, shared in by_space.items():
        cx, cy = board.centres[space]
        for target, (dx, dy, r) in zip(shared, _target_places(len(shared)), strict=True):
            target.update(x=cx + dx, y=cy + dy, r=r)
    mount = None
    if state.phase is Phase.MOUNT and seat == state.active and state.play is not None:
        mount = {
            "moved": DRAGON_IDS[state.play.card.dragon_index],
            "own": DRAGON_IDS[state.rider_index(seat)],
            "keep": "mount:keep",
            "take": "mount:take",
        }
    # Lone rings first, chips after: a chip beside a space stays above a neighbour's ring.
    shown = sorted(targets.values(), key=lambda t: (t["r"] < SPACE_RADIUS, t["space"], t["y"], t["x"]))
    # What the seat's confirm would draw: the hint says it (public anyway: hand sizes and scorings).
    draws = cards_to_draw(state, seat) if seat == state.active else 0
    return {"hand": hand, "targets": shown, "mount": mount, "draws": draws}
