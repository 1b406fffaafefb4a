"""The rules of Draco (spec §3-§5): setup, legal moves, applying a decision, the end.

Each decision is one move: ``play:<dragon>:<value>``, ``mount:keep`` / ``mount:take``,
``discard:<dragon>:<value>`` and ``confirm`` (which draws). ``legal_moves`` is the single truth:
``apply`` accepts exactly those moves and names the reason for anything else.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from itertools import chain

from app.engine.protocol import CONFIRM, Event, IllegalMove, Move, Options, Outcome, Seat
from app.engine.rng import Rng
from app.games.draco.board import (
    ALL_CARDS,
    DRAGON_BY_ID,
    DRAGONS,
    GAME_END_SUMMIT_DRAGONS,
    HAND_SIZE,
    SMALL_SCORING_LIMIT,
    Card,
    Kind,
    Space,
    last_index,
)
from app.games.draco.state import DracoState, Phase, Play, ScoringKind

MIN_PLAYERS = 2
MAX_PLAYERS = 5

KEEP = Move("mount", ("keep",))
TAKE = Move("mount", ("take",))
PLAY_MOVES: dict[Card, Move] = {c: Move("play", (c.dragon.value, str(c.value))) for c in set(ALL_CARDS)}
DISCARD_MOVES: dict[Card, Move] = {c: Move("discard", (c.dragon.value, str(c.value))) for c in set(ALL_CARDS)}
_FULL_DECK = dict(Counter(ALL_CARDS))


def setup(players: int, options: Options, rng: Rng) -> DracoState:
    """Spec §3: shuffle all 110 cards, riding cards of distinct colours from the top, six each."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise IllegalMove(f"Draco is for {MIN_PLAYERS} to {MAX_PLAYERS} players")
    deck = list(rng.shuffled(ALL_CARDS))
    piles: list[tuple[Card, ...]] = []
    taken: set[int] = set()
    for _seat in range(players):
        pick = next(i for i, card in enumerate(deck) if card.dragon_index not in taken)
        card = deck.pop(pick)
        taken.add(card.dragon_index)
        piles.append((card,))
    hands = tuple(tuple(sorted(deck[HAND_SIZE * s : HAND_SIZE * (s + 1)])) for s in range(players))
    return DracoState(
        players=players,
        positions=(0,) * len(DRAGONS),
        hands=hands,
        piles=tuple(piles),
        deck=tuple(deck[HAND_SIZE * players :]),
        scores=(0,) * players,
        active=0,
        phase=Phase.PLAY,
    )


def to_act(state: DracoState) -> frozenset[Seat]:
    return frozenset() if state.phase is Phase.OVER else frozenset({state.active})


def legal_moves(state: DracoState, seat: Seat) -> list[Move]:
    """Every decision ``seat`` may take now, in a fixed order (cards by dragon, then value)."""
    if seat != state.active or state.phase is Phase.OVER:
        return []
    if state.phase is Phase.PLAY:
        return [PLAY_MOVES[c] for c in sorted(set(state.hands[seat]))]
    if state.phase is Phase.MOUNT:
        return [KEEP, TAKE]
    if state.phase is Phase.DISCARD:
        summit = [c for c in sorted(set(state.hands[seat])) if state.on_summit(c.dragon_index)]
        return [*(DISCARD_MOVES[c] for c in summit), CONFIRM]
    return [CONFIRM]


def apply(state: DracoState, seat: Seat, move: Move, rng: Rng) -> tuple[DracoState, list[Event]]:
    """Apply one legal decision; raise ``IllegalMove`` naming the reason otherwise."""
    _check(state, seat, move)
    if move.action == "play":
        return _play(state, seat, _card_arg(move))
    if move.action == "mount":
        return _mount(state, seat, take=move == TAKE)
    if move.action == "discard":
        return _discard(state, seat, _card_arg(move))
    return _confirm(state, seat, rng)


def outcome(state: DracoState) -> Outcome | None:
    """Spec §5: highest score wins, equal scores share the victory."""
    if state.phase is not Phase.OVER:
        return None
    return Outcome.from_scores(state.scores, {"winners": winners(state)})


