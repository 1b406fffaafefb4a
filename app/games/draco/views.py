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
from app.games.draco.board import DRAGONS, Card, Space, side_for
from app.games.draco.rules import legal_moves, target_space, winners
from app.games.draco.state import DracoState, Phase

VIEW_WIDTH = 1000
VIEW_HEIGHT = 720
SLOT_RADIUS = 27
"""Each dragon has its own slot around a space, so any number of dragons stay distinguishable."""
_ROWS = ((650, 9), (540, 7), (430, 6), (320, 5), (215, 4))
"""The mountain path: (y, spaces) per row from the foot up, alternating direction."""
_SPACING = 92


def view(state: DracoState, seat: Seat | None) -> JSON:
    track = state.track
    riders = state.riders()
    lowest = min(state.positions)
    xy = geometry(len(track))
    dragons = []
    for i, dragon in enumerate(DRAGONS):
        pos = state.positions[i]
        x, y = slot(xy[pos], i)
        dragons.append(
            {
                "id": dragon.value,
                "space": pos,
                "value": track[pos].value,
                "rider": riders.get(i),
                "summit": state.on_summit(i),
                "last": pos == lowest,
                "x": x,
                "y": y,
            }
        )
    players = [
        {
            "seat": s,
            "dragon": pile[-1].dragon.value,
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
        "track": [_space(space, xy[space.index]) for space in track],
        "path": " ".join(f"{x},{y}" for x, y in xy),
        "dragons": dragons,
        "players": players,
        "deck_size": len(state.deck),
        "play": play,
        "hand": None,
        "targets": [],
        "mount": None,
    }
    if seat is not None and 0 <= seat < state.players:
        result.update(_private(state, seat, xy))
    return result


@cache
def geometry(spaces: int) -> tuple[tuple[int, int], ...]:
    """Centre of every space on the drawn mountain path, from the start up to the summit."""
    points: list[tuple[int, int]] = []
    for row, (y, count) in enumerate(_ROWS):
        left = VIEW_WIDTH // 2 - (count - 1) * _SPACING // 2
        xs = [left + k * _SPACING for k in range(count)]
        if row % 2:
            xs.reverse()
        if row == len(_ROWS) - 1:
            xs = sorted(xs)  # the summit ridge runs left to right
        points.extend((x, y - (k * 12 if row == len(_ROWS) - 1 else 0)) for k, x in enumerate(xs))
    while len(points) < spaces:  # a longer replacement track keeps climbing to the right
        x, y = points[-1]
        points.append((x + _SPACING // 2, y - 30))
    return tuple(points[:spaces])


def slot(centre: tuple[int, int], dragon_index: int) -> tuple[int, int]:
    """A dragon's own place around a space (ten slots, one per dragon)."""
    angle = math.radians(-90 + 36 * dragon_index)
    return centre[0] + round(SLOT_RADIUS * math.cos(angle)), centre[1] + round(SLOT_RADIUS * math.sin(angle))


# --- private helpers -------------------------------------------------------------------------


def _card(card: Card) -> JSON:
    return {"dragon": card.dragon.value, "value": card.value}


def _space(space: Space, centre: tuple[int, int]) -> JSON:
    return {
        "index": space.index,
        "value": space.value,
        "kind": space.kind.value,
        "x": centre[0],
        "y": centre[1],
    }


def _private(state: DracoState, seat: Seat, xy: tuple[tuple[int, int], ...]) -> JSON:
    """The viewer's hand and, when they are to act, the moves the board offers."""
    legal = {str(m) for m in legal_moves(state, seat)}
    hand = []
    for card in state.hands[seat]:
        entry = _card(card)
        notation = f"{card.dragon.value}:{card.value}"
        entry["play"] = f"play:{notation}" if f"play:{notation}" in legal else None
        entry["discard"] = f"discard:{notation}" if f"discard:{notation}" in legal else None
        entry["target"] = target_space(state, card)
        entry["summit"] = state.on_summit(card.dragon_index)
        hand.append(entry)
    targets: dict[tuple[int, int], JSON] = {}
    if state.phase is Phase.PLAY and seat == state.active:
        for card in sorted(set(state.hands[seat])):
            space = target_space(state, card)
            key = (card.dragon_index, space)
            if key in targets:
                continue  # several cards reach the same space (capped): the lowest plays
            x, y = slot(xy[space], card.dragon_index)
            targets[key] = {
                **_card(card),
                "space": space,
                "space_value": state.track[space].value,
                "move": f"play:{card.dragon.value}:{card.value}",
                "x": x,
                "y": y,
            }
    mount = None
    if state.phase is Phase.MOUNT and seat == state.active and state.play is not None:
        mount = {
            "moved": state.play.card.dragon.value,
            "own": state.piles[seat][-1].dragon.value,
            "keep": "mount:keep",
            "take": "mount:take",
        }
    return {"hand": hand, "targets": list(targets.values()), "mount": mount}
