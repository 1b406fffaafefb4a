"""What each seat may see (the only place hidden information is removed) and board geometry.

Hidden: every hand but the viewer's own, the draw pile's order and the cards below each pile's
top. Public: dragon positions and riders, top cards, hand, pile and draw-pile sizes, scores, the
card played this turn. For the player to act the view also lists the target space of every
legal play, so the board can draw target circles.
"""

from __future__ import annotations

import math
from functools import cache

from app.engine.protocol import JSON, Seat
from app.games.draco.board import DRAGONS, Card, side_for, track_for
from app.games.draco.rules import legal_moves, target_space, winners
from app.games.draco.state import DracoState, Phase

VIEW_WIDTH = 1000
VIEW_HEIGHT = 720
SLOT_RADIUS = 35
"""Each dragon has its own slot around a space, so any number of dragons stay distinguishable."""
BADGE_OFFSET = 12
"""The rider badge sits outside its dragon, pointing away from the space (never over a neighbour)."""
_ROWS = ((650, 9), (540, 7), (430, 6), (320, 5), (215, 4))
"""The mountain path: (y, spaces) per row from the foot up, alternating direction."""
_SPACING = 92
DRAGON_IDS: tuple[str, ...] = tuple(d.value for d in DRAGONS)


def view(state: DracoState, seat: Seat | None) -> JSON:
    track = state.track
    riders = state.riders()
    lowest = min(state.positions)
    slots = _slots(len(track))
    dragons = []
    for i, dragon_id in enumerate(DRAGON_IDS):
        pos = state.positions[i]
        x, y = slots[pos][i]
        bx, by = _BADGES[i]
        dragons.append(
            {
                "id": dragon_id,
                "space": pos,
                "value": track[pos].value,
                "rider": riders.get(i),
                "summit": state.on_summit(i),
                "last": pos == lowest,
                "x": x,
                "y": y,
                "bx": bx,
                "by": by,
            }
        )
    players = [
        {
            "seat": s,
            "dragon": DRAGON_IDS[pile[-1].dragon_index],
            "top": _card(pile[-1]),
            "score": state.scores[s],
            "hand_size": len(state.hands[s]),
            "pile_size": len(pile),
            "active": s == state.active and state.phase is not Phase.OVER,
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
        "width": VIEW_WIDTH,
        "height": VIEW_HEIGHT,
        "track": [dict(space) for space in _track_view(state.players)],
        "path": _path(len(track)),
        "dragons": dragons,
        "players": players,
        "deck_size": len(state.deck),
        "play": play,
        "hand": None,
        "targets": [],
        "mount": None,
    }
    if seat is not None and 0 <= seat < state.players:
        result.update(_private(state, seat))
    return result


@cache
def geometry(spaces: int) -> tuple[tuple[int, int], ...]:
    """Centre of every space on the drawn mountain path, from the start up to the summit."""
    points: list[tuple[int, int]] = []
    for row, (y, count) in enumerate(_ROWS):
        left = VIEW_WIDTH // 2 - (count - 1) * _SPACING // 2
        xs = [left + k * _SPACING for k in range(count)]
        summit = row == len(_ROWS) - 1
        if row % 2 and not summit:
            xs.reverse()
        # The summit ridge runs left to right and climbs a little.
        points.extend((x, y - (k * 12 if summit else 0)) for k, x in enumerate(xs))
    while len(points) < spaces:  # a longer replacement track keeps climbing to the right
        x, y = points[-1]
        points.append((x + _SPACING // 2, y - 30))
    return tuple(points[:spaces])


def slot(centre: tuple[int, int], dragon_index: int, radius: int = SLOT_RADIUS) -> tuple[int, int]:
    """A dragon's own place around a space (ten slots, one per dragon)."""
    angle = math.radians(-90 + 36 * dragon_index)
    return centre[0] + round(radius * math.cos(angle)), centre[1] + round(radius * math.sin(angle))


_BADGES: tuple[tuple[int, int], ...] = tuple(slot((0, 0), i, BADGE_OFFSET) for i in range(len(DRAGONS)))


# --- private helpers -------------------------------------------------------------------------


def _card(card: Card) -> JSON:
    return {"dragon": DRAGON_IDS[card.dragon_index], "value": card.value}


@cache
def _slots(spaces: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    return tuple(tuple(slot(centre, i) for i in range(len(DRAGONS))) for centre in geometry(spaces))


@cache
def _path(spaces: int) -> str:
    return " ".join(f"{x},{y}" for x, y in geometry(spaces))


@cache
def _track_view(players: int) -> tuple[JSON, ...]:
    track = track_for(players)
    xy = geometry(len(track))
    return tuple(
        {"index": s.index, "value": s.value, "kind": s.kind.value, "x": xy[s.index][0], "y": xy[s.index][1]}
        for s in track
    )


def _private(state: DracoState, seat: Seat) -> JSON:
    """The viewer's hand and, when they are to act, the moves the board offers."""
    legal = {str(m) for m in legal_moves(state, seat)}
    hand = []
    for card in state.hands[seat]:
        entry = _card(card)
        notation = f"{DRAGON_IDS[card.dragon_index]}:{card.value}"
        entry["play"] = f"play:{notation}" if f"play:{notation}" in legal else None
        entry["discard"] = f"discard:{notation}" if f"discard:{notation}" in legal else None
        entry["target"] = target_space(state, card)
        entry["summit"] = state.on_summit(card.dragon_index)
        hand.append(entry)
    targets: dict[tuple[int, int], JSON] = {}
    if state.phase is Phase.PLAY and seat == state.active:
        slots = _slots(len(state.track))
        for card in sorted(set(state.hands[seat])):
            space = target_space(state, card)
            key = (card.dragon_index, space)
            if key in targets:
                continue  # several cards reach the same space (capped): the lowest plays
            x, y = slots[space][card.dragon_index]
            targets[key] = {
                **_card(card),
                "space": space,
                "space_value": state.track[space].value,
                "move": f"play:{DRAGON_IDS[card.dragon_index]}:{card.value}",
                "x": x,
                "y": y,
            }
    mount = None
    if state.phase is Phase.MOUNT and seat == state.active and state.play is not None:
        mount = {
            "moved": DRAGON_IDS[state.play.card.dragon_index],
            "own": DRAGON_IDS[state.rider_index(seat)],
            "keep": "mount:keep",
            "take": "mount:take",
        }
    return {"hand": hand, "targets": list(targets.values()), "mount": mount}
