"""Geometry on the valley: walking, flying, lines of fire and the crossbow row (spec §3, §8)."""

from __future__ import annotations

from collections.abc import Iterable

from app.games.felsental.board import (
    DWARVES,
    HEXES,
    NEIGHBOURS,
    RAYS,
    Dwarf,
    HexId,
    between,
)
from app.games.felsental.state import (
    FelsState,
)

_HEX_ORDER = {h.id: i for i, h in enumerate(HEXES)}


def reachable(start: HexId, steps: int, occupied: Iterable[HexId]) -> list[HexId]:
    """Hexes a figure can walk to in up to ``steps`` steps through empty hexes (start excluded)."""
    blocked = set(occupied)
    seen = {start}
    frontier = {start}
    for _ in range(steps):
        frontier = {n for h in frontier for n in NEIGHBOURS[h] if n not in blocked and n not in seen}
        seen |= frontier
    seen.discard(start)
    return sorted(seen, key=_HEX_ORDER.__getitem__)


def fly_targets(state: FelsState) -> list[HexId]:
    occupied = state.occupied()
    return [h.id for h in HEXES if h.id not in occupied]


def adjacent_dwarves(state: FelsState) -> list[Dwarf]:
    near = NEIGHBOURS[state.dragon_hex]
    return [d for d in DWARVES if state.dwarf_hex(d) in near]


def fire_line(state: FelsState, direction: int) -> tuple[HexId, ...]:
    return RAYS[state.dragon_hex, direction]


def fire_hits(state: FelsState, direction: int) -> tuple[Dwarf, ...]:
    line = fire_line(state, direction)
    return tuple(d for h in line if (d := state.dwarf_on(h)) is not None)


def crossbow_row(state: FelsState) -> tuple[HexId, ...] | None:
    """The free hexes between crossbowman and dragon when a shot is possible (spec §8)."""
    origin = state.dwarf_hex(Dwarf.CROSSBOWMAN)
    if origin is None:
        return None
    row = between(origin, state.dragon_hex)
    if row is None or any(state.dwarf_on(h) is not None for h in row):
        return None
    return row


def dwarf_steps(state: FelsState, dwarf: Dwarf, steps: int) -> list[HexId]:
    start = state.dwarf_hex(dwarf)
    return [] if start is None else reachable(start, steps, state.occupied())


def dragon_steps(state: FelsState, steps: int) -> list[HexId]:
    return reachable(state.dragon_hex, steps, state.occupied())
