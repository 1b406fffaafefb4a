"""Per-seat views: the only place hidden information is removed (spec §7).

Hidden from a seat: the other players' eggs and gems behind their screens (not in variant 2,
and not once the game is over), every face-down tile and the unused 16th tile.
"""

from __future__ import annotations

import math
from typing import Any

from app.engine.protocol import JSON, Seat
from app.games.drachenland.board import (
    BOARD,
    COLOURS,
    GEMS,
    KING_OF,
    START_STEPS,
    VOLCANO_COUNT,
    VOLCANO_RADIUS,
    NodeKind,
)
from app.games.drachenland.rules import score
from app.games.drachenland.state import Phase, State

FIGURE_RING = VOLCANO_RADIUS + 4
"""Distance from a volcano's centre at which visiting figures (and king dragons) stand: on its
rim, in the directions no path or water leaves it, so they never cover its contents or a space."""
_SLOT_STEP = 30
"""Degrees between neighbouring places on a rim (a figure is about 28 units wide)."""
_CLEARANCE = 28
"""Degrees a place keeps from every path and water line leaving the volcano."""
_TILE_ANGLE = -45
"""The tile marker sits on the rim at the upper right."""


def _static_board() -> JSON:
    nodes = BOARD.nodes
    paths = [
        {"id": pid, "points": " ".join(f"{nodes[n].x},{nodes[n].y}" for n in chain)}
        for pid, chain in BOARD.paths
    ]
    water = []
    for link in BOARD.water:
        a, b = nodes[link.a], nodes[link.b]
        if link.control is None:
            d = f"M {a.x} {a.y} L {b.x} {b.y}"
        else:
            d = f"M {a.x} {a.y} Q {link.control[0]} {link.control[1]} {b.x} {b.y}"
        water.append({"id": link.id, "kind": link.kind, "d": d, "a": a.id, "b": b.id})
    return {
        "spaces": [{"id": n.id, "x": n.x, "y": n.y} for n in nodes if n.kind is NodeKind.SPACE],
        "entrances": [{"id": n.id, "x": n.x, "y": n.y} for n in nodes if n.kind is NodeKind.ENTRANCE],
        "paths": paths,
        "water": water,
        "coords": {n.id: [n.x, n.y] for n in nodes},
        "volcano_radius": VOLCANO_RADIUS,
    }


STATIC = _static_board()