def winners(state: DracoState) -> list[Seat]:
    best = max(state.scores)
    return [s for s, score in enumerate(state.scores) if score == best]


def cards_to_draw(state: DracoState, seat: Seat) -> int:
    """How many cards the seat's confirm draws (spec §4 step 5): none after a scoring while
    cards are left in the hand, else up to six; never more than the deck and the piles below
    their top cards hold. What the page's hint says is this number, not a guess."""
    if state.play is None or state.phase is not Phase.DISCARD:
        return 0
    hand = state.hands[seat]
    need = 0 if state.play.scored and hand else HAND_SIZE - len(hand)
    available = len(state.deck) + sum(len(pile) - 1 for pile in state.piles)
    return min(need, available)


def target_space(state: DracoState, card: Card) -> int:
    """Where playing ``card`` would move its dragon (movement past the last space is lost)."""
    return min(state.positions[card.dragon_index] + card.value, last_index(state.track))


def scoring_kind(state: DracoState, origin: int, target: int) -> ScoringKind | None:
    """Spec §4 step 3: the moved dragon's destination decides; summit only on first arrival."""
    return scoring_on(state.track, origin, target)


def scoring_on(track: Sequence[Space], origin: int, target: int) -> ScoringKind | None:
    """``scoring_kind`` on a bare track (the bots' fast playouts keep no ``DracoState``)."""
    kind = track[target].kind
    if kind is Kind.BLUE:
        return ScoringKind.SMALL
    if kind is Kind.GREEN:
        return ScoringKind.BIG
    if kind is Kind.RED and track[origin].kind is not Kind.RED:
        return ScoringKind.SUMMIT
    return None


def scoring_gain(kind: ScoringKind, value: int) -> int:
    """What a rider on a space worth ``value`` gains from a scoring of ``kind`` (before the rule
    that a loss applies only while the total stays non-negative)."""
    return value if kind is not ScoringKind.SMALL or value <= SMALL_SCORING_LIMIT else 0


def invariants(state: DracoState) -> None:
    """Everything that must hold in every reachable state (self-play calls this after each move)."""
    n = state.players
    phase = state.phase
    assert MIN_PLAYERS <= n <= MAX_PLAYERS
    assert len(state.positions) == len(DRAGONS)
    assert min(state.positions) >= 0 and max(state.positions) <= last_index(state.track)
    assert len(state.hands) == len(state.piles) == len(state.scores) == n
    assert 0 <= state.active < n
    for seat, hand in enumerate(state.hands):
        assert len(hand) <= HAND_SIZE, "a hand never holds more than six cards"
        assert hand == tuple(sorted(hand))
        if not hand:
            assert seat == state.active and phase is not Phase.PLAY, "nobody starts a turn without cards"
    assert all(state.piles), "every player rides a dragon"
    cards = Counter(chain(state.deck, *state.hands, *state.piles))
    if phase is Phase.MOUNT:
        assert state.play is not None
        cards[state.play.card] += 1
    # dict equality runs in C (Counter.__eq__ would loop in Python).
    assert dict.__eq__(cards, _FULL_DECK), "the 110 cards are conserved"
    tops = {pile[-1].dragon_index for pile in state.piles}
    assert len(tops) == n, "no two players ride the same dragon"
    assert min(state.scores) >= 0, "the -2 convention keeps totals >= 0"
    summit = state.summit_count()
    assert summit <= GAME_END_SUMMIT_DRAGONS
    if phase is Phase.ENDING or phase is Phase.OVER:
        assert summit == GAME_END_SUMMIT_DRAGONS
    elif summit == GAME_END_SUMMIT_DRAGONS:
        assert phase is Phase.MOUNT, "the third summit arrival ends the game"
    if state.drawn:
        assert len(state.drawn) == n
        for seat, new in enumerate(state.drawn):
            assert not Counter(new) - Counter(state.hands[seat]), "new cards are in the hand"
            assert not new or seat != state.active or phase is Phase.PLAY, "new until the next play"
    play = state.play
    assert (play is None) == (phase is Phase.PLAY or phase is Phase.OVER)
    if play is not None:
        assert state.positions[play.card.dragon_index] == play.target
        if phase is Phase.MOUNT:
            assert play.was_last and play.card.dragon_index not in tops


