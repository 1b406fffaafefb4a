"""The immutable state of a Felsental match (both legs in one state)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.engine.protocol import Seat
from app.games.felsental.board import (
    DRAGON_FIELDS,
    DRAGON_TOTAL,
    DWARF_FIELDS,
    DWARVES,
    TRACKS,
    CardId,
    Dwarf,
    HexId,
    Opt,
    Role,
    Track,
)

_DWARF_MAX = tuple(DWARF_FIELDS[d] for d in DWARVES)


class Phase(StrEnum):
    EXCHANGE = "exchange"  # option hand_exchange: each side may redraw its start hand once
    PLACE = "place"  # option dwarf_setup=free: the dwarf player places the dwarves
    PLAY = "play"
    OVER = "over"  # the whole match is over


class DwarfSetup(StrEnum):
    STANDARD = "standard"
    FREE = "free"


@dataclass(frozen=True, slots=True)
class Side:
    """One player's cards: hand and draw pile (both sorted; the draw is random), discards in order."""

    hand: tuple[CardId, ...]
    deck: tuple[CardId, ...]
    discard: tuple[CardId, ...] = ()

    @property
    def has_cards(self) -> bool:
        return bool(self.hand or self.deck)


@dataclass(frozen=True, slots=True)
class Play:
    """A card being played whose targets are still being chosen (pending decisions)."""

    card: CardId
    opt: Opt
    value: int
    selected: Dwarf | None = None
    """move1/move2: the dwarf about to walk; attack2: the first attacker chosen."""
    moved: tuple[Dwarf, ...] = ()
    """move2: dwarves that already walked with this card."""


@dataclass(frozen=True, slots=True)
class Attack:
    """A declared attack waiting for the defender's blocks (spec §9).

    ``dwarves`` are the attackers when the dwarves attack and the dwarves hit when the dragon
    attacks: either way one individual attack per dwarf, each blockable by one card.
    """

    by: Role
    card: CardId
    opt: Opt
    value: int
    dwarves: tuple[Dwarf, ...]
    blocks: tuple[tuple[Dwarf, CardId], ...] = ()
    direction: int | None = None


@dataclass(frozen=True, slots=True)
class LegResult:
    dragon_seat: Seat
    winner: Role
    dragon_wounds: int
    """Wounds on the dragon tableau at the end (inflicted by the dwarf player)."""
    dwarf_wounds: int
    """Wounds on the dwarf tableau at the end, fury included (inflicted by the dragon player)."""

    def inflicted_by(self, seat: Seat) -> int:
        return self.dwarf_wounds if seat == self.dragon_seat else self.dragon_wounds

    def winner_seat(self) -> Seat:
        return self.dragon_seat if self.winner is Role.DRAGON else 1 - self.dragon_seat


@dataclass(frozen=True, slots=True)
class FelsState:
    legs: int
    dwarf_setup: DwarfSetup
    hand_exchange: bool
    leg: int
    first_dragon: Seat
    results: tuple[LegResult, ...]
    phase: Phase
    dragon: Side
    dwarves: Side
    dragon_hex: HexId
    dwarf_hexes: tuple[HexId | None, HexId | None, HexId | None]
    """Per dwarf in ``DWARVES`` order; ``None`` when dead or not yet placed."""
    dragon_wounds: tuple[int, int, int, int]
    """Per track in ``TRACKS`` order."""
    dwarf_wounds: tuple[int, int, int]
    netted: bool
    fury_used: bool
    active: Role
    actions: int
    play: Play | None = None
    attack: Attack | None = None
    to_place: int = 0
    """Dragon wounds the dwarf player still has to put on a track (spec §7 M7)."""

    # --- derived facts -------------------------------------------------------------------

    @property
    def dragon_seat(self) -> Seat:
        return self.first_dragon if self.leg == 1 else 1 - self.first_dragon

    def seat_of(self, role: Role) -> Seat:
        return self.dragon_seat if role is Role.DRAGON else 1 - self.dragon_seat

    def role_of(self, seat: Seat) -> Role:
        return Role.DRAGON if seat == self.dragon_seat else Role.DWARVES

    def side(self, role: Role) -> Side:
        return self.dragon if role is Role.DRAGON else self.dwarves

    def dwarf_hex(self, dwarf: Dwarf) -> HexId | None:
        return self.dwarf_hexes[DWARVES.index(dwarf)]

    def wounds_of(self, dwarf: Dwarf) -> int:
        return self.dwarf_wounds[DWARVES.index(dwarf)]

    def is_alive(self, dwarf: Dwarf) -> bool:
        return self.dwarf_wounds[DWARVES.index(dwarf)] < DWARF_FIELDS[dwarf]

    def alive(self) -> tuple[Dwarf, ...]:
        return tuple(d for d, w, m in zip(DWARVES, self.dwarf_wounds, _DWARF_MAX, strict=True) if w < m)

    def track(self, track: Track) -> int:
        return self.dragon_wounds[TRACKS.index(track)]

    def track_full(self, track: Track) -> bool:
        return self.track(track) >= DRAGON_FIELDS[track]

    @property
    def dragon_dead(self) -> bool:
        return sum(self.dragon_wounds) >= DRAGON_TOTAL

    def occupied(self) -> frozenset[HexId]:
        return frozenset({self.dragon_hex, *(h for h in self.dwarf_hexes if h is not None)})

    def dwarf_on(self, hex_id: HexId) -> Dwarf | None:
        for dwarf, h in zip(DWARVES, self.dwarf_hexes, strict=True):
            if h == hex_id:
                return dwarf
        return None

    @property
    def quiet(self) -> bool:
        """No card, attack or wound placement is half resolved."""
        return self.play is None and self.attack is None and self.to_place == 0


_FIELDS: tuple[str, ...] = FelsState.__slots__
_FIELD_SET = frozenset(_FIELDS)
_set = object.__setattr__


def evolve(state: FelsState, **changes: Any) -> FelsState:
    """``dataclasses.replace`` for the hot path of self-play (same result, a few times faster)."""
    assert _FIELD_SET.issuperset(changes), f"no such fields: {set(changes) - _FIELD_SET}"
    new = object.__new__(FelsState)
    for name in _FIELDS:
        _set(new, name, changes[name] if name in changes else getattr(state, name))
    return new


# --- small state changes ---------------------------------------------------------------


def with_side(state: FelsState, role: Role, side: Side) -> FelsState:
    return evolve(state, dragon=side) if role is Role.DRAGON else evolve(state, dwarves=side)


def discard_card(state: FelsState, role: Role, card: CardId, **changes: Any) -> FelsState:
    side = state.side(role)
    hand = tuple(c for c in side.hand if c != card)
    changes[str(role)] = Side(hand, side.deck, (*side.discard, card))
    return evolve(state, **changes)


def set_hex(state: FelsState, dwarf: Dwarf, hex_id: HexId | None) -> FelsState:
    hexes = list(state.dwarf_hexes)
    hexes[DWARVES.index(dwarf)] = hex_id
    return evolve(state, dwarf_hexes=(hexes[0], hexes[1], hexes[2]))


def add_wounds(state: FelsState, track: Track, n: int) -> FelsState:
    wounds = list(state.dragon_wounds)
    wounds[TRACKS.index(track)] += n
    return evolve(state, dragon_wounds=(wounds[0], wounds[1], wounds[2], wounds[3]))
