"""Fast Draco playouts: the rules of a turn (spec §4, §5) on plain lists, played greedily.

A playout needs only the next position and the greedy choice, thousands of times a decision;
the engine's ``apply`` (validation, events, frozen copies) and the greedy player built on it
cost most of a search. ``playout`` turns a sampled ``DracoState`` into a mutable table once
and plays whole turns on it with the greedy player of ``app.games.draco.bot`` (same values, same
tie order), so a playout costs about what one engine move did. Piles keep only their top (the
ridden dragon) and one shared heap of the cards below, which is all a reshuffle needs.
``tests/bots/test_draco_playout.py`` checks the table against the engine move by move.
"""

from __future__ import annotations

import random

from app.games.draco.board import (
    GAME_END_SUMMIT_DRAGONS,
    HAND_SIZE,
    Card,
    Kind,
    track_for,
)
from app.games.draco.bot import POSITION_WEIGHT
from app.games.draco.rules import scoring_gain, scoring_on
from app.games.draco.state import DracoState, Phase, ScoringKind


class Table:
    """A Draco position to play on: mutable, no events, piles reduced to their tops."""

    __slots__ = (
        "below",
        "deck",
        "hands",
        "over",
        "players",
        "positions",
        "riders",
        "scores",
        "tops",
        "track",
        "values",
    )

    def __init__(self, state: DracoState) -> None:
        self.players = state.players
        self.track = track_for(state.players)
        self.values = [space.value for space in self.track]
        self.positions = list(state.positions)
        self.hands = [list(hand) for hand in state.hands]
        self.tops = [pile[-1] for pile in state.piles]
        self.riders = [card.dragon_index for card in self.tops]
        self.below = [card for pile in state.piles for card in pile[:-1]]
        self.deck = list(state.deck)
        self.scores = list(state.scores)
        self.over = state.phase is Phase.OVER

    def margins(self) -> list[float]:
        """Score plus a quarter of the own space, per seat (what ``evaluate`` compares)."""
        return [
            self.scores[s] + POSITION_WEIGHT * self.values[self.positions[self.riders[s]]]
            for s in range(self.players)
        ]


def playout(state: DracoState, rng: random.Random, turns: int, explore: float) -> Table:
    """The table after finishing the turn under way and ``turns`` more (or at the game's end).

    Every decision is the greedy one, except that a card is played at random with probability
    ``explore`` (the playouts then do not all follow one line)."""
    table = Table(state)
    if table.over:
        return table
    seat = state.active
    if state.phase is Phase.PLAY:
        _turn(table, seat, rng, explore)
    elif state.play is not None:
        play = state.play
        if state.phase is Phase.MOUNT:
            take = _prefers_take(table, seat, play.card.dragon_index, play.target, play.origin)
            scored = _mount_and_score(table, seat, play.card, play.origin, take)
        else:
            scored = play.scored
            if state.phase is Phase.ENDING:
                table.over = True
        if not table.over:
            _finish_turn(table, seat, scored, rng)
    for _ in range(turns):
        if table.over:
            break
        seat = (seat + 1) % table.players
        _turn(table, seat, rng, explore)
    return table


# --- private helpers -------------------------------------------------------------------------


def _turn(table: Table, seat: int, rng: random.Random, explore: float) -> None:
    hand = table.hands[seat]
    explored = explore and rng.random() < explore
    card = hand[rng.randrange(len(hand))] if explored else _greedy_card(table, seat)
    hand.remove(card)
    d = card.dragon_index
    origin = table.positions[d]
    was_last = origin == min(table.positions)
    target = min(origin + card.value, len(table.track) - 1)
    table.positions[d] = target
    if table.riders[seat] == d:
        take = True  # the own dragon: the card goes on top, the rider stays
    elif d in table.riders:
        take = False  # ridden by another: nobody changes, the card goes below
    elif not was_last:
        take = True  # unridden and not last: the player must switch
    else:
        take = _prefers_take(table, seat, d, target, origin)
    scored = _mount_and_score(table, seat, card, origin, take)
    if not table.over:
        _finish_turn(table, seat, scored, rng)


