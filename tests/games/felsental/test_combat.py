"""Felsental rules: attacks, defence and wounds (spec §9), net and fury (§7 M4/M5), the German examples."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.engine.protocol import IllegalMove, Move
from app.games.felsental import FELSENTAL
from app.games.felsental.board import (
    Dwarf,
    Role,
)
from app.games.felsental.state import Phase
from tests.games.felsental.helpers import DRAGON_SEAT, DWARF_SEAT, kinds, legal, play, position, rng

# --- German examples (seed 004) ---------------------------------------------------------------


def test_example_crossbow_shot_blocked_by_a_defence_card() -> None:
    """Seed 004 example: crossbow shot, the dragon plays a defence card: no wounds, both discarded."""
    state = position(
        dwarf_hand=["DW15", "DW10"],
        dragon_hand=["DR34", "DR01"],
        active=Role.DWARVES,
        dwarves=("B3", "C1", "D3"),
    )
    state, _ = play(state, "play:DW15:crossbow")
    assert FELSENTAL.to_act(state) == {DRAGON_SEAT}
    assert legal(state, DRAGON_SEAT) == ["block:crossbowman:DR34", "accept"]
    state, _events = play(state, "block:crossbowman:DR34")
    assert state.dragon_wounds == (0, 0, 0, 0) and state.attack is None
    assert "DR34" in state.dragon.discard and "DW15" in state.dwarves.discard
    assert FELSENTAL.to_act(state) == {DWARF_SEAT} and state.actions == 1
    # The second action of the example: 2 dwarves attack (value 1), no defence card left: 2 wounds.
    state, _ = play(state, "play:DW10:attack2", "dwarf:warrior", "dwarf:trapper")
    assert FELSENTAL.to_act(state) == {DRAGON_SEAT}
    assert legal(state, DRAGON_SEAT) == ["accept"]  # asked although no defence card is held
    state, _ = play(state, "accept")
    assert state.dragon_wounds == (2, 0, 0, 0)


def test_example_fire_on_two_dwarves_one_defended() -> None:
    """Seed 004 example: fire 2 along a line with two dwarves; one is defended, the other takes 2."""
    state = position(dragon_hand=["DR27", "DR16"], dwarf_hand=["DW23", "DW01"], dwarves=("C5", "E1", "A1"))
    state, _ = play(state, "play:DR27:move", "to:C4")
    assert state.dragon_hex == "C4"
    state = replace(state, dwarf_hexes=("C2", "C1", "A1"))  # two dwarves in the line to the west
    state, _ = play(state, "play:DR16:fire", "dir:3")
    assert FELSENTAL.to_act(state) == {DWARF_SEAT}
    assert legal(state, DWARF_SEAT) == ["block:warrior:DW23", "block:crossbowman:DW23", "accept"]
    state, _ = play(state, "block:warrior:DW23")
    assert legal(state, DWARF_SEAT) == ["accept"]
    state, _ = play(state, "accept")
    assert state.dwarf_wounds == (0, 2, 0) and "DW23" in state.dwarves.discard


# --- §9 defence and wounds ---------------------------------------------------------------------


def test_two_attacks_blocked_separately() -> None:
    """§9.2: against attack2 the dragon may block 0, 1 or 2 attacks, one card each."""
    state = position(
        dwarf_hand=["DW01", "DW10"],
        dragon_hand=["DR34", "DR35"],
        active=Role.DWARVES,
        dwarves=("B3", "D1", "D3"),
    )
    state, _ = play(state, "play:DW10:attack2", "dwarf:warrior", "dwarf:trapper")
    moves = legal(state, DRAGON_SEAT)
    assert "block:warrior:DR34" in moves and "block:trapper:DR35" in moves and moves[-1] == "accept"
    state, _ = play(state, "block:warrior:DR34")
    assert "block:warrior:DR35" not in legal(state, DRAGON_SEAT)
    state, events = play(state, "block:trapper:DR35")  # every attack blocked: resolved at once
    assert state.attack is None and state.dragon_wounds == (0, 0, 0, 0)
    assert "dragon_wounded" not in kinds(events)  # no "the dragon took 0 wounds" line


def test_defence_card_with_two_options_is_discarded_whole() -> None:
    """§13.4: a two-option card used to defend is gone; its other option is lost."""
    state = position(dragon_hand=["DR03"], dwarf_hand=["DW08"], dwarves=("B3", "D1", "D4"))
    state, _ = play(state, "play:DR03:bite", "target:warrior", "block:warrior:DW08")
    assert "DW08" in state.dwarves.discard and state.dwarves.hand == () and state.dwarf_wounds == (0, 0, 0)


def test_defence_only_answers_attacks() -> None:
    """§13.5: playing defend in the own turn does nothing; fury and net cannot be defended."""
    state = position(dwarf_hand=["DW23"], active=Role.DWARVES)
    state, events = play(state, "play:DW23:defend")
    assert kinds(events) == ["card_wasted"] and state.attack is None
    state = position(dwarf_hand=["DW23"], dragon_hand=["DR34"], active=Role.DWARVES)
    state, _ = play(state, "fury")
    assert state.attack is None and FELSENTAL.to_act(state) == {DWARF_SEAT}


def test_defender_with_empty_hand_is_not_asked() -> None:
    """§7 M6 (our convention): hand size is public, so an empty hand skips the prompt."""
    state = position(dragon_hand=["DR03"], dwarf_hand=[], dwarves=("B3", "D1", "D4"))
    state, _ = play(state, "play:DR03:bite", "target:warrior")
    assert state.attack is None and state.dwarf_wounds == (2, 0, 0)


def test_dwarf_wound_overflow_is_lost_and_the_dwarf_dies() -> None:
    """§9.3/9.4, §13.9: wounds beyond a dwarf's fields are lost; a dead dwarf leaves the board."""
    state = position(dragon_hand=["DR01"], dwarves=("A2", "C2", "D4"), dwarf_wounds=(0, 3, 0))
    state, events = play(state, "play:DR01:bite", "target:crossbowman")
    assert state.dwarf_wounds == (0, 4, 0) and state.dwarf_hexes == ("A2", None, "D4")
    assert "dwarf_died" in kinds(events)