# --- private helpers -------------------------------------------------------------------------


def _check(state: DracoState, seat: Seat, move: Move) -> None:
    if state.phase is Phase.OVER:
        raise IllegalMove("the game is over")
    if seat != state.active:
        raise IllegalMove("it is not your turn")
    action, phase = move.action, state.phase
    if phase is Phase.ENDING and move != CONFIRM:
        raise IllegalMove("the third dragon has reached the summit: only confirm remains")
    if action == "play":
        if phase is Phase.MOUNT:
            raise IllegalMove("first choose: keep your dragon or take the moved one")
        if phase is not Phase.PLAY:
            raise IllegalMove("you have already played a card this turn")
        card = _card_arg(move)
        if card not in state.hands[seat]:
            raise IllegalMove(f"you have no {card.dragon.value} {card.value} in your hand")
    elif action == "mount":
        if phase is not Phase.MOUNT or move not in (KEEP, TAKE):
            raise IllegalMove("there is no dragon change to choose now")
    elif action == "discard":
        if phase is not Phase.DISCARD:
            raise IllegalMove("summit cards can be discarded only after your card play")
        card = _card_arg(move)
        if card not in state.hands[seat]:
            raise IllegalMove(f"you have no {card.dragon.value} {card.value} in your hand")
        if not state.on_summit(card.dragon_index):
            raise IllegalMove(f"the {card.dragon.value} dragon is not on the summit")
    elif move == CONFIRM:
        if phase is Phase.PLAY:
            raise IllegalMove("you must play a card first")
        if phase is Phase.MOUNT:
            raise IllegalMove("first choose: keep your dragon or take the moved one")
    else:
        raise IllegalMove(f"'{move}' is not a Draco move")
    if move not in legal_moves(state, seat):  # a safety net: the precise reasons above should cover all
        raise IllegalMove(f"'{move}' is not a legal move now")


def _card_arg(move: Move) -> Card:
    if len(move.args) != 2:
        raise IllegalMove(f"'{move}' must name a dragon and a value, like '{move.action}:red:3'")
    dragon = DRAGON_BY_ID.get(move.args[0])
    if dragon is None:
        raise IllegalMove(f"there is no dragon called {move.args[0]!r}")
    text = move.args[1]
    if text not in ("1", "2", "3", "4", "5"):
        raise IllegalMove(f"there is no card of value {text!r}")
    return Card.of(dragon, int(text))


