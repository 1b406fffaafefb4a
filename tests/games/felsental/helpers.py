"""Small builders for Felsental test positions."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from app.engine.protocol import Event, Move
from app.engine.rng import Rng
from app.games.felsental import FELSENTAL
from app.games.felsental.board import DECKS, CardId, Role
from app.games.felsental.state import DwarfSetup, FelsState, Phase, Side

DRAGON_SEAT = 0
DWARF_SEAT = 1
RNG_SEED = b"felsental-tests-0123456789abcdef"


def rng(counter: int = 0) -> Rng:
    return Rng(RNG_SEED, counter)


def side(
    role: Role,
    hand: Iterable[CardId] = (),
    discard: Iterable[CardId] = (),
    deck: Iterable[CardId] | None = None,
) -> Side:
    """A side with the given hand and discards; by default every other card is in the draw pile."""
    hand_t = tuple(sorted(hand))
    discard_t = tuple(discard)
    if deck is None:
        deck_t = tuple(c.id for c in DECKS[role] if c.id not in hand_t and c.id not in discard_t)
        return Side(hand_t, deck_t, discard_t)
    deck_t = tuple(sorted(deck))
    rest = tuple(c.id for c in DECKS[role] if c.id not in hand_t + deck_t + discard_t)
    return Side(hand_t, deck_t, discard_t + rest)


def position(
    *,
    dragon_hand: Iterable[CardId] = (),
    dwarf_hand: Iterable[CardId] = (),
    dragon_deck: Iterable[CardId] | None = None,
    dwarf_deck: Iterable[CardId] | None = None,
    dragon_hex: str = "C3",
    dwarves: tuple[str | None, str | None, str | None] = ("A2", "D1", "D4"),
    active: Role = Role.DRAGON,
    actions: int = 2,
    legs: int = 1,
    **changes: Any,
) -> FelsState:
    """Leg 1 in play, seat 0 the dragon, standard start unless told otherwise."""
    state = FelsState(
        legs=legs,
        dwarf_setup=DwarfSetup.STANDARD,
        hand_exchange=False,
        leg=1,
        first_dragon=DRAGON_SEAT,
        results=(),
        phase=Phase.PLAY,
        dragon=side(Role.DRAGON, dragon_hand, deck=dragon_deck),
        dwarves=side(Role.DWARVES, dwarf_hand, deck=dwarf_deck),
        dragon_hex=dragon_hex,
        dwarf_hexes=dwarves,
        dragon_wounds=(0, 0, 0, 0),
        dwarf_wounds=(0, 0, 0),
        netted=False,
        fury_used=False,
        active=active,
        actions=actions,
    )
    return replace(state, **changes)


def legal(state: FelsState, seat: int) -> list[str]:
    return [str(m) for m in FELSENTAL.legal_moves(state, seat)]


def play(state: FelsState, *moves: str, counter: int = 0) -> tuple[FelsState, list[Event]]:
    """Apply moves, each by the seat that is to act; returns the last state and all events."""
    events: list[Event] = []
    r = rng(counter)
    for text in moves:
        (seat,) = FELSENTAL.to_act(state)
        state, more = FELSENTAL.apply(state, seat, Move.parse(text), r)
        FELSENTAL.invariants(state)
        events.extend(more)
    return state, events


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]