def test_dragon_scales_fill_first_then_the_dwarf_player_places() -> None:
    """§9.3, §13.9: scales first (automatic), then the dwarf player picks tracks with free fields."""
    state = position(
        dwarf_hand=["DW01"], active=Role.DWARVES, dwarves=("B3", "D1", "D4"), dragon_wounds=(3, 0, 0, 0)
    )
    state, _ = play(state, "play:DW01:attack1", "dwarf:warrior")
    assert state.dragon_wounds == (4, 0, 0, 0) and state.to_place == 1
    assert FELSENTAL.to_act(state) == {DWARF_SEAT}
    assert legal(state, DWARF_SEAT) == ["wound:flight", "wound:movement", "wound:fire"]
    assert "wound:scales" not in legal(state, DWARF_SEAT)
    state, _ = play(state, "wound:fire")
    assert state.dragon_wounds == (4, 0, 0, 1) and state.to_place == 0 and state.actions == 1


def test_full_tracks_cannot_take_wounds_and_forced_placement_is_automatic() -> None:
    """§13.9: no wounds on a full track; with one open track the wounds go there by themselves."""
    state = position(
        dwarf_hand=["DW01"], active=Role.DWARVES, dwarves=("B3", "D1", "D4"), dragon_wounds=(4, 2, 0, 1)
    )
    state, _ = play(state, "play:DW01:attack1", "dwarf:warrior")
    assert legal(state, DWARF_SEAT) == ["wound:movement", "wound:fire"]
    state, _ = play(state, "wound:movement")
    assert state.dragon_wounds == (4, 2, 1, 1) and state.to_place == 1
    assert legal(state, DWARF_SEAT) == ["wound:movement", "wound:fire"]
    forced = position(
        dwarf_hand=["DW01"], active=Role.DWARVES, dwarves=("B3", "D1", "D4"), dragon_wounds=(4, 2, 2, 0)
    )
    forced, _ = play(forced, "play:DW01:attack1", "dwarf:warrior")
    assert forced.dragon_wounds == (4, 2, 2, 2) and forced.to_place == 0


def test_dragon_death_ends_the_leg_and_overflow_is_lost() -> None:
    """§9.3, §11.1: damage beyond the 10 fields is lost; all fields wounded: the dwarves win."""
    state = position(
        dwarf_hand=["DW01", "DW02"],
        active=Role.DWARVES,
        dwarves=("B3", "D1", "D4"),
        dragon_wounds=(4, 2, 2, 1),
    )
    state, _events = play(state, "play:DW01:attack1", "dwarf:warrior")
    assert state.phase is Phase.OVER and state.results[0].winner is Role.DWARVES
    assert state.results[0].dragon_wounds == 10
    outcome = FELSENTAL.outcome(state)
    assert outcome is not None and outcome.ranks == (2, 1)


