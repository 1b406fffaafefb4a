"""The per-seat view: the only place hidden information (hands, draw piles) is removed."""

from __future__ import annotations

from typing import Any

from app.engine.protocol import JSON, Seat
from app.games.felsental.board import (
    CARDS,
    DIRECTIONS,
    DRAGON_FIELDS,
    DWARF_FIELDS,
    DWARVES,
    HAND_LIMIT,
    HEXES,
    TRACKS,
    CardId,
    Opt,
    Role,
)
from app.games.felsental.geometry import crossbow_row, fire_line
from app.games.felsental.match import match_score
from app.games.felsental.rules import option_has_effect, to_act
from app.games.felsental.state import FelsState, Phase
from app.games.felsental.text import attack_line, option_label

HEX_SIZE = 40


def card_view(card: CardId) -> JSON:
    return {
        "id": card,
        "options": [
            {
                "opt": str(o.opt),
                "value": o.value,
                "label": {"en": option_label(o, "en"), "de": option_label(o, "de")},
            }
            for o in CARDS[card].options
        ],
    }


def view(state: FelsState, seat: Seat | None) -> JSON:
    """Everything public, plus the viewer's own hand; never a draw pile's content."""
    viewer_role = None if seat not in (0, 1) else state.role_of(seat)
    legs, wounds = match_score(state)
    occupants: dict[str, str] = {state.dragon_hex: "dragon"}
    for dwarf in DWARVES:
        hex_id = state.dwarf_hex(dwarf)
        if hex_id is not None:
            occupants[hex_id] = f"dwarf-{dwarf}"
    hexes = []
    for h in HEXES:
        x, y = h.pixel(HEX_SIZE)
        hexes.append({"id": h.id, "x": round(x, 2), "y": round(y, 2), "occupant": occupants.get(h.id)})
    cards: dict[str, Any] = {}
    for role in Role:
        side = state.side(role)
        cards[str(role)] = {
            "hand_size": len(side.hand),
            "deck_size": len(side.deck),
            "discard": [card_view(c) for c in side.discard],
            "seat": state.seat_of(role),
        }
    own = state.side(viewer_role) if viewer_role is not None else None
    over = state.phase is Phase.OVER
    return {
        "leg": state.leg,
        "legs": state.legs,
        "phase": str(state.phase),
        "over": over,
        "dragon_seat": state.dragon_seat,
        "dwarf_seat": state.seat_of(Role.DWARVES),
        "viewer_role": None if viewer_role is None else str(viewer_role),
        "active": str(state.active),
        "active_seat": state.seat_of(state.active),
        "actions": state.actions,
        "to_act": sorted(to_act(state)),
        "score": {"legs": list(legs), "wounds": list(wounds), "wounds_by_leg": _wounds_by_leg(state)},
        "results": [
            {
                "leg": i + 1,
                "dragon_seat": r.dragon_seat,
                "winner": str(r.winner),
                "winner_seat": r.winner_seat(),
                "dragon_wounds": r.dragon_wounds,
                "dwarf_wounds": r.dwarf_wounds,
            }
            for i, r in enumerate(state.results)
        ],
        "hex_size": HEX_SIZE,
        "hexes": hexes,
        "dragon": {
            "hex": state.dragon_hex,
            "netted": state.netted,
            "dead": state.dragon_dead,
            "tracks": [
                {
                    "track": str(t),
                    "fields": DRAGON_FIELDS[t],
                    "wounds": state.track(t),
                    "lost": state.track_full(t),
                }
                for t in TRACKS
            ],
        },
        "dwarves": [
            {
                "name": str(d),
                "hex": state.dwarf_hex(d),
                "wounds": state.wounds_of(d),
                "fields": DWARF_FIELDS[d],
                "alive": state.is_alive(d),
            }
            for d in DWARVES
        ],
        "netted": state.netted,
        "fury_used": state.fury_used,
        "cards": cards,
        "hand": None if own is None else [card_view(c) for c in own.hand],
        "without_effect": _without_effect(state, viewer_role),
        "must_discard": (
            own is not None and state.active is viewer_role and len(own.hand) > HAND_LIMIT and not over
        ),
        "play": _play_view(state),
        "attack": _attack_view(state),
        "to_place": state.to_place,
        "fire_lines": {str(i): list(fire_line(state, i)) for i in range(len(DIRECTIONS))},
        "crossbow_row": None if (row := crossbow_row(state)) is None else list(row),
    }


def _wounds_by_leg(state: FelsState) -> list[list[int]]:
    """Wounds each seat inflicted, leg by leg, the running leg included (the finished legs'
    totals in ``wounds`` are the tie-break; a board that showed only them read 0 while the
    tableaus were full of wounds)."""
    legs = [[r.inflicted_by(s) for s in (0, 1)] for r in state.results]
    if state.phase is not Phase.OVER and len(state.results) < state.leg:
        # The dragon player inflicts the wounds on the dwarf tableau, the dwarf player those on the dragon's.
        by_dragon, by_dwarves = sum(state.dwarf_wounds), sum(state.dragon_wounds)
        legs.append([by_dragon if s == state.dragon_seat else by_dwarves for s in (0, 1)])
    return legs


def _without_effect(state: FelsState, viewer_role: Role | None) -> list[str]:
    """The card options in the acting viewer's hand that would do nothing now (a crossbow with
    no dwarf in its row, a net on a netted dragon): the page says so before they are played."""
    if viewer_role is None or state.active is not viewer_role or state.phase is Phase.OVER:
        return []
    hand = state.side(viewer_role).hand
    return [
        f"play:{card}:{o.opt}"
        for card in hand
        for o in CARDS[card].options
        if o.opt is not Opt.DEFEND and not option_has_effect(state, o.opt, o.value)
    ]


def _play_view(state: FelsState) -> JSON | None:
    play = state.play
    if play is None:
        return None
    return {
        "card": card_view(play.card),
        "option": str(play.opt),
        "value": play.value,
        "selected": None if play.selected is None else str(play.selected),
        "moved": [str(d) for d in play.moved],
    }


def _attack_view(state: FelsState) -> JSON | None:
    attack = state.attack
    if attack is None:
        return None
    option = CARDS[attack.card].option(attack.opt)
    return {
        "by": str(attack.by),
        "card": card_view(attack.card),
        "option": str(attack.opt),
        "value": attack.value,
        "label": None
        if option is None
        else {"en": option_label(option, "en"), "de": option_label(option, "de")},
        "dwarves": [str(d) for d in attack.dwarves],
        # Who attacks whom as a sentence: the dwarves listed are the attacked or the attackers.
        "text": {
            loc: attack_line(loc, str(attack.by), [str(d) for d in attack.dwarves], option_label(option, loc))
            for loc in ("en", "de")
        }
        if option is not None
        else None,
        "blocks": [{"dwarf": str(d), "card": card_view(c)} for d, c in attack.blocks],
        "direction": attack.direction,
        "line": [] if attack.direction is None else list(fire_line(state, attack.direction)),
    }
