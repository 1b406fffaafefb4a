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

FIGURE_RING = VOLCANO_RADIUS + 12
"""Distance from a volcano's centre at which visiting figures stand."""


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
    }


STATIC = _static_board()


def view(state: State, seat: Seat | None) -> JSON:
    """What ``seat`` (None: a spectator) may see, JSON-ready."""
    open_screens = state.variant2 or state.is_over
    turn = state.turn
    kings_at: dict[int, list[str]] = {}
    for ci, king in enumerate(state.kings):
        if king is not None:
            kings_at.setdefault(king, []).append(COLOURS[ci].value)
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
    figures = _figures(state)
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
        "players": players,
        "kings": {
            c.value: (BOARD.nodes[k].id if k is not None else None)
            for c, k in zip(COLOURS, state.kings, strict=True)
        },
        "king_tiles": [t.value for t in KING_OF],
        **STATIC,
    }


def _figures(state: State) -> list[JSON]:
    """Figures on the board with drawing positions (several on a volcano stand around it)."""
    on_volcano: dict[int, int] = {}
    for p in state.seats:
        for node in p.figures:
            if node is not None and node < VOLCANO_COUNT:
                on_volcano[node] = on_volcano.get(node, 0) + 1
    placed: dict[int, int] = {}
    result = []
    for s, p in enumerate(state.seats):
        for ci, node in enumerate(p.figures):
            if node is None:
                continue
            n = BOARD.nodes[node]
            x, y = n.x, n.y
            if node < VOLCANO_COUNT:
                k = placed.get(node, 0)
                placed[node] = k + 1
                angle = 2 * math.pi * k / max(on_volcano[node], 3) - math.pi / 2
                x, y = round(x + FIGURE_RING * math.cos(angle)), round(y + FIGURE_RING * math.sin(angle))
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