def test_wound_pool_of_one_card_is_placed_together() -> None:
    """§9.3: the unblocked wounds of one card are pooled, scales first, then placed."""
    state = position(
        dwarf_hand=["DW10"], active=Role.DWARVES, dwarves=("B3", "D1", "D3"), dragon_wounds=(3, 0, 0, 0)
    )
    state, _ = play(state, "play:DW10:attack2", "dwarf:warrior", "dwarf:trapper")
    assert state.dragon_wounds == (4, 0, 0, 0) and state.to_place == 1


# --- M4 net, M5 fury ---------------------------------------------------------------------------


def test_free_from_net_needs_both_actions() -> None:
    """§7 M4: only while netted and with both actions unused; then the net is back."""
    state = position(dragon_hand=["DR34"], netted=True)
    assert "free" in legal(state, DRAGON_SEAT)
    after, _events = play(state, "free")
    assert not after.netted and after.actions == 0 and legal(after, DRAGON_SEAT) == ["confirm"]
    used_one, _ = play(state, "draw")
    assert "free" not in legal(used_one, DRAGON_SEAT)
    with pytest.raises(IllegalMove, match="both actions"):
        FELSENTAL.apply(used_one, DRAGON_SEAT, Move("free"), rng())
    assert "free" not in legal(replace(state, netted=False), DRAGON_SEAT)


def test_trapper_may_net_again_after_the_escape() -> None:
    """§9 net: after M4 the trapper may net again."""
    state = position(dragon_hand=["DR34"], dwarf_hand=["DW20", "DW21"], netted=True)
    state, _ = play(state, "free", "confirm", "play:DW20:net")
    assert state.netted


def test_netted_dragon_with_full_movement_may_still_free_itself() -> None:
    """§13.11: M4 is allowed even when the movement track is full (it frees the dragon to fly)."""
    state = position(dragon_hand=["DR34"], netted=True, dragon_wounds=(4, 0, 2, 0))
    assert "free" in legal(state, DRAGON_SEAT)


def test_net_stays_when_the_trapper_dies() -> None:
    """§9 net [ASSUMPTION]: the net stays until M4 even if the trapper dies."""
    state = position(dragon_hand=["DR01"], dwarves=("A2", "D1", "D3"), dwarf_wounds=(0, 0, 3), netted=True)
    state, _ = play(state, "play:DR01:bite", "target:trapper")
    assert not state.is_alive(Dwarf.TRAPPER) and state.netted


def test_fury_gives_a_third_action_once_per_game() -> None:
    """§7 M5, §13.10: own turn, warrior alive, once; the warrior takes 1 wound; a third action."""
    state = position(dwarf_hand=["DW23", "DW24", "DW25"], active=Role.DWARVES)
    assert "fury" in legal(state, DWARF_SEAT)
    state, _events = play(state, "fury")
    assert state.actions == 3 and state.fury_used and state.dwarf_wounds == (1, 0, 0)
    assert "fury" not in legal(state, DWARF_SEAT)
    with pytest.raises(IllegalMove, match="once per game"):
        FELSENTAL.apply(state, DWARF_SEAT, Move("fury"), rng())
    state, _ = play(state, "play:DW23:defend", "play:DW24:defend", "play:DW25:defend")
    assert legal(state, DWARF_SEAT) == ["confirm"]


def test_fury_not_in_the_dragon_turn_nor_with_dead_warrior() -> None:
    """§13.10: own turn only; the warrior must be alive."""
    state = position(dragon_hand=["DR34"], dwarf_hand=["DW23"])
    assert "fury" not in legal(state, DRAGON_SEAT) and legal(state, DWARF_SEAT) == []
    dead = position(
        dwarf_hand=["DW23"], active=Role.DWARVES, dwarves=(None, "D1", "D4"), dwarf_wounds=(6, 0, 0)
    )
    assert "fury" not in legal(dead, DWARF_SEAT)


def test_fury_that_kills_the_warrior_still_gives_the_action() -> None:
    """§13.10: if the fury wound kills the warrior, the extra action is still gained."""
    state = position(dwarf_hand=["DW23"], active=Role.DWARVES, dwarf_wounds=(5, 0, 0))
    state, events = play(state, "fury")
    assert state.actions == 3 and not state.is_alive(Dwarf.WARRIOR) and state.dwarf_hexes[0] is None
    assert "dwarf_died" in kinds(events)


def test_fury_killing_the_last_dwarf_ends_the_leg() -> None:
    """§11.2: the fury wound counts like any other: the last dwarf dead, the dragon wins."""
    state = position(
        dwarf_hand=["DW23"], active=Role.DWARVES, dwarves=("A2", None, None), dwarf_wounds=(5, 4, 5)
    )
    state, _ = play(state, "fury")
    assert state.phase is Phase.OVER and state.results[0].winner is Role.DRAGON