def _rim_slots() -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per volcano, the places on its rim, best first (farthest from paths, water and the tile)."""
    nodes = BOARD.nodes
    result = []
    for i in range(VOLCANO_COUNT):
        here = nodes[i]
        towards = [(nodes[n].x, nodes[n].y) for n in BOARD.neighbours[i]]
        for link in BOARD.water:
            if i in (link.a, link.b):
                other = nodes[link.b if link.a == i else link.a]
                towards.append(link.control or (other.x, other.y))
        busy = [math.degrees(math.atan2(y - here.y, x - here.x)) for x, y in towards] + [_TILE_ANGLE]
        places = []
        for angle in range(-180, 180, _SLOT_STEP // 2):
            clear = min(abs((angle - b + 180) % 360 - 180) for b in busy)
            if clear >= _CLEARANCE:
                places.append((clear, angle))
        chosen: list[int] = []
        for _, angle in sorted(places, key=lambda p: (-p[0], p[1])):
            if all(abs((angle - c + 180) % 360 - 180) >= _SLOT_STEP for c in chosen):
                chosen.append(angle)
        result.append(
            tuple(
                (
                    round(here.x + FIGURE_RING * math.cos(math.radians(a))),
                    round(here.y + FIGURE_RING * math.sin(math.radians(a))),
                )
                for a in chosen
            )
        )
    return tuple(result)


RIM_SLOTS = _rim_slots()


def view(state: State, seat: Seat | None) -> JSON:
    """What ``seat`` (None: a spectator) may see, JSON-ready."""
    open_screens = state.variant2 or state.is_over
    turn = state.turn
    kings_at: dict[int, list[str]] = {}
    for ci, king in enumerate(state.kings):
        if king is not None:
            kings_at.setdefault(king, []).append(COLOURS[ci].value)
    used: dict[int, int] = {}
    kings = []
    for volcano, colours in sorted(kings_at.items()):
        for colour in colours:
            x, y = _rim_place(volcano, used)
            kings.append({"colour": colour, "volcano": BOARD.nodes[volcano].id, "x": x, "y": y})
    volcanoes = []
    for i in range(VOLCANO_COUNT):
        v = state.volcanoes[i]
        node = BOARD.nodes[i]
        spec = BOARD.volcanoes[i]
        volcanoes.append(
            {
                "id": node.id,
                "x": node.x,
                "y": node.y,
                "ring": spec.ring,
                "eggs": v.eggs,
                "gems": {g.value: v.gems[gi] for gi, g in enumerate(GEMS)},
                "face_down": v.face_down and v.tile is not None,
                "tile": None if v.face_down or v.tile is None else v.tile.value,
                "kings": kings_at.get(i, []),
            }
        )
    figures = _figures(state, used)
    players = []
    for s, p in enumerate(state.seats):
        visible = open_screens or s == seat
        holdings: dict[str, Any] | None = None
        points: int | None = None
        if visible:
            holdings = {"eggs": p.eggs, "gems": {g.value: p.gems[gi] for gi, g in enumerate(GEMS)}}
            points = score(p.eggs, p.gems, p.rings)[0]
        players.append(
            {
                "seat": s,
                "tiles": [t.value for t in p.tiles],
                "rings": {c.value: p.rings[ci] for ci, c in enumerate(COLOURS)},
                "off_board": [c.value for ci, c in enumerate(COLOURS) if p.figures[ci] is None],
                "holdings": holdings,
                "score": points,
            }
        )
    active = turn.active.value if turn.active is not None else None
    return {
        "players_count": state.players,
        "variant1": state.variant1,
        "variant2": state.variant2,
        "current": None if state.is_over else state.current,
        "first": state.first,
        "phase": turn.phase.value,
        "start_round": state.in_start_round,
        "start_steps": START_STEPS[state.players][state.turns] if state.in_start_round else None,
        "start_exact": state.rules >= 2,
        "dice": list(turn.dice) if turn.dice is not None else None,
        "dice_used": list(turn.dice_used),
        "die": None if turn.die is None else "ab"[turn.die],
        "moved": [c.value for c in turn.moved],
        "active": active,
        "active_figure": None if active is None else f"fig-{state.current}-{active}",
        "budget": turn.die_left + turn.bonus_left if turn.phase is Phase.MOVE else 0,
        "takes_left": turn.takes_left,
        "eggs_left": sum(v.eggs for v in state.volcanoes),
        "volcanoes": volcanoes,
        "figures": figures,
        "king_figures": kings,
        "players": players,
        "kings": {
            c.value: (BOARD.nodes[k].id if k is not None else None)
            for c, k in zip(COLOURS, state.kings, strict=True)
        },
        "king_tiles": [t.value for t in KING_OF],
        **STATIC,
    }


def _rim_place(volcano: int, used: dict[int, int]) -> tuple[int, int]:
    """The next free place on a volcano's rim (past the last one: a little further out)."""
    k = used.get(volcano, 0)
    used[volcano] = k + 1
    slots = RIM_SLOTS[volcano]
    x, y = slots[k % len(slots)]
    if k < len(slots):
        return x, y
    node = BOARD.nodes[volcano]
    return round(node.x + (x - node.x) * 1.5), round(node.y + (y - node.y) * 1.5)


def _figures(state: State, used: dict[int, int]) -> list[JSON]:
    """Figures on the board with drawing positions (on a volcano: on its rim, see RIM_SLOTS)."""
    result = []
    for s, p in enumerate(state.seats):
        for ci, node in enumerate(p.figures):
            if node is None:
                continue
            n = BOARD.nodes[node]
            x, y = n.x, n.y
            if node < VOLCANO_COUNT:
                x, y = _rim_place(node, used)
            colour = COLOURS[ci].value
            result.append(
                {
                    "id": f"fig-{s}-{colour}",
                    "seat": s,
                    "colour": colour,
                    "node": n.id,
                    "x": x,
                    "y": y,
                    "ring": p.rings[ci],
                }
            )
    return result
