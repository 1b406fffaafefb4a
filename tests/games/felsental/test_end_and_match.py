"""Felsental rules: out of cards (spec §10), the end of a leg (§11) and the two-leg match (§12)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.engine.protocol import IllegalMove, Move
from app.games.felsental import FELSENTAL
from app.games.felsental.board import (
    Role,
)
from app.games.felsental.state import Phase
from tests.games.felsental.helpers import DRAGON_SEAT, DWARF_SEAT, kinds, legal, play, position, rng

# --- §10 out of cards, §11 end -----------------------------------------------------------------


def test_dragon_out_of_cards_is_skipped_even_when_netted() -> None:
    """§10, §13.13: the dragon without cards misses every turn (not even M4); the dwarves go on."""
    state = position(
        dwarf_hand=["DW23", "DW24"], dragon_hand=[], dragon_deck=[], active=Role.DWARVES, netted=True
    )
    state, events = play(state, "draw", "draw", "confirm")
    assert "dragon_skipped" in kinds(events)
    assert state.active is Role.DWARVES and state.actions == 2 and FELSENTAL.to_act(state) == {DWARF_SEAT}


def test_dragon_without_cards_cannot_defend() -> None:
    """§10: the dragon out of cards cannot defend: attacks hit at once."""
    state = position(
        dwarf_hand=["DW01"], dragon_hand=[], dragon_deck=[], active=Role.DWARVES, dwarves=("B3", "D1", "D4")
    )
    state, _ = play(state, "play:DW01:attack1", "dwarf:warrior")
    assert state.dragon_wounds == (2, 0, 0, 0) and FELSENTAL.to_act(state) == {DWARF_SEAT}


def test_dwarves_out_of_cards_lose_after_the_last_card_resolves() -> None:
    """§11.3: the dwarves' last card played: the dragon wins once it is resolved."""
    state = position(dwarf_hand=["DW34"], dwarf_deck=[], active=Role.DWARVES)
    state, _ = play(state, "play:DW34:move1")
    assert state.phase is Phase.PLAY  # the card is still being resolved
    state, events = play(state, "dwarf:warrior", "to:B3")
    assert state.phase is Phase.OVER and state.results[0].winner is Role.DRAGON
    assert events[-2].data["reason"] == "dwarves_out_of_cards"


def test_last_dwarf_card_that_kills_the_dragon_wins_for_the_dwarves() -> None:
    """§11: the last card is resolved first; the end checks run in order (dragon dead first)."""
    state = position(
        dwarf_hand=["DW01"],
        dwarf_deck=[],
        active=Role.DWARVES,
        dwarves=("B3", "D1", "D4"),
        dragon_wounds=(4, 2, 2, 0),
    )
    state, _events = play(state, "play:DW01:attack1", "dwarf:warrior")
    assert state.results[0].winner is Role.DWARVES


def test_last_dwarf_card_used_as_defence_ends_the_leg() -> None:
    """§11.3, §13.14: the dwarves' last card used to defend the dragon's attack: the dragon wins."""
    state = position(
        dragon_hand=["DR03"], dragon_deck=[], dwarf_hand=["DW23"], dwarf_deck=[], dwarves=("B3", "D1", "D4")
    )
    state, _ = play(state, "play:DR03:bite", "target:warrior", "block:warrior:DW23")
    assert state.phase is Phase.OVER and state.results[0].winner is Role.DRAGON


def test_all_dwarves_dead_wins_for_the_dragon() -> None:
    """§11.2."""
    state = position(dragon_hand=["DR16"], dwarves=("C4", None, None), dwarf_wounds=(5, 4, 5))
    state, _ = play(state, "play:DR16:fire", "dir:0")
    assert state.results[0].winner is Role.DRAGON and state.results[0].dwarf_wounds == 15


