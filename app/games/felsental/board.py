"""Board, decks, tableaus and start hexes of Duell im Felsental, as data (spec §3–§5).

Every value marked [DESIGNED] in the spec lives here, so a correction is a one-line change
without touching the rules code.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

HexId: TypeAlias = str
"""A hex name, ``"A1"`` .. ``"E3"``."""

CardId: TypeAlias = str
"""A card name, ``"DR01"`` .. ``"DR38"`` (dragon) or ``"DW01"`` .. ``"DW38"`` (dwarves)."""


class Role(StrEnum):
    DRAGON = "dragon"
    DWARVES = "dwarves"

    @property
    def other(self) -> Role:
        return Role.DWARVES if self is Role.DRAGON else Role.DRAGON


class Dwarf(StrEnum):
    WARRIOR = "warrior"
    CROSSBOWMAN = "crossbowman"
    TRAPPER = "trapper"


class Track(StrEnum):
    """The dragon tableau's wound tracks; scales always fill first."""

    SCALES = "scales"
    FLIGHT = "flight"
    MOVEMENT = "movement"
    FIRE = "fire"


class Opt(StrEnum):
    """A card option (the symbol a player picks when playing the card)."""

    MOVE = "move"
    FLY = "fly"
    BITE = "bite"
    FIRE = "fire"
    DEFEND = "defend"
    MOVE1 = "move1"
    MOVE2 = "move2"
    ATTACK1 = "attack1"
    ATTACK2 = "attack2"
    CROSSBOW = "crossbow"
    NET = "net"


DWARVES: tuple[Dwarf, ...] = tuple(Dwarf)
TRACKS: tuple[Track, ...] = tuple(Track)

# --- Tableaus (spec §4) ------------------------------------------------------------------

DRAGON_FIELDS: Mapping[Track, int] = {
    Track.SCALES: 4,  # [SRC]
    Track.FLIGHT: 2,  # [DESIGNED]
    Track.MOVEMENT: 2,  # [DESIGNED]
    Track.FIRE: 2,  # [DESIGNED]
}
DWARF_FIELDS: Mapping[Dwarf, int] = {
    Dwarf.WARRIOR: 6,  # [DESIGNED]
    Dwarf.CROSSBOWMAN: 4,  # [DESIGNED]
    Dwarf.TRAPPER: 5,  # [DESIGNED]
}
DRAGON_TOTAL = sum(DRAGON_FIELDS.values())
HAND_LIMIT = 6
START_HAND = 4
DRAW_COUNT = 2

# --- Board (spec §3) -----------------------------------------------------------------------

ROW_NAMES = "ABCDE"
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
"""Index: 0 E, 1 NE, 2 NW, 3 W, 4 SW, 5 SE as (dq, dr)."""


@dataclass(frozen=True, slots=True)
class Hex:
    id: HexId
    q: int
    r: int

    @property
    def s(self) -> int:
        return -self.q - self.r

    @property
    def ring(self) -> int:
        return max(abs(self.q), abs(self.r), abs(self.s))

    def pixel(self, size: float = 1.0) -> tuple[float, float]:
        """Centre of a pointy-top hex (y grows downwards)."""
        return size * math.sqrt(3) * (self.q + self.r / 2), size * 1.5 * self.r


def _make_hexes() -> tuple[Hex, ...]:
    hexes: list[Hex] = []
    for row, r in zip(ROW_NAMES, range(-2, 3), strict=True):
        qs = [q for q in range(-2, 3) if max(abs(q), abs(r), abs(-q - r)) <= 2]
        hexes.extend(Hex(f"{row}{i}", q, r) for i, q in enumerate(qs, start=1))
    return tuple(hexes)


HEXES: tuple[Hex, ...] = _make_hexes()
HEX_BY_ID: Mapping[HexId, Hex] = {h.id: h for h in HEXES}
_BY_AXIAL: Mapping[tuple[int, int], HexId] = {(h.q, h.r): h.id for h in HEXES}


def hex_at(q: int, r: int) -> HexId | None:
    return _BY_AXIAL.get((q, r))


def distance(a: HexId, b: HexId) -> int:
    ha, hb = HEX_BY_ID[a], HEX_BY_ID[b]
    return max(abs(ha.q - hb.q), abs(ha.r - hb.r), abs(ha.s - hb.s))


def _ray(start: HexId, direction: int) -> tuple[HexId, ...]:
    h = HEX_BY_ID[start]
    dq, dr = DIRECTIONS[direction]
    out = []
    q, r = h.q + dq, h.r + dr
    while (nxt := hex_at(q, r)) is not None:
        out.append(nxt)
        q, r = q + dq, r + dr
    return tuple(out)


