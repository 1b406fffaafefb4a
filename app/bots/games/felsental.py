"""Duell im Felsental for the bots: sample the opponent's hand, value a position by the legs.

Unseen by a seat: the opponent's hand and both draw piles. A side's cards are its fixed deck
of 38; its discards are public, so the unseen ones are the deck minus discards (minus the own
hand). The opponent's hand is a random choice of them of the size the view shows.
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

from app.bots.games import BotGame, logistic
from app.bots.observation import Observation
from app.engine.protocol import Seat
from app.games.felsental.board import DECKS, DRAGON_TOTAL, DWARF_FIELDS, DWARVES, TRACKS, Dwarf, Opt, Role
from app.games.felsental.state import Attack, DwarfSetup, FelsState, LegResult, Phase, Play, Side

_DWARF_TOTAL = sum(DWARF_FIELDS.values())
# The figures below are fitted to 120 legs of greedy self-play (7 in 8 won by the dragon; at a
# leg's end a winning dragon had taken 5.4 wounds and dealt 11.2, winning dwarves had taken 6.5).
_LEG_LOGIT = (1.5, 4.3, -7.7, 4.9)
"""Logistic weights of the dragon's leg odds: constant, dwarf wound share, dragon wound share,
share of the dwarf cards used up (the dwarves lose when none are left, spec §11)."""
_DRAGON_LEG_ODDS = 0.85
"""The dragon's chance to win a leg not yet begun."""
_WINNER_SHARE = 0.75
"""Of the wounds still open on the loser's tableau, the share the leg's winner inflicts by its end."""
_LOSER_SHARE = 0.45
"""The same for the leg's loser."""
_SPREAD_NOW = 2.0
"""Uncertainty (in wounds) of the tie-break once every leg has begun: the leg under way is projected."""
_SPREAD_PER_LEG = 4.0
"""Further uncertainty for each leg not yet begun."""


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
    """Each seat's chance to win the match (spec §12), not only the leg under way: legs won, then
    wounds inflicted over all legs. The leg under way ends either way with a chance from its
    position; each end is projected to a leg result and combined with the legs before and after."""
    dragon_wins = _leg_odds(state)
    done = tuple(_result_leg(result) for result in state.results)
    first = sum(
        odds * _match_odds((*done, _projected(state, winner)), state, 0)
        for winner, odds in ((Role.DRAGON, dragon_wins), (Role.DWARVES, 1.0 - dragon_wins))
    )
    return (first, 1.0 - first)


BOT_GAME = BotGame(determinise=determinise, evaluate=evaluate, playout_depth=10)
assert len(TRACKS) == 4 and len(DWARVES) == 3


class _Leg(NamedTuple):
    """A leg's result as the match counts it: its winner and the wounds each seat inflicted."""

    winner: Seat
    inflicted: tuple[float, float]


def _leg_odds(state: FelsState) -> float:
    """The dragon's chance to win the leg under way."""
    hurt_dwarves = sum(state.dwarf_wounds) / _DWARF_TOTAL
    hurt_dragon = sum(state.dragon_wounds) / DRAGON_TOTAL
    cards = len(state.dwarves.hand) + len(state.dwarves.deck)
    used = 1.0 - cards / len(DECKS[Role.DWARVES])
    bias, by_dwarves, by_dragon, by_used = _LEG_LOGIT
    return logistic(bias + by_dwarves * hurt_dwarves + by_dragon * hurt_dragon + by_used * used)


def _projected(state: FelsState, winner: Role) -> _Leg:
    """The leg under way, had ``winner`` won it: the wounds so far plus a share of those open."""
    return _leg_end(state.dragon_seat, winner, sum(state.dragon_wounds), sum(state.dwarf_wounds))


def _leg_end(dragon_seat: Seat, winner: Role, on_dragon: float, on_dwarves: float) -> _Leg:
    if winner is Role.DRAGON:
        on_dwarves += _WINNER_SHARE * (_DWARF_TOTAL - on_dwarves)
        on_dragon += _LOSER_SHARE * (DRAGON_TOTAL - on_dragon)
    else:
        on_dragon = DRAGON_TOTAL  # the dwarves win only by filling the dragon's tableau
        on_dwarves += _LOSER_SHARE * (_DWARF_TOTAL - on_dwarves)
    by_dragon, by_dwarves = on_dwarves, on_dragon
    inflicted = (by_dragon, by_dwarves) if dragon_seat == 0 else (by_dwarves, by_dragon)
    winner_seat = dragon_seat if winner is Role.DRAGON else 1 - dragon_seat
    return _Leg(winner_seat, inflicted)


def _match_odds(legs: tuple[_Leg, ...], state: FelsState, unplayed: int) -> float:
    """Seat 0's chance to win the match once ``legs`` are decided; the legs after them (roles
    swap each leg) are averaged over the dragon's prior odds."""
    if len(legs) < state.legs:
        dragon_seat = 1 - state.dragon_seat if unplayed % 2 == 0 else state.dragon_seat
        return sum(
            odds * _match_odds((*legs, _leg_end(dragon_seat, winner, 0.0, 0.0)), state, unplayed + 1)
            for winner, odds in ((Role.DRAGON, _DRAGON_LEG_ODDS), (Role.DWARVES, 1.0 - _DRAGON_LEG_ODDS))
        )
    won = [sum(1 for leg in legs if leg.winner == seat) for seat in (0, 1)]
    if won[0] != won[1]:
        return 1.0 if won[0] > won[1] else 0.0
    lead = sum(leg.inflicted[0] - leg.inflicted[1] for leg in legs)
    return logistic(lead / (_SPREAD_NOW + _SPREAD_PER_LEG * unplayed))


def _result_leg(result: LegResult) -> _Leg:
    return _Leg(result.winner_seat(), (float(result.inflicted_by(0)), float(result.inflicted_by(1))))


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