def test_leg_record_counts_wounds_on_both_tableaus() -> None:
    """§11 record: all markers on each tableau, the fury wound included."""
    state = position(
        dragon_hand=["DR03"],
        dwarf_hand=["DW23"],
        dwarf_deck=[],
        dwarves=("B3", "D1", "D4"),
        dragon_wounds=(4, 1, 0, 0),
        dwarf_wounds=(1, 2, 0),
        fury_used=True,
    )
    state, _ = play(state, "play:DR03:bite", "target:warrior", "block:warrior:DW23")
    (result,) = state.results
    assert (result.winner, result.dragon_wounds, result.dwarf_wounds) == (Role.DRAGON, 5, 3)
    assert result.inflicted_by(DRAGON_SEAT) == 3 and result.inflicted_by(DWARF_SEAT) == 5


# --- §12 the match ------------------------------------------------------------------------------


def test_two_legs_swap_roles_and_leg_two_starts_fresh() -> None:
    """§12: leg 2 swaps roles, fresh setup inside apply, the dragon again has 1 action; §13.1."""
    state = position(
        legs=2,
        dwarf_hand=["DW01"],
        active=Role.DWARVES,
        dwarves=("B3", "D1", "D4"),
        dragon_wounds=(4, 2, 2, 1),
    )
    state, events = play(state, "play:DW01:attack1", "dwarf:warrior", counter=7)
    assert state.phase is Phase.PLAY and state.leg == 2 and len(state.results) == 1
    assert state.dragon_seat == DWARF_SEAT and FELSENTAL.to_act(state) == {DWARF_SEAT}
    assert (
        state.actions == 1 and state.dragon_wounds == (0, 0, 0, 0) and state.dwarf_hexes == ("A2", "D1", "D4")
    )
    assert len(state.dragon.hand) == 4 and len(state.dwarves.hand) == 4 and not state.fury_used
    assert FELSENTAL.outcome(state) is None
    assert "leg_won" in kinds(events) and "leg_started" in kinds(events)
    drawn = [e for e in events if e.kind == "cards_drawn"]
    assert {e.audience for e in drawn} == {0, 1} and all(e.reveals for e in drawn)


@pytest.mark.parametrize(
    ("leg1", "leg2", "ranks", "tiebreak"),
    [
        # (dragon seat, winner, dragon wounds, dwarf wounds) per leg
        ((0, Role.DRAGON, 5, 15), (1, Role.DWARVES, 10, 3), (1, 2), False),  # seat 0 wins both
        ((0, Role.DRAGON, 6, 15), (1, Role.DRAGON, 4, 15), (2, 1), True),  # 1:1, seat 1 inflicted 6+15
        ((0, Role.DRAGON, 4, 15), (1, Role.DRAGON, 4, 15), (1, 1), True),  # 1:1, 19:19: a draw
    ],
)
def test_match_result_by_legs_then_wounds(leg1: tuple, leg2: tuple, ranks: tuple, tiebreak: bool) -> None:  # type: ignore[type-arg]
    """§12: both legs won wins; at 1:1 the wounds inflicted over both legs; still equal: a draw."""
    from app.games.felsental.state import LegResult

    state = replace(position(legs=2), results=(LegResult(*leg1), LegResult(*leg2)), phase=Phase.OVER, leg=2)
    outcome = FELSENTAL.outcome(state)
    assert outcome is not None and outcome.ranks == ranks and outcome.summary["tiebreak"] is tiebreak


def test_single_leg_option_is_unrated_and_ends_after_one_leg() -> None:
    """§12: option legs=1 is a single unrated game."""
    option = next(o for o in FELSENTAL.info.options if o.key == "legs")
    assert option.choices == (2, 1) and option.default == 2 and option.rated is False
    state = FELSENTAL.setup(2, {"legs": 1}, rng())
    assert state.legs == 1


def test_outcome_only_after_the_whole_match() -> None:
    """§12: no outcome between the legs."""
    state = position(legs=2)
    assert FELSENTAL.outcome(state) is None


def test_opponent_has_no_moves_and_cannot_act() -> None:
    """Protocol: legal_moves is empty for the seat not to act; apply refuses it."""
    state = position(dragon_hand=["DR34"])
    assert legal(state, DWARF_SEAT) == []
    with pytest.raises(IllegalMove, match="not your turn"):
        FELSENTAL.apply(state, DWARF_SEAT, Move("draw"), rng())