RAYS: Mapping[tuple[HexId, int], tuple[HexId, ...]] = {
    (h.id, d): _ray(h.id, d) for h in HEXES for d in range(len(DIRECTIONS))
}
"""The hexes from a hex to the board edge in a direction (the hex itself excluded)."""

NEIGHBOURS: Mapping[HexId, tuple[HexId, ...]] = {
    h.id: tuple(RAYS[h.id, d][0] for d in range(len(DIRECTIONS)) if RAYS[h.id, d]) for h in HEXES
}


def between(a: HexId, b: HexId) -> tuple[HexId, ...] | None:
    """The hexes strictly between two hexes in one row, or ``None`` if they share no row."""
    for d in range(len(DIRECTIONS)):
        ray = RAYS[a, d]
        if b in ray:
            return ray[: ray.index(b)]
    return None


CENTRE: HexId = "C3"
DRAGON_START: HexId = CENTRE  # [SRC]
STANDARD_START: Mapping[Dwarf, HexId] = {
    Dwarf.WARRIOR: "A2",  # [DESIGNED]
    Dwarf.CROSSBOWMAN: "D1",  # [DESIGNED]
    Dwarf.TRAPPER: "D4",  # [DESIGNED]
}
FREE_SETUP_HEXES: tuple[HexId, ...] = tuple(h.id for h in HEXES if distance(h.id, DRAGON_START) > 1)
"""Free setup (spec §6.3): any hex not adjacent to the dragon's start (the outer ring)."""

# --- Cards (spec §5, [DESIGNED] decks) -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardOption:
    opt: Opt
    value: int = 0

    @property
    def key(self) -> str:
        return f"{self.opt}:{self.value}" if self.value else str(self.opt)


@dataclass(frozen=True, slots=True)
class Card:
    id: CardId
    role: Role
    options: tuple[CardOption, ...]

    def option(self, opt: Opt) -> CardOption | None:
        return next((o for o in self.options if o.opt is opt), None)

    @property
    def can_defend(self) -> bool:
        return any(o.opt is Opt.DEFEND for o in self.options)


DRAGON_DECK_SPEC: tuple[tuple[int, str], ...] = (
    (2, "bite:3"),
    (4, "bite:2"),
    (4, "bite:1/move:1"),
    (2, "bite:2/defend"),
    (2, "bite:1/defend"),
    (1, "fire:3"),
    (3, "fire:2"),
    (3, "fire:1/move:1"),
    (3, "fly"),
    (2, "fly/defend"),
    (3, "move:2"),
    (4, "move:1/defend"),
    (5, "defend"),
)
DWARF_DECK_SPEC: tuple[tuple[int, str], ...] = (
    (3, "attack1:2"),
    (4, "attack1:1/move1:2"),
    (2, "attack1:1/defend"),
    (3, "attack2:1"),
    (2, "attack2:1/move2:1"),
    (2, "crossbow:2"),
    (3, "crossbow:1/move1:1"),
    (2, "net"),
    (1, "net/defend"),
    (4, "defend"),
    (4, "defend/move1:1"),
    (3, "defend/move2:1"),
    (3, "move1:2"),
    (2, "move2:1"),
)
DECK_PREFIX: Mapping[Role, str] = {Role.DRAGON: "DR", Role.DWARVES: "DW"}


def _parse_options(text: str) -> tuple[CardOption, ...]:
    options = []
    for part in text.split("/"):
        name, _, value = part.partition(":")
        options.append(CardOption(Opt(name), int(value) if value else 0))
    return tuple(options)


def _make_deck(role: Role, spec: tuple[tuple[int, str], ...]) -> tuple[Card, ...]:
    cards: list[Card] = []
    for copies, text in spec:
        for _ in range(copies):
            cards.append(Card(f"{DECK_PREFIX[role]}{len(cards) + 1:02d}", role, _parse_options(text)))
    return tuple(cards)


DECKS: Mapping[Role, tuple[Card, ...]] = {
    Role.DRAGON: _make_deck(Role.DRAGON, DRAGON_DECK_SPEC),
    Role.DWARVES: _make_deck(Role.DWARVES, DWARF_DECK_SPEC),
}
DECK_SIZE = 38
CARDS: Mapping[CardId, Card] = {c.id: c for deck in DECKS.values() for c in deck}
DRAGON_OPTS = frozenset({Opt.MOVE, Opt.FLY, Opt.BITE, Opt.FIRE, Opt.DEFEND})
DWARF_OPTS = frozenset({Opt.MOVE1, Opt.MOVE2, Opt.ATTACK1, Opt.ATTACK2, Opt.CROSSBOW, Opt.NET, Opt.DEFEND})

assert len(HEXES) == 19
assert all(len(deck) == DECK_SIZE for deck in DECKS.values())