def _greedy_card(table: Table, seat: int) -> Card:
    """``bot.choose`` in the play step: the best value after the card (and the better of keep
    and take where that is offered); ties go to the first card in sorted order."""
    best: Card | None = None
    best_value = 0.0
    positions = table.positions
    lowest = min(positions)
    last = len(table.track) - 1
    for card in sorted(set(table.hands[seat])):
        d = card.dragon_index
        origin = positions[d]
        target = min(origin + card.value, last)
        positions[d] = target
        if d in table.riders:
            value = _value_after(table, seat, table.riders[seat], origin, target)
        elif origin != lowest:
            value = _value_after(table, seat, d, origin, target)
        else:
            value = max(
                _value_after(table, seat, table.riders[seat], origin, target),
                _value_after(table, seat, d, origin, target),
            )
        positions[d] = origin
        if best is None or value > best_value:
            best, best_value = card, value
    assert best is not None, "nobody starts a turn without cards"
    return best


def _prefers_take(table: Table, seat: int, dragon: int, target: int, origin: int) -> bool:
    """The mount choice of ``bot.choose``: take only if strictly better (keep comes first)."""
    keep = _value_after(table, seat, table.riders[seat], origin, target)
    return _value_after(table, seat, dragon, origin, target) > keep


def _value_after(table: Table, seat: int, ride: int, origin: int, target: int) -> float:
    """The greedy value for ``seat`` riding ``ride`` once the scoring of a move to ``target`` is
    done (``table.positions`` already shows the move)."""
    values = table.values
    kind = scoring_on(table.track, origin, target)
    scores = table.scores
    mine = scores[seat]
    best_other = -1_000_000.0
    for other in range(table.players):
        dragon = ride if other == seat else table.riders[other]
        value = values[table.positions[dragon]]
        score = scores[other] + _gain(kind, value, scores[other])
        if other == seat:
            mine = score
        elif score > best_other:
            best_other = score
    return mine - best_other + POSITION_WEIGHT * values[table.positions[ride]]


def _mount_and_score(table: Table, seat: int, card: Card, origin: int, take: bool) -> bool:
    """Put the played card on top (``take``) or below, then score; whether a scoring fired."""
    if take:
        table.below.append(table.tops[seat])
        table.tops[seat] = card
        table.riders[seat] = card.dragon_index
    else:
        table.below.append(card)
    target = table.positions[card.dragon_index]
    kind = scoring_on(table.track, origin, target)
    if kind is None:
        return False
    scores = table.scores
    for other in range(table.players):
        scores[other] += _gain(kind, table.values[table.positions[table.riders[other]]], scores[other])
    if kind is ScoringKind.SUMMIT and _summit_count(table) >= GAME_END_SUMMIT_DRAGONS:
        table.over = True
    return True


def _finish_turn(table: Table, seat: int, scored: bool, rng: random.Random) -> None:
    """Discard summit cards the way the greedy bot does (all of them, only if that empties the
    hand), then draw up to six unless a scoring fired and cards are left (spec §4 steps 4-5)."""
    hand = table.hands[seat]
    if hand and all(table.track[table.positions[c.dragon_index]].kind is Kind.RED for c in hand):
        table.below.extend(hand)
        hand.clear()
    if scored and hand:
        return
    deck = table.deck
    while len(hand) < HAND_SIZE:
        if not deck:
            if not table.below:
                return
            deck.extend(table.below)
            table.below.clear()
            rng.shuffle(deck)
        take = min(HAND_SIZE - len(hand), len(deck))
        hand.extend(deck[:take])
        del deck[:take]


def _gain(kind: ScoringKind | None, value: int, score: int) -> int:
    if kind is None:
        return 0
    gain = scoring_gain(kind, value)
    return gain if score + gain >= 0 else 0  # a loss applies only if the total stays >= 0


def _summit_count(table: Table) -> int:
    track = table.track
    return sum(1 for p in table.positions if track[p].kind is Kind.RED)
