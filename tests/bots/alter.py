"""Alter everything one seat cannot see, keeping everything it can (for the blindness test)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from app.engine.protocol import Seat
from app.games.drachenland.rules import replace as dl_replace
from app.games.drachenland.state import State as DrachenlandState
from app.games.draco.state import DracoState
from app.games.felsental.state import FelsState, Side, evolve


def alter_hidden(state: Any, seat: Seat, rng: random.Random) -> Any:
    if isinstance(state, DracoState):
        return _draco(state, seat, rng)
    if isinstance(state, DrachenlandState):
        return _drachenland(state, seat, rng)
    assert isinstance(state, FelsState)
    return _felsental(state, seat, rng)


def _draco(state: DracoState, seat: Seat, rng: random.Random) -> DracoState:
    """Other hands, the deck order and every card under a pile top, dealt anew."""
    others = [s for s in range(state.players) if s != seat]
    # A card played under the active pile this turn is public (the view shows the play).
    keep_bottom = state.play is not None and state.piles[state.active][-1] != state.play.card
    pool = [c for s in others for c in state.hands[s]] + list(state.deck)
    for s, pile in enumerate(state.piles):
        pool += pile[1 if keep_bottom and s == state.active else 0 : -1]
    rng.shuffle(pool)
    hands = list(state.hands)
    for s in others:
        n = len(hands[s])
        hands[s], pool = tuple(sorted(pool[:n])), pool[n:]
    piles = []
    for s, pile in enumerate(state.piles):
        fixed = pile[:1] if keep_bottom and s == state.active else ()
        n = len(pile) - 1 - len(fixed)
        piles.append((*fixed, *pool[:n], pile[-1]))
        pool = pool[n:]
    drawn = tuple(d if s == seat else () for s, d in enumerate(state.drawn)) if state.drawn else ()
    if drawn and not any(drawn):
        drawn = ()
    return replace(state, hands=tuple(hands), piles=tuple(piles), deck=tuple(pool), drawn=drawn)


def _drachenland(state: DrachenlandState, seat: Seat, rng: random.Random) -> DrachenlandState:
    """The face-down tiles and the box tile permuted; closed screens of two rivals swapped."""
    down = [i for i, v in enumerate(state.volcanoes) if v.face_down]
    tiles = [state.volcanoes[i].tile for i in down] + [state.box_tile]
    rng.shuffle(tiles)
    volcanoes = list(state.volcanoes)
    for i, tile in zip(down, tiles, strict=False):
        volcanoes[i] = dl_replace(volcanoes[i], tile=tile)
    box = tiles[-1]
    assert box is not None
    seats = list(state.seats)
    rivals = [s for s in range(state.players) if s != seat]
    if not state.variant2 and len(rivals) >= 2:
        a, b = rivals[:2]
        # Swap what lies behind two closed screens (figures, rings and tiles stay public).
        seats[a], seats[b] = (
            dl_replace(seats[a], eggs=seats[b].eggs, gems=seats[b].gems),
            dl_replace(seats[b], eggs=seats[a].eggs, gems=seats[a].gems),
        )
    return dl_replace(state, volcanoes=tuple(volcanoes), box_tile=box, seats=tuple(seats))


def _felsental(state: FelsState, seat: Seat, rng: random.Random) -> FelsState:
    """The opponent's hand drawn anew from its hand and draw pile."""
    role = state.role_of(seat).other
    side = state.side(role)
    pool = list(side.hand + side.deck)
    rng.shuffle(pool)
    n = len(side.hand)
    new = Side(tuple(sorted(pool[:n])), tuple(sorted(pool[n:])), side.discard)
    return evolve(state, **{str(role): new})
