"""Felsental rules: every card option of both sides (spec §8)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.engine.protocol import IllegalMove, Move
from app.games.felsental import FELSENTAL
from app.games.felsental.board import (
    Dwarf,
    Role,
)
from tests.games.felsental.helpers import DRAGON_SEAT, DWARF_SEAT, kinds, legal, play, position, rng

# --- §8 card options -------------------------------------------------------------------------


def test_card_with_two_options_offers_both_and_uses_one() -> None:
    """§5, §8: a card shows one or two options; playing uses exactly one, then it is discarded."""
    state = position(dragon_hand=["DR07"], dwarves=("B3", "D1", "D4"))
    moves = legal(state, DRAGON_SEAT)
    assert "play:DR07:bite" in moves and "play:DR07:move" in moves and "play:DR07:fly" not in moves
    with pytest.raises(IllegalMove, match="no such option"):
        FELSENTAL.apply(state, DRAGON_SEAT, Move("play", ("DR07", "fly")), rng())
    state, _ = play(state, "play:DR07:move")
    assert state.dragon.discard[-1] == "DR07" and state.actions == 1
    assert "to:C4" in legal(state, DRAGON_SEAT) and "to:B3" not in legal(state, DRAGON_SEAT)


def test_card_not_in_hand_is_refused() -> None:
    state = position(dragon_hand=["DR07"])
    with pytest.raises(IllegalMove, match="not in your hand"):
        FELSENTAL.apply(state, DRAGON_SEAT, Move("play", ("DR01", "bite")), rng())


def test_dragon_walks_through_empty_hexes_only() -> None:
    """§8 movement, §13.15: step by step through empty hexes; figures block; may stop early."""
    state = position(dragon_hand=["DR27"], dragon_hex="C1", dwarves=("C2", "D1", "A1"))
    state, _ = play(state, "play:DR27:move")
    moves = legal(state, DRAGON_SEAT)
    assert "to:B1" in moves and "to:B2" in moves and "to:A1" not in moves and "to:C3" not in moves
    assert "to:C2" not in moves and "to:D2" not in moves  # D2 would need a step through C2 or D1
    state, events = play(state, "to:B2")
    assert state.dragon_hex == "B2" and events[0].pieces == ("dragon", "hex-C1", "hex-B2")


def test_no_target_means_the_card_is_wasted() -> None:
    """§8 general: an option that cannot take effect just discards the card."""
    state = position(dragon_hand=["DR27"], dragon_hex="C1", dwarves=("C2", "D1", "B1"))
    state, events = play(state, "play:DR27:move")
    assert kinds(events) == ["card_wasted"] and state.play is None and state.actions == 1


def test_done_keeps_the_figure_in_place() -> None:
    """§8 movement: the figure may not move at all; the card is still used up."""
    state = position(dragon_hand=["DR27"])
    state, _ = play(state, "play:DR27:move", "done")
    assert state.dragon_hex == "C3" and state.actions == 1 and "DR27" in state.dragon.discard


def test_fly_to_any_empty_hex() -> None:
    """§8 fly, §13.15: any empty hex, never an occupied one."""
    state = position(dragon_hand=["DR22"])
    state, _ = play(state, "play:DR22:fly")
    moves = legal(state, DRAGON_SEAT)
    assert "to:E1" in moves and "to:A3" in moves
    assert "to:A2" not in moves and "to:C3" not in moves and len(moves) == 19 - 4 + 1


def test_netted_dragon_cannot_move_or_fly() -> None:
    """§9 net: a netted dragon may not walk or fly (the cards are wasted) but may bite."""
    state = position(dragon_hand=["DR22", "DR27", "DR03"], dwarves=("B3", "D1", "D4"), netted=True)
    state, events = play(state, "play:DR22:fly")
    assert kinds(events) == ["card_wasted"] and state.dragon_hex == "C3"
    state, _ = play(state, "play:DR03:bite")
    assert "target:warrior" in legal(state, DRAGON_SEAT)


def test_lost_abilities_waste_their_cards() -> None:
    """§4, §9.4: a full track disables fly / move / fire; bite and defend stay."""
    hand = ["DR22", "DR27", "DR16", "DR03", "DR34"]
    cases = {"play:DR22:fly": (4, 2, 0, 0), "play:DR27:move": (4, 0, 2, 0), "play:DR16:fire": (4, 0, 0, 2)}
    for move, wounds in cases.items():
        state = position(dragon_hand=hand, dragon_wounds=wounds, dwarves=("C4", "D1", "D4"))
        _, events = play(state, move)
        assert kinds(events) == ["card_wasted"], move
        assert "play:DR03:bite" in legal(state, DRAGON_SEAT) and "play:DR34:defend" in legal(
            state, DRAGON_SEAT
        )


def test_bite_needs_an_adjacent_dwarf() -> None:
    """§8 bite: attack one adjacent dwarf; a far dwarf is no target."""
    state = position(dragon_hand=["DR03"], dwarf_hand=["DW01"], dwarves=("B3", "D1", "D4"))
    state, _ = play(state, "play:DR03:bite")
    assert legal(state, DRAGON_SEAT) == ["target:warrior", "done"]
    state, events = play(state, "target:warrior")
    assert FELSENTAL.to_act(state) == {DWARF_SEAT} and state.attack is not None
    assert "attack_declared" in kinds(events)


def test_fire_hits_every_dwarf_on_the_line() -> None:
    """§8 fire, §13.7: every dwarf on the line, also one behind another; lines from C3 have 2 hexes."""
    state = position(dragon_hand=["DR16"], dwarves=("C4", "C5", "D4"), dwarf_hand=["DW01"])
    state, _ = play(state, "play:DR16:fire")
    assert legal(state, DRAGON_SEAT) == [f"dir:{i}" for i in range(6)] + ["done"]
    state, _ = play(state, "dir:0")
    assert state.attack is not None and state.attack.dwarves == (Dwarf.WARRIOR, Dwarf.CROSSBOWMAN)
    state, _ = play(state, "accept")
    assert state.dwarf_wounds == (2, 2, 0)


def test_fire_line_from_the_edge_reaches_four_hexes() -> None:
    """§13.7: from the outer ring a line has up to 4 hexes."""
    state = position(dragon_hand=["DR15"], dragon_hex="C1", dwarves=("C5", "A1", "E1"))
    state, _ = play(state, "play:DR15:fire")
    assert "dir:3" not in legal(state, DRAGON_SEAT)  # nothing west of C1
    state, _ = play(state, "dir:0")
    assert state.dwarf_wounds == (3, 0, 0)  # dwarf hand empty: no prompt


def test_fire_into_an_empty_line_is_allowed() -> None:
    """§8 fire: an empty line is allowed; nothing happens."""
    state = position(dragon_hand=["DR16"])
    state, events = play(state, "play:DR16:fire", "dir:0")
    assert kinds(events)[-1] == "fire_missed" and state.attack is None and state.actions == 1


def test_crossbow_along_a_free_row_at_any_distance() -> None:
    """§8 crossbow, §13.8: same row, any distance, adjacent counts; only dwarves between block."""
    shot = position(
        dwarf_hand=["DW15"], dragon_hand=["DR34"], active=Role.DWARVES, dwarves=("A2", "C1", "D4")
    )
    after, events = play(shot, "play:DW15:crossbow")
    assert after.attack is not None and after.attack.dwarves == (Dwarf.CROSSBOWMAN,)
    blocked = replace(shot, dwarf_hexes=("C2", "C1", "D4"))
    after, events = play(blocked, "play:DW15:crossbow")
    assert kinds(events) == ["card_wasted"]
    adjacent = replace(shot, dwarf_hexes=("A2", "C2", "D4"))
    after, _ = play(adjacent, "play:DW15:crossbow")
    assert after.attack is not None
    off_row = replace(shot, dwarf_hexes=("A2", "D1", "D4"))
    after, events = play(off_row, "play:DW15:crossbow")
    assert kinds(events) == ["card_wasted"]


def test_dead_dwarf_no_longer_blocks_the_crossbow() -> None:
    """§9.4: a dead dwarf leaves the board and no longer blocks lines."""
    state = position(
        dwarf_hand=["DW15"],
        dragon_hand=["DR34"],
        active=Role.DWARVES,
        dwarves=(None, "C1", "D4"),
        dwarf_wounds=(6, 0, 0),
    )
    after, _ = play(state, "play:DW15:crossbow")
    assert after.attack is not None


def test_net_cannot_be_defended_and_only_one_at_a_time() -> None:
    """§8 net, §13.5: the dragon is netted at once, no defence; a second net has no effect."""
    state = position(dwarf_hand=["DW20", "DW21"], dragon_hand=["DR34"], active=Role.DWARVES)
    state, events = play(state, "play:DW20:net")
    assert state.netted and state.attack is None and FELSENTAL.to_act(state) == {DWARF_SEAT}
    assert "net_thrown" in kinds(events)
    state, events = play(state, "play:DW21:net")
    assert kinds(events) == ["card_wasted"]


def test_dead_trapper_nets_nothing_and_dead_crossbowman_shoots_nothing() -> None:
    """§13.12: cards of dead dwarves stay in the deck but have no effect."""
    state = position(
        dwarf_hand=["DW20", "DW15"], active=Role.DWARVES, dwarves=("A2", None, None), dwarf_wounds=(0, 4, 5)
    )
    for move in ("play:DW20:net", "play:DW15:crossbow"):
        _, events = play(state, move)
        assert kinds(events) == ["card_wasted"]


def test_dwarf_move1_walks_one_dwarf() -> None:
    """§8 move1: one dwarf walks up to N through empty hexes."""
    state = position(dwarf_hand=["DW34"], active=Role.DWARVES)
    state, _ = play(state, "play:DW34:move1")
    assert legal(state, DWARF_SEAT) == ["dwarf:warrior", "dwarf:crossbowman", "dwarf:trapper", "done"]
    state, _ = play(state, "dwarf:warrior")
    moves = legal(state, DWARF_SEAT)
    assert "to:B3" in moves and "to:C4" in moves and "to:C3" not in moves and "to:A2" not in moves
    state, _ = play(state, "to:C4")
    assert state.dwarf_hexes[0] == "C4" and state.play is None


def test_dwarf_move2_moves_two_distinct_dwarves() -> None:
    """§8 move2: one or two distinct dwarves, one after the other (the German example: 1 hex each)."""
    state = position(dwarf_hand=["DW37"], active=Role.DWARVES)
    state, _ = play(state, "play:DW37:move2", "dwarf:warrior", "to:B3")
    moves = legal(state, DWARF_SEAT)
    assert "dwarf:warrior" not in moves and "dwarf:crossbowman" in moves and "done" in moves
    state, _ = play(state, "dwarf:crossbowman", "to:D2")
    assert state.dwarf_hexes == ("B3", "D2", "D4") and state.play is None
    one, _ = play(
        position(dwarf_hand=["DW37"], active=Role.DWARVES),
        "play:DW37:move2",
        "dwarf:trapper",
        "to:D3",
        "done",
    )
    assert one.dwarf_hexes == ("A2", "D1", "D3") and one.play is None


def test_attack1_needs_an_adjacent_dwarf() -> None:
    """§8 attack1: the attacker stands next to the dragon."""
    state = position(
        dwarf_hand=["DW01"], active=Role.DWARVES, dwarves=("B3", "D1", "D4"), dragon_hand=["DR34"]
    )
    state, _ = play(state, "play:DW01:attack1")
    assert legal(state, DWARF_SEAT) == ["dwarf:warrior", "done"]
    state, _ = play(state, "dwarf:warrior")
    assert FELSENTAL.to_act(state) == {DRAGON_SEAT}
    assert legal(state, DRAGON_SEAT) == ["block:warrior:DR34", "accept"]


def test_attack2_with_one_adjacent_dwarf_is_one_attack() -> None:
    """§13.6: attack2 with one adjacent dwarf: one attack; a dwarf never attacks twice."""
    state = position(dwarf_hand=["DW10"], active=Role.DWARVES, dwarves=("B3", "D1", "D4"))
    state, _ = play(state, "play:DW10:attack2", "dwarf:warrior")
    assert state.dragon_wounds == (1, 0, 0, 0)


def test_attack2_may_use_one_of_two_adjacent_dwarves() -> None:
    """§8 attack2: 1 or 2 distinct attackers."""
    state = position(dwarf_hand=["DW10"], active=Role.DWARVES, dwarves=("B3", "D1", "D3"))
    state, _ = play(state, "play:DW10:attack2", "dwarf:warrior")
    assert legal(state, DWARF_SEAT) == ["dwarf:trapper", "attack"]
    state, _ = play(state, "attack")
    assert state.dragon_wounds == (1, 0, 0, 0)
