"""Invariants: what must hold in every reachable state (self-play checks them after every move)."""

from __future__ import annotations

from app.games.felsental.board import (
    CARDS,
    DECK_SIZE,
    DECKS,
    DRAGON_FIELDS,
    DRAW_COUNT,
    DWARF_FIELDS,
    DWARVES,
    HAND_LIMIT,
    HEX_BY_ID,
    TRACKS,
    Role,
)
from app.games.felsental.state import FelsState, Phase

_ALL = {role: frozenset(c.id for c in DECKS[role]) for role in Role}


def invariants(state: FelsState) -> None:
    """Raise ``AssertionError`` naming the first impossible fact."""
    quiet = state.play is None and state.attack is None and state.to_place == 0
    for role, side in ((Role.DRAGON, state.dragon), (Role.DWARVES, state.dwarves)):
        cards = {*side.hand, *side.deck, *side.discard}
        count = len(side.hand) + len(side.deck) + len(side.discard)
        assert count == DECK_SIZE and cards == _ALL[role], f"{role}: cards lost or duplicated"
        assert list(side.hand) == sorted(side.hand), f"{role}: hand not in order"
        limit = HAND_LIMIT + DRAW_COUNT if role is state.active and quiet else HAND_LIMIT
        assert len(side.hand) <= limit, f"{role} holds {len(side.hand)} cards"
    wd = state.dragon_wounds
    assert all(0 <= w <= m for w, m in zip(wd, _DRAGON_MAX, strict=True)), f"dragon wounds {wd}"
    assert wd[0] == _DRAGON_MAX[0] or not any(wd[1:]), "wounds past the scales before the scales are full"
    placing = state.phase in (Phase.EXCHANGE, Phase.PLACE)
    for wounds, most, hex_id in zip(state.dwarf_wounds, _DWARF_MAX, state.dwarf_hexes, strict=True):
        assert 0 <= wounds <= most, f"dwarf wounds {state.dwarf_wounds}"
        assert (hex_id is None) == (wounds == most) or (placing and hex_id is None), (
            "dead/alive and board disagree"
        )
    figures = [state.dragon_hex, *(h for h in state.dwarf_hexes if h is not None)]
    assert all(h in HEX_BY_ID for h in figures), "a figure is off the valley"
    assert len(set(figures)) == len(figures), "two figures on one hex"
    assert 0 <= state.actions <= 3, f"{state.actions} actions"
    assert state.to_place >= 0
    over = state.phase is Phase.OVER
    assert over == (len(state.results) == state.legs), "match end and results disagree"
    assert over or state.leg == len(state.results) + 1, "leg number and results disagree"
    if state.phase is Phase.PLAY and quiet:
        assert not state.dragon_dead and state.alive() and state.dwarves.has_cards, "a finished leg goes on"
    if state.attack is not None:
        assert state.play is None and state.to_place == 0
        assert all(CARDS[c].can_defend for _, c in state.attack.blocks)
        assert len(state.attack.blocks) < len(state.attack.dwarves), "a fully blocked attack was not resolved"
    if state.play is not None:
        assert state.play.card in state.side(state.active).discard, "the played card is not discarded"


_DRAGON_MAX = tuple(DRAGON_FIELDS[t] for t in TRACKS)
_DWARF_MAX = tuple(DWARF_FIELDS[d] for d in DWARVES)
