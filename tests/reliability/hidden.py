"""Alter what one seat must not see: the test's own knowledge of each game's hidden data.

``scramble(slug, state, seat)`` returns a state that differs from ``state`` only in information
``seat`` (None: a spectator) may not know — other seats' hands, draw piles, face-down tiles,
screens — by rotating it among its hiding places (sizes kept). Every view, page and answer
for ``seat`` must be the same for both states. The rules of each game say what is hidden:
Draco §hands (hands, the draw pile, the cards under each pile's top), Drachenland §7 (screens
unless variant 2 or the end, face-down tiles, the 16th tile), Felsental (hands, draw piles).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from app.games.felsental.board import Role

T = TypeVar("T")
Scrambler = Callable[[Any, int | None], Any]


def _rotate(pool: Sequence[T]) -> list[T]:
    return [*pool[1:], *pool[:1]] if pool else []


def _redistribute(groups: Sequence[Sequence[T]], *, sort: bool) -> list[tuple[T, ...]]:
    """The same group sizes, the pooled contents rotated by one."""
    pool = _rotate([item for group in groups for item in group])
    out, at = [], 0
    for group in groups:
        part = pool[at : at + len(group)]
        at += len(group)
        out.append(tuple(sorted(part) if sort else part))
    return out


def _toy(state: Any, seat: int | None) -> Any:
    others = [i for i in range(len(state.hands)) if i != seat]
    *hands, deck = _redistribute([*(state.hands[i] for i in others), state.deck], sort=False)
    new_hands = list(state.hands)
    for i, hand in zip(others, hands, strict=True):
        new_hands[i] = tuple(sorted(hand))
    return replace(state, hands=tuple(new_hands), deck=deck)


def _draco(state: Any, seat: int | None) -> Any:
    others = [i for i in range(state.players) if i != seat]
    groups = [
        *(state.hands[i] for i in others),
        *(state.piles[i][:-1] for i in range(state.players)),
        state.deck,
    ]
    parts = _redistribute(groups, sort=False)
    hands, piles = list(state.hands), list(state.piles)
    for i in others:
        hands[i] = tuple(sorted(parts.pop(0)))
    for i in range(state.players):
        piles[i] = (*parts.pop(0), state.piles[i][-1])
    (deck,) = parts
    return replace(state, hands=tuple(hands), piles=tuple(piles), deck=deck)


def _drachenland(state: Any, seat: int | None) -> Any:
    seats = list(state.seats)
    if not (state.variant2 or state.is_over):
        for i, p in enumerate(seats):
            if i != seat:
                seats[i] = replace(p, eggs=p.eggs + 1, gems=(*p.gems[1:], p.gems[0] + 1))
    hidden = [i for i, v in enumerate(state.volcanoes) if v.face_down and v.tile is not None]
    tiles = _rotate([*(state.volcanoes[i].tile for i in hidden), state.box_tile])
    volcanoes = list(state.volcanoes)
    for i, tile in zip(hidden, tiles, strict=False):
        volcanoes[i] = replace(volcanoes[i], tile=tile)
    return replace(state, seats=tuple(seats), volcanoes=tuple(volcanoes), box_tile=tiles[-1])


def _felsental(state: Any, seat: int | None) -> Any:
    changes = {}
    for role_field in ("dragon", "dwarves"):
        side = getattr(state, role_field)
        if state.seat_of(Role(role_field)) == seat:
            continue
        hand, deck = _redistribute([side.hand, side.deck], sort=True)
        changes[role_field] = replace(side, hand=hand, deck=deck)
    return replace(state, **changes)


SCRAMBLERS: dict[str, Scrambler] = {
    "toy": _toy,
    "draco": _draco,
    "drachenland": _drachenland,
    "felsental": _felsental,
}


def scramble(slug: str, state: Any, seat: int | None) -> Any:
    return SCRAMBLERS[slug](state, seat)
