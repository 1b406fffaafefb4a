"""Invariants: what must hold in every reachable state (self-play checks them after every move)."""

from __future__ import annotations

from operator import eq, le

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
    """Raise ``AssertionError`` naming the first impossible fact (written for speed: self-play
    runs it after every decision)."""
    quiet = state.play is None and state.attack is None and state.to_place == 0
    for role, side in ((Role.DRAGON, state.dragon), (Role.DWARVES, state.dwarves)):
        hand = side.hand
        count = len(hand) + len(side.deck) + len(side.discard)
        assert count == DECK_SIZE and {*hand, *side.deck, *side.discard} == _ALL[role], f"{role}: cards lost"
        assert hand == tuple(sorted(hand)), f"{role}: hand not in order"
        assert len(hand) <= (_DRAWN_LIMIT if role is state.active and quiet else HAND_LIMIT), (
            f"{role}: hand size"
        )
    wd = state.dragon_wounds
    assert min(wd) >= 0 and all(map(le, wd, _DRAGON_MAX)), f"dragon wounds {wd}"
    assert wd[0] == _DRAGON_MAX[0] or not any(wd[1:]), "wounds past the scales before the scales are full"
    ww = state.dwarf_wounds
    assert min(ww) >= 0 and all(map(le, ww, _DWARF_MAX)), f"dwarf wounds {ww}"
    hexes = state.dwarf_hexes
    dead = tuple(map(eq, ww, _DWARF_MAX))
    off = (hexes[0] is None, hexes[1] is None, hexes[2] is None)
    assert dead == off or (state.phase in _SETTING_UP and not any(dead)), "dead/alive and board disagree"
    figures = [state.dragon_hex, *(h for h in hexes if h is not None)]
    assert _HEX_IDS.issuperset(figures), "a figure is off the valley"
    assert len(set(figures)) == len(figures), "two figures on one hex"
    assert 0 <= state.actions <= 3 and state.to_place >= 0, (
        f"{state.actions} actions, {state.to_place} wounds"
    )
    over = state.phase is Phase.OVER
    assert over == (len(state.results) == state.legs), "match end and results disagree"
    assert over or state.leg == len(state.results) + 1, "leg number and results disagree"
    if quiet:
        if state.phase is Phase.PLAY:
            assert not state.dragon_dead and not all(dead) and state.dwarves.has_cards, (
                "a finished leg goes on"
            )
        return
    if state.attack is not None:
        assert state.play is None and state.to_place == 0
        assert all(CARDS[c].can_defend for _, c in state.attack.blocks)
        assert len(state.attack.blocks) < len(state.attack.dwarves), "a fully blocked attack was not resolved"
    if state.play is not None:
        assert state.play.card in state.side(state.active).discard, "the played card is not discarded"


_SETTING_UP = (Phase.EXCHANGE, Phase.PLACE)
_DRAWN_LIMIT = HAND_LIMIT + DRAW_COUNT
_HEX_IDS = frozenset(HEX_BY_ID)
_DRAGON_MAX = tuple(DRAGON_FIELDS[t] for t in TRACKS)
_DWARF_MAX = tuple(DWARF_FIELDS[d] for d in DWARVES)
