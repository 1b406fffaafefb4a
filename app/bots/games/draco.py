"""Draco for the bots: sample the unseen cards, value a position by score and riding height.

Unseen by a seat: the other hands and the draw pile. They are the 110 cards minus everything
the seat sees (its hand, the top cards, the card in play) and minus the cards it counted into
the piles (every card played or discarded since the last reshuffle was shown to all), dealt at
random into the places whose sizes the view shows.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from app.bots.games import BotGame, margin_rewards
from app.bots.games.draco_playout import playout
from app.bots.observation import Observation
from app.games.draco.board import ALL_CARDS, DRAGON_BY_ID, Card, track_for
from app.games.draco.bot import POSITION_WEIGHT
from app.games.draco.state import DracoState, Phase, Play

_PUT_ON_PILES = frozenset({"dragon_moved", "discarded"})
"""Events that name a card going onto or under a pile, for every seat to see."""
_ROLLOUT_TURNS = 4
"""Greedy turns a rollout plays after the turn under way before the position is valued, rounded
up to whole rounds (so it ends after the bot's own turn): shorter ones miss what a move sets
up, longer ones (or to the end) drown it in the luck of the draws (tournaments against easy:
two rounds at two seats, one at five)."""
_ROLLOUT_EXPLORE = 0.1
"""Share of random card plays in a rollout."""
_SCALE = 6.0
"""A lead of this many points is worth about three to one."""


def determinise(obs: Observation, rng: random.Random) -> DracoState:
    view = obs.view
    players = obs.players
    positions = tuple(d["space"] for d in view["dragons"])
    phase = Phase(view["phase"])
    active: int = view["active"]
    tops = [_card(p["top"]) for p in view["players"]]
    hand = tuple(sorted(_card(c) for c in view["hand"] or ()))
    drawn_own = tuple(sorted(_card(c) for c in view["hand"] or () if c["new"]))
    unseen = Counter(ALL_CARDS)
    unseen.subtract(hand)
    unseen.subtract(tops)
    counted = _counted_below_tops(obs)
    counted.subtract(tops)
    play = None
    bottom_known: Card | None = None
    if view["play"] is not None:
        p = view["play"]
        card = _card(p)
        play = Play(card, p["from"], p["to"], was_last=phase is Phase.MOUNT, scored=p["scored"])
        if phase is Phase.MOUNT:
            unseen[card] -= 1  # in nobody's hand or pile until the choice
            counted[card] -= 1
        elif tops[active] != card:
            # Played under the active pile (ridden by another, or kept): its bottom card is known.
            bottom_known = card
            unseen[card] -= 1
            counted[card] -= 1
    slots = sum(info["pile_size"] - 1 for info in view["players"]) - (bottom_known is not None)
    # Which pile a counted card lies under does not matter: a reshuffle gathers them all.
    known = list((+counted).elements())[:slots]  # a partial log may count fewer, never more
    unseen.subtract(known)
    pool = list(unseen.elements())
    rng.shuffle(pool)
    hands: list[tuple[Card, ...]] = []
    piles: list[tuple[Card, ...]] = []
    for seat, info in enumerate(view["players"]):
        if seat == obs.seat:
            hands.append(hand)
        else:
            hands.append(tuple(sorted(_take(pool, info["hand_size"]))))
        below = info["pile_size"] - 1
        bottom = (bottom_known,) if seat == active and bottom_known is not None else ()
        counted_here = _take(known, below - len(bottom))
        rest = _take(pool, below - len(bottom) - len(counted_here))
        piles.append((*bottom, *counted_here, *rest, tops[seat]))
    deck = tuple(_take(pool, view["deck_size"]))
    assert not pool and not known, "the view's counts do not add up to 110 cards"
    drawn: tuple[tuple[Card, ...], ...] = ()
    if drawn_own:
        drawn = tuple(drawn_own if s == obs.seat else () for s in range(players))
    return DracoState(
        players=players,
        positions=positions,
        hands=tuple(hands),
        piles=tuple(piles),
        deck=deck,
        scores=tuple(p["score"] for p in view["players"]),
        active=active,
        phase=phase,
        play=play,
        drawn=drawn,
    )


def evaluate(state: DracoState) -> tuple[float, ...]:
    track = track_for(state.players)
    values = [
        state.scores[seat] + POSITION_WEIGHT * track[state.positions[state.rider_index(seat)]].value
        for seat in range(state.players)
    ]
    return margin_rewards(values, _SCALE)


def rollout(state: DracoState, rng: random.Random) -> tuple[float, ...]:
    """Greedy turns on the fast table (``draco_playout``), then the outcome or ``evaluate``'s
    measure."""
    table = playout(state, rng, _rollout_turns(state.players), _ROLLOUT_EXPLORE)
    if table.over:
        top = max(table.scores)
        return tuple(1.0 if score == top else 0.0 for score in table.scores)
    return margin_rewards(table.margins(), _SCALE)


BOT_GAME = BotGame(determinise=determinise, evaluate=evaluate, playout_depth=6, rollout=rollout)


def _rollout_turns(players: int) -> int:
    return -(-_ROLLOUT_TURNS // players) * players


def _counted_below_tops(obs: Observation) -> Counter[Card]:
    """The cards played or discarded since the last reshuffle: all now lie in the piles."""
    counted: Counter[Card] = Counter()
    for event in obs.log:
        if event["kind"] in _PUT_ON_PILES:
            counted[_card(event["data"])] += 1
        elif event["kind"] == "reshuffled":
            counted.clear()  # every card but the tops went into the new draw pile
    return counted


def _card(raw: dict[str, Any]) -> Card:
    return Card.of(DRAGON_BY_ID[raw["dragon"]], int(raw["value"]))


def _take(pool: list[Card], n: int) -> list[Card]:
    """Up to ``n`` cards off the end of ``pool``."""
    n = max(0, min(n, len(pool)))
    taken = pool[len(pool) - n :]
    del pool[len(pool) - n :]
    return taken
