"""A tiny game with hidden hands, draws and a confirm, for platform and engine tests.

Each seat holds three cards from a deck of 1..9 (twice). On a turn the seat plays one or
two cards (each pending, undoable), then confirms, which draws back to three (a reveal).
A seat with no cards in hand passes by confirming. The game ends when all hands are empty;
the highest total played wins.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.engine.protocol import (
    CONFIRM,
    JSON,
    Event,
    Game,
    GameInfo,
    IllegalMove,
    Move,
    Option,
    Options,
    Outcome,
    Seat,
)
from app.engine.rng import Rng

DECK = tuple(v for v in range(1, 10) for _ in range(2))


@dataclass(frozen=True, slots=True)
class ToyState:
    hands: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    played: tuple[int, ...]
    active: Seat
    plays_this_turn: int = 0


def setup(players: int, options: Options, rng: Rng) -> ToyState:
    deck = rng.shuffled(DECK)
    hands = tuple(tuple(sorted(deck[3 * i : 3 * i + 3])) for i in range(players))
    return ToyState(hands, deck[3 * players :], (0,) * players, 0)


def to_act(state: ToyState) -> frozenset[Seat]:
    return frozenset() if outcome(state) else frozenset({state.active})


def legal_moves(state: ToyState, seat: Seat) -> list[Move]:
    if seat not in to_act(state):
        return []
    moves = []
    if state.plays_this_turn < 2:
        moves = [Move("play", (str(v),)) for v in sorted(set(state.hands[seat]))]
    return [*moves, CONFIRM]


def apply(state: ToyState, seat: Seat, move: Move, rng: Rng) -> tuple[ToyState, list[Event]]:
    if move not in legal_moves(state, seat):
        raise IllegalMove(f"'{move}' is not allowed now")
    if move.action == "play":
        value = int(move.args[0])
        hand = list(state.hands[seat])
        hand.remove(value)
        hands = tuple(tuple(hand) if i == seat else h for i, h in enumerate(state.hands))
        played = tuple(p + value if i == seat else p for i, p in enumerate(state.played))
        event = Event("played", {"seat": seat, "value": value}, pieces=(f"card-{value}",))
        return replace(state, hands=hands, played=played, plays_this_turn=state.plays_this_turn + 1), [event]
    need = 3 - len(state.hands[seat])
    drawn, deck = state.deck[:need], state.deck[need:]
    hands = tuple(tuple(sorted(h + drawn)) if i == seat else h for i, h in enumerate(state.hands))
    events = [
        Event("drew", {"seat": seat, "count": len(drawn)}),
        Event("drew_cards", {"seat": seat, "cards": list(drawn)}, audience=seat, reveals=True),
    ]
    nxt = (seat + 1) % len(state.hands)
    return ToyState(hands, deck, state.played, nxt, 0), events


def view(state: ToyState, seat: Seat | None) -> JSON:
    return {
        "hand": list(state.hands[seat]) if seat is not None else None,
        "hand_sizes": [len(h) for h in state.hands],
        "deck_size": len(state.deck),
        "played": list(state.played),
        "active": state.active,
    }


def outcome(state: ToyState) -> Outcome | None:
    if any(state.hands) or state.deck:
        return None
    return Outcome.from_scores(state.played)


def timeout_move(state: ToyState, seat: Seat) -> Move:
    return legal_moves(state, seat)[0]


def describe(event: Event, locale: str) -> str:
    d = event.data
    if event.kind == "played":
        if locale == "en":
            return f"Seat {d['seat'] + 1} played {d['value']}"
        return f"Platz {d['seat'] + 1} spielt {d['value']}"
    if event.kind == "drew":
        return f"Seat {d['seat'] + 1} drew {d['count']}"
    return f"You drew {d['cards']}"


def format_position(state: ToyState) -> str:
    hands = "/".join("".join(map(str, h)) for h in state.hands)
    deck = "".join(map(str, state.deck))
    played = ",".join(map(str, state.played))
    return f"{hands} {deck or '-'} {played} {state.active} {state.plays_this_turn}"


def parse_position(text: str) -> ToyState:
    hands, deck, played, active, plays = text.split(" ")
    return ToyState(
        tuple(tuple(int(c) for c in h) for h in hands.split("/")),
        () if deck == "-" else tuple(int(c) for c in deck),
        tuple(int(p) for p in played.split(",")),
        int(active),
        int(plays),
    )


def invariants(state: ToyState) -> None:
    cards = sorted([*state.deck, *(c for h in state.hands for c in h)])
    assert len(cards) + sum(1 for _ in ()) <= len(DECK)
    assert all(len(h) <= 3 for h in state.hands)


TOY = Game(
    info=GameInfo(
        slug="toy",
        title={"en": "Toy cards", "de": "Spielkarten"},
        min_players=2,
        max_players=4,
        ruleset="toy-1",
        hidden_information=True,
        chance=True,
        options=(Option("short", False, (False, True), {"en": "Short game", "de": "Kurzes Spiel"}),),
    ),
    setup=setup,
    to_act=to_act,
    legal_moves=legal_moves,
    apply=apply,
    view=view,
    outcome=outcome,
    timeout_move=timeout_move,
    describe=describe,
    format_position=format_position,
    parse_position=parse_position,
    invariants=invariants,
)
