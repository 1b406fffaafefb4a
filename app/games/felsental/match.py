"""The match: setup, a fresh leg, the end checks of spec §11 and the result of spec §12."""

from __future__ import annotations

from dataclasses import replace

from app.engine.protocol import Event, IllegalMove, Options, Outcome, Tiebreak
from app.engine.rng import Rng
from app.games.felsental.board import (
    DECKS,
    DRAGON_START,
    DWARVES,
    STANDARD_START,
    START_HAND,
    CardId,
    Role,
)
from app.games.felsental.pieces import card_piece, role_piece
from app.games.felsental.state import (
    DwarfSetup,
    FelsState,
    LegResult,
    Phase,
    Side,
    evolve,
)


def setup(players: int, options: Options, rng: Rng) -> FelsState:
    """A new match: the first dragon is drawn at random, then leg 1 is dealt (spec §6, §12)."""
    if players != 2:
        raise IllegalMove("Duell im Felsental is a game for exactly two players")
    legs = int(options.get("legs", 2))
    empty = Side((), ())
    base = FelsState(
        legs=legs,
        dwarf_setup=DwarfSetup(options.get("dwarf_setup", DwarfSetup.STANDARD)),
        hand_exchange=bool(options.get("hand_exchange", False)),
        leg=1,
        first_dragon=rng.randbelow(2),
        results=(),
        phase=Phase.PLAY,
        dragon=empty,
        dwarves=empty,
        dragon_hex=DRAGON_START,
        dwarf_hexes=(None, None, None),
        dragon_wounds=(0, 0, 0, 0),
        dwarf_wounds=(0, 0, 0),
        netted=False,
        fury_used=False,
        active=Role.DRAGON,
        actions=1,
    )
    state, _ = start_leg(base, 1, rng)
    return state


def start_leg(state: FelsState, leg: int, rng: Rng) -> tuple[FelsState, list[Event]]:
    """Fresh figures, tableaus and decks; the dragon opens with one action (spec §6, §7)."""
    sides = {}
    events: list[Event] = []
    state = evolve(state, leg=leg)
    for role in Role:
        deck = tuple(c.id for c in DECKS[role])
        sides[role], drawn = draw_cards(Side((), deck), START_HAND, rng)
        events.append(private_draw(state, role, drawn))
    free = state.dwarf_setup is DwarfSetup.FREE
    hexes = (None, None, None) if free else tuple(STANDARD_START[d] for d in DWARVES)
    if state.hand_exchange:
        phase, active = Phase.EXCHANGE, Role.DRAGON
    elif free:
        phase, active = Phase.PLACE, Role.DWARVES
    else:
        phase, active = Phase.PLAY, Role.DRAGON
    state = replace(
        state,
        phase=phase,
        dragon=sides[Role.DRAGON],
        dwarves=sides[Role.DWARVES],
        dragon_hex=DRAGON_START,
        dwarf_hexes=(hexes[0], hexes[1], hexes[2]),
        dragon_wounds=(0, 0, 0, 0),
        dwarf_wounds=(0, 0, 0),
        netted=False,
        fury_used=False,
        active=active,
        actions=1,
        play=None,
        attack=None,
        to_place=0,
    )
    start = Event(
        "leg_started", {"leg": leg, "dragon": state.dragon_seat}, pieces=("dragon", role_piece(Role.DRAGON))
    )
    return state, [start, *events]


def draw_cards(side: Side, count: int, rng: Rng) -> tuple[Side, tuple[CardId, ...]]:
    deck = list(side.deck)
    drawn = tuple(deck.pop(rng.randbelow(len(deck))) for _ in range(min(count, len(deck))))
    return Side(tuple(sorted(side.hand + drawn)), tuple(deck), side.discard), drawn


def private_draw(state: FelsState, role: Role, drawn: tuple[CardId, ...]) -> Event:
    pieces = tuple(card_piece(c) for c in drawn)
    return Event("cards_drawn", {"role": str(role), "cards": list(drawn)}, state.seat_of(role), True, pieces)


def check_end(state: FelsState, events: list[Event], rng: Rng) -> tuple[FelsState, list[Event]]:
    """The end checks of §11 in order, once nothing is half resolved; then leg 2 or the match end."""
    if not state.quiet or state.phase is not Phase.PLAY:
        return state, events
    if state.dragon_dead:
        winner = Role.DWARVES
        why = "dragon_dead"
    elif not state.alive():
        winner, why = Role.DRAGON, "dwarves_dead"
    elif not state.dwarves.has_cards:
        winner, why = Role.DRAGON, "dwarves_out_of_cards"
    else:
        return state, events
    result = LegResult(state.dragon_seat, winner, sum(state.dragon_wounds), sum(state.dwarf_wounds))
    state = evolve(state, results=(*state.results, result))
    events = [
        *events,
        Event(
            "leg_won",
            {
                "leg": state.leg,
                "winner": str(winner),
                "seat": result.winner_seat(),
                "reason": why,
                "dragon_wounds": result.dragon_wounds,
                "dwarf_wounds": result.dwarf_wounds,
            },
            pieces=(role_piece(winner),),
        ),
    ]
    if len(state.results) < state.legs:
        state, more = start_leg(state, state.leg + 1, rng)
        return state, events + more
    state = evolve(state, phase=Phase.OVER)
    final = outcome(state)
    assert final is not None
    return state, [*events, Event("match_over", {"ranks": list(final.ranks), **final.summary})]


def match_score(state: FelsState) -> tuple[tuple[int, int], tuple[int, int]]:
    """(legs won, wounds inflicted) per seat so far."""
    legs = tuple(sum(1 for r in state.results if r.winner_seat() == s) for s in (0, 1))
    wounds = tuple(sum(r.inflicted_by(s) for r in state.results) for s in (0, 1))
    return (legs[0], legs[1]), (wounds[0], wounds[1])


def outcome(state: FelsState) -> Outcome | None:
    """After the whole match: legs won, then wounds inflicted over both legs; else a draw (§12)."""
    if state.phase is not Phase.OVER:
        return None
    legs, wounds = match_score(state)
    key = [(legs[s], wounds[s]) if legs[0] == legs[1] else (legs[s], 0) for s in (0, 1)]
    ranks = tuple(1 + sum(1 for other in key if other > mine) for mine in key)
    summary = {"legs": list(legs), "wounds": list(wounds), "tiebreak": legs[0] == legs[1]}
    return Outcome(
        (float(legs[0]), float(legs[1])),
        ranks,
        summary,
        score_label="legs_won",
        tiebreaks=(Tiebreak("wounds_inflicted", wounds),),
    )
