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
        "chip": {"width": CHIP_WIDTH, "height": CHIP_HEIGHT, "pad": CHIP_PAD},
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
    3: ((-19, -3, 18), (19, -3, 18), (0, 25, 18)),
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


CHIP_WIDTH = 40
CHIP_HEIGHT = 34
"""A target's chip (the card's colour and value) beside its space. No wider than twice the
outer columns' pockets' distance from the board's edge: a chip pushed inwards there stood on
the rider badge of a space's left or right dragon."""
CHIP_PAD = 54
"""The square a shared target takes taps on around its chip: 32 px on a phone (the board's
scale there is about 0.61), still inside the pocket between four circles but for their rims."""
_POCKETS = ((-1, -1), (1, -1), (-1, 1), (1, 1), (-1, 0), (1, 0))
"""Where a chip may stand, in halves of the grid step from its space's centre: first the four
pockets between a space and its diagonal neighbours (outside every circle, clear of the tokens
and rider badges), then, seldom needed, the gaps beside the space."""


def _place_targets(board: Layout, by_space: dict[int, list[JSON]]) -> None:
    """Set each target's ring (a lone target's: its whole space) and chip.

    A pocket lies between four spaces, so a chip takes one that no other chip has taken, the
    most crowded space choosing first and each taking the pockets that the fewest other target
    spaces could use; chips keep inside the board.
    """

    def around(space: int) -> list[tuple[int, int]]:
        cx, cy = board.centres[space]
        return [(cx + sx * _COLUMN // 2, cy + sy * _ROW // 2) for sx, sy in _POCKETS]

    wanted = Counter(p for space in by_space for p in around(space)[:4])
    taken: set[tuple[int, int]] = set()
    for space in sorted(by_space, key=lambda s: (-len(by_space[s]), s)):
        shared = by_space[space]
        # Stable: ties keep the order above (corners before sides, top before bottom).
        places = sorted(around(space), key=lambda p: (p in taken, wanted.get(p, 9)))
        cx, cy = board.centres[space]
        for k, target in enumerate(shared):
            x, y = places[k % len(places)]
            taken.add((x, y))
            chip = [min(max(x, CHIP_WIDTH // 2), board.width - CHIP_WIDTH // 2), y]
            if len(shared) == 1:
                target.update(x=cx, y=cy, r=SPACE_RADIUS + _TARGET_MARGIN, chip=chip)
            else:
                target.update(x=chip[0], y=chip[1], r=CHIP_HEIGHT // 2, chip=chip)


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
    _place_targets(board, by_space)
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
