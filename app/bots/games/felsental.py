"""Duell im Felsental for the bots: sample the opponent's hand, value a position by the legs.

Unseen by a seat: the opponent's hand and both draw piles. A side's cards are its fixed deck
of 38; its discards are public, so the unseen ones are the deck minus discards (minus the own
hand). The opponent's hand is a random choice of them of the size the view shows.
"""

from __future__ import annotations

import random
from typing import Any

from app.bots.games import BotGame, margin_rewards
from app.bots.observation import Observation
from app.games.felsental.board import DECKS, DRAGON_TOTAL, DWARF_FIELDS, DWARVES, TRACKS, Dwarf, Opt, Role
from app.games.felsental.state import Attack, DwarfSetup, FelsState, LegResult, Phase, Play, Side

_DWARF_TOTAL = sum(DWARF_FIELDS.values())
_LEG_WEIGHT = 3.0
"""A leg won outweighs any lead inside a leg."""
_SCALE = 0.15
"""About one wound in twenty is worth a few percent of winning chance."""


def determinise(obs: Observation, rng: random.Random) -> FelsState:
    view = obs.view
    dragon_seat: int = view["dragon_seat"]
    own_role = Role.DRAGON if obs.seat == dragon_seat else Role.DWARVES
    sides = {}
    for role in Role:
        info = view["cards"][str(role)]
        discard = tuple(c["id"] for c in info["discard"])
        unseen = [c.id for c in DECKS[role] if c.id not in discard]
        if role is own_role:
            hand = tuple(c["id"] for c in view["hand"] or ())
            unseen = [c for c in unseen if c not in hand]
        else:
            hand = tuple(rng.sample(unseen, info["hand_size"]))
            unseen = [c for c in unseen if c not in hand]
        # Draws take a uniformly random card, so the pile's order carries nothing: keep it sorted.
        sides[role] = Side(tuple(sorted(hand)), tuple(sorted(unseen)), discard)
    dwarves = view["dwarves"]
    hexes = tuple(d["hex"] for d in dwarves)
    options = obs.options
    return FelsState(
        legs=view["legs"],
        dwarf_setup=DwarfSetup(options.get("dwarf_setup", DwarfSetup.STANDARD)),
        hand_exchange=bool(options.get("hand_exchange", False)),
        leg=view["leg"],
        first_dragon=dragon_seat if view["leg"] == 1 else 1 - dragon_seat,
        results=tuple(
            LegResult(r["dragon_seat"], Role(r["winner"]), r["dragon_wounds"], r["dwarf_wounds"])
            for r in view["results"]
        ),
        phase=Phase(view["phase"]),
        dragon=sides[Role.DRAGON],
        dwarves=sides[Role.DWARVES],
        dragon_hex=view["dragon"]["hex"],
        dwarf_hexes=(hexes[0], hexes[1], hexes[2]),
        dragon_wounds=_four(t["wounds"] for t in view["dragon"]["tracks"]),
        dwarf_wounds=(dwarves[0]["wounds"], dwarves[1]["wounds"], dwarves[2]["wounds"]),
        netted=view["netted"],
        fury_used=view["fury_used"],
        active=Role(view["active"]),
        actions=view["actions"],
        play=_play(view["play"]),
        attack=_attack(view["attack"]),
        to_place=view["to_place"],
    )


def evaluate(state: FelsState) -> tuple[float, ...]:
    values = [0.0, 0.0]
    for result in state.results:
        values[result.winner_seat()] += _LEG_WEIGHT
    if state.phase is not Phase.OVER:
        dragon = state.dragon_seat
        hurt_dwarves = sum(state.dwarf_wounds) / _DWARF_TOTAL
        hurt_dragon = sum(state.dragon_wounds) / DRAGON_TOTAL
        # The dwarves also lose when their cards run out.
        cards = len(state.dwarves.hand) + len(state.dwarves.deck)
        short = 1.0 - cards / len(DECKS[Role.DWARVES])
        lead = hurt_dwarves - hurt_dragon + 0.5 * short
        values[dragon] += lead
        values[1 - dragon] -= lead
    return margin_rewards(values, _SCALE)


BOT_GAME = BotGame(determinise=determinise, evaluate=evaluate, playout_depth=10)
assert len(TRACKS) == 4 and len(DWARVES) == 3


def _four(values: Any) -> tuple[int, int, int, int]:
    v = list(values)
    return (v[0], v[1], v[2], v[3])


def _play(raw: dict[str, Any] | None) -> Play | None:
    if raw is None:
        return None
    return Play(
        card=raw["card"]["id"],
        opt=Opt(raw["option"]),
        value=raw["value"],
        selected=None if raw["selected"] is None else Dwarf(raw["selected"]),
        moved=tuple(Dwarf(d) for d in raw["moved"]),
    )


def _attack(raw: dict[str, Any] | None) -> Attack | None:
    if raw is None:
        return None
    return Attack(
        by=Role(raw["by"]),
        card=raw["card"]["id"],
        opt=Opt(raw["option"]),
        value=raw["value"],
        dwarves=tuple(Dwarf(d) for d in raw["dwarves"]),
        blocks=tuple((Dwarf(b["dwarf"]), b["card"]["id"]) for b in raw["blocks"]),
        direction=raw["direction"],
    )