def _set(
    items: tuple[tuple[Card, ...], ...], seat: Seat, value: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    return (*items[:seat], value, *items[seat + 1 :])


def _new_cards(state: DracoState, seat: Seat, cards: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
    """``state.drawn`` with the seat's new cards replaced; ``()`` when nobody has any."""
    drawn = _set(state.drawn or ((),) * state.players, seat, cards)
    return drawn if any(drawn) else ()


def _remove(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    i = hand.index(card)
    return (*hand[:i], *hand[i + 1 :])


def _dragon_piece(index: int) -> str:
    return f"dragon-{DRAGONS[index].value}"


def _space_piece(index: int) -> str:
    return f"space-{index}"


def _seat_piece(seat: Seat) -> str:
    """The seat's line in the player panel."""
    return f"seat-{seat}"


def _card_piece(card: Card) -> str:
    """A card in the hand (cards of one colour and value share the name)."""
    return f"card-{card.dragon.value}-{card.value}"


def _play(state: DracoState, seat: Seat, card: Card) -> tuple[DracoState, list[Event]]:
    """Spec §4 steps 1-2, then scoring unless the change is the player's choice."""
    d = card.dragon_index
    origin = state.positions[d]
    target = target_space(state, card)
    was_last = state.is_last(d)
    positions = (*state.positions[:d], target, *state.positions[d + 1 :])
    hands = _set(state.hands, seat, _remove(state.hands[seat], card))
    if state.drawn_by(seat):
        state = replace(state, drawn=_new_cards(state, seat, ()))
    piece = _dragon_piece(d)
    name = DRAGONS[d].value
    events = [
        Event(
            "dragon_moved",
            {
                "seat": seat,
                "dragon": name,
                "value": card.value,
                "from": origin,
                "to": target,
                "lost": origin + card.value - target,
                "space_value": state.track[target].value,
                "space_kind": state.track[target].kind.value,
            },
            pieces=(piece, _space_piece(origin), _space_piece(target)),
        )
    ]
    own = state.rider_index(seat)
    rider = state.riders().get(d)
    pile = state.piles[seat]
    if rider is not None and rider != seat:
        # (a) Another player rides it: nobody changes; the card goes under the own pile.
        piles = _set(state.piles, seat, (card, *pile))
        events.append(
            Event(
                "rider_kept",
                {
                    "seat": seat,
                    "dragon": DRAGONS[own].value,
                    "moved": name,
                    "reason": "ridden",
                    "rider": rider,
                },
                pieces=(piece, _seat_piece(seat)),
            )
        )
    elif d == own:
        # (b) The own dragon: stay on it, card on top.
        piles = _set(state.piles, seat, (*pile, card))
        events.append(
            Event(
                "rider_kept",
                {"seat": seat, "dragon": name, "moved": name, "reason": "own", "rider": seat},
                pieces=(piece, _seat_piece(seat)),
            )
        )
    elif not was_last:
        # (c) Unridden and not last: the player must switch to it.
        piles = _set(state.piles, seat, (*pile, card))
        events.append(_changed(seat, d, own, chosen=False))
    else:
        # (d) Unridden and last (ties included): the player chooses; scoring waits.
        events.append(
            Event(
                "mount_offered",
                {"seat": seat, "dragon": name, "own": DRAGONS[own].value},
                pieces=(piece, _dragon_piece(own), _seat_piece(seat)),
            )
        )
        play = Play(card, origin, target, was_last)
        return replace(state, positions=positions, hands=hands, play=play, phase=Phase.MOUNT), events
    play = Play(card, origin, target, was_last)
    moved = replace(state, positions=positions, hands=hands, piles=piles, play=play, phase=Phase.DISCARD)
    return _score(moved, events)


def _changed(seat: Seat, dragon: int, previous: int, *, chosen: bool) -> Event:
    return Event(
        "rider_changed",
        {
            "seat": seat,
            "dragon": DRAGONS[dragon].value,
            "previous": DRAGONS[previous].value,
            "chosen": chosen,
        },
        pieces=(_dragon_piece(dragon), _dragon_piece(previous), _seat_piece(seat)),
    )


def _mount(state: DracoState, seat: Seat, *, take: bool) -> tuple[DracoState, list[Event]]:
    """Spec §4 step 2 (d): take (card on top) or keep (card under the own pile)."""
    assert state.play is not None
    card = state.play.card
    pile = state.piles[seat]
    own = state.rider_index(seat)
    if take:
        piles = _set(state.piles, seat, (*pile, card))
        event = _changed(seat, card.dragon_index, own, chosen=True)
    else:
        piles = _set(state.piles, seat, (card, *pile))
        event = Event(
            "rider_kept",
            {
                "seat": seat,
                "dragon": DRAGONS[own].value,
                "moved": card.dragon.value,
                "reason": "kept",
                "rider": seat,
            },
            pieces=(_dragon_piece(own), _dragon_piece(card.dragon_index), _seat_piece(seat)),
        )
    return _score(replace(state, piles=piles), [event])


def _score(state: DracoState, events: list[Event]) -> tuple[DracoState, list[Event]]:
    """Spec §4 step 3: each player scores the space of the dragon he rides now."""
    play = state.play
    assert play is not None
    kind = scoring_kind(state, play.origin, play.target)
    if kind is None:
        return (state if state.phase is Phase.DISCARD else replace(state, phase=Phase.DISCARD)), events
    track = state.track
    gains: list[int] = []
    blocked: list[Seat] = []
    scores: list[int] = []
    for seat, score in enumerate(state.scores):
        value = track[state.positions[state.rider_index(seat)]].value
        gain = scoring_gain(kind, value)
        if score + gain < 0:
            # Yucata convention: a loss applies only if the total stays non-negative.
            gain = 0
            blocked.append(seat)
        gains.append(gain)
        scores.append(score + gain)
    final = kind is ScoringKind.SUMMIT and state.summit_count() >= GAME_END_SUMMIT_DRAGONS
    ridden = tuple(_dragon_piece(state.rider_index(s)) for s in range(state.players))
    trigger = _dragon_piece(play.card.dragon_index)
    events.append(
        Event(
            "scoring",
            {
                "kind": kind.value,
                "dragon": play.card.dragon.value,
                "space": play.target,
                "value": track[play.target].value,
                "gains": gains,
                "blocked": blocked,
                "scores": scores,
                "final": final,
            },
            pieces=(trigger, _space_piece(play.target), *(p for p in ridden if p != trigger)),
        )
    )
    return replace(
        state,
        scores=tuple(scores),
        play=replace(play, scored=True),
        phase=Phase.ENDING if final else Phase.DISCARD,
    ), events


def _discard(state: DracoState, seat: Seat, card: Card) -> tuple[DracoState, list[Event]]:
    """Spec §4 step 4: one summit card goes under the own pile."""
    hands = _set(state.hands, seat, _remove(state.hands[seat], card))
    piles = _set(state.piles, seat, (card, *state.piles[seat]))
    event = Event(
        "discarded",
        {"seat": seat, "dragon": card.dragon.value, "value": card.value},
        pieces=(_dragon_piece(card.dragon_index), _seat_piece(seat)),
    )
    return replace(state, hands=hands, piles=piles), [event]


def _confirm(state: DracoState, seat: Seat, rng: Rng) -> tuple[DracoState, list[Event]]:
    """Spec §4 step 5 and §5: draw (or not), pass the turn; or end the game."""
    if state.phase is Phase.ENDING:
        over = replace(state, phase=Phase.OVER, play=None)
        summit = [i for i in range(len(DRAGONS)) if state.on_summit(i)]
        event = Event(
            "game_over",
            {
                "scores": list(state.scores),
                "winners": winners(state),
                "summit": [DRAGONS[i].value for i in summit],
            },
            pieces=(*(_dragon_piece(i) for i in summit), *(_seat_piece(s) for s in winners(state))),
        )
        return over, [event]
    assert state.play is not None
    hand = state.hands[seat]
    need = cards_to_draw(state, seat)
    deck, piles = state.deck, state.piles
    events: list[Event] = []
    drawn: list[Card] = []
    while len(drawn) < need:
        if not deck:
            # Lazily, when a card must be drawn: all piles but their top cards are reshuffled.
            pool = [card for pile in piles for card in pile[:-1]]
            if not pool:
                break  # cannot happen (spec §4 step 5), but never loop forever
            deck = rng.shuffled(pool)
            piles = tuple((pile[-1],) for pile in piles)
            ridden = tuple(_dragon_piece(pile[-1].dragon_index) for pile in piles)
            events.append(Event("reshuffled", {"seat": seat, "count": len(deck)}, pieces=(*ridden, "deck")))
        take = min(need - len(drawn), len(deck))
        drawn.extend(deck[:take])
        deck = deck[take:]
    events.append(Event("drew", {"seat": seat, "count": len(drawn)}, pieces=(_seat_piece(seat), "deck")))
    if drawn:
        cards = [[c.dragon.value, c.value] for c in sorted(drawn)]
        # The drawn cards are named for their owner's eyes only (this event's audience).
        pieces = tuple(dict.fromkeys(_card_piece(c) for c in sorted(drawn)))
        data = {"seat": seat, "cards": cards}
        events.append(Event("drew_cards", data, audience=seat, reveals=True, pieces=pieces))
    nxt = replace(
        state,
        hands=_set(state.hands, seat, tuple(sorted((*hand, *drawn)))),
        drawn=_new_cards(state, seat, tuple(sorted(drawn))),
        piles=piles,
        deck=deck,
        active=(seat + 1) % state.players,
        phase=Phase.PLAY,
        play=None,
    )
    return nxt, events
