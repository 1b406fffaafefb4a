"""Duell im Felsental: every rule of the spec (rules/felsental.md) and the German examples."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.engine.protocol import CONFIRM, IllegalMove, Move
from app.games.felsental import FELSENTAL
from app.games.felsental.board import (
    CARDS,
    DECKS,
    DRAGON_START,
    HEX_BY_ID,
    HEXES,
    NEIGHBOURS,
    STANDARD_START,
    Dwarf,
    Role,
    between,
    distance,
)
from app.games.felsental.state import Phase
from tests.games.felsental.helpers import DRAGON_SEAT, DWARF_SEAT, kinds, legal, play, position, rng

# --- §3 board, §4 tableaus, §5 decks ---------------------------------------------------------


def test_board_has_nineteen_hexes_as_tabled() -> None:
    """§3: 19 hexes, rows of 3-4-5-4-3, the table's axial coordinates."""
    assert len(HEXES) == 19
    assert [sum(1 for h in HEXES if h.id[0] == row) for row in "ABCDE"] == [3, 4, 5, 4, 3]
    assert (HEX_BY_ID["A2"].q, HEX_BY_ID["A2"].r) == (1, -2)
    assert (HEX_BY_ID["D1"].q, HEX_BY_ID["D1"].r) == (-2, 1)
    assert (HEX_BY_ID["E3"].q, HEX_BY_ID["E3"].r) == (0, 2)
    assert set(NEIGHBOURS["C3"]) == {"B2", "B3", "C2", "C4", "D2", "D3"}
    assert len(NEIGHBOURS["A1"]) == 3


def test_designed_start_hexes_are_apart_and_out_of_line() -> None:
    """§3: start hexes pairwise 3 apart, 2 from the dragon, none in a row with it."""
    starts = list(STANDARD_START.values())
    assert all(distance(a, b) == 3 for a in starts for b in starts if a != b)
    assert all(distance(s, DRAGON_START) == 2 and between(s, DRAGON_START) is None for s in starts)


def test_decks_follow_the_designed_tables() -> None:
    """§5: 38 cards a side; ids and options as in the designed tables."""
    assert all(len(deck) == 38 for deck in DECKS.values())
    assert CARDS["DR01"].options[0].key == "bite:3"
    assert [o.key for o in CARDS["DR07"].options] == ["bite:1", "move:1"]
    assert [o.key for o in CARDS["DR38"].options] == ["defend"]
    assert [o.key for o in CARDS["DW13"].options] == ["attack2:1", "move2:1"]
    assert [o.key for o in CARDS["DW22"].options] == ["net", "defend"]
    assert sum(1 for c in DECKS[Role.DRAGON] if c.can_defend) == 15
    assert sum(1 for c in DECKS[Role.DWARVES] if c.can_defend) == 14


# --- §6 setup ------------------------------------------------------------------------------


def test_setup_deals_four_cards_and_places_figures() -> None:
    """§6.1/6.3: dragon on C3, standard dwarf hexes, 4 cards in hand and 34 in each pile."""
    state = FELSENTAL.setup(2, FELSENTAL.info.default_options(), rng())
    assert state.dragon_hex == "C3" and state.dwarf_hexes == ("A2", "D1", "D4")
    for role in Role:
        assert len(state.side(role).hand) == 4 and len(state.side(role).deck) == 34
    assert state.phase is Phase.PLAY and state.active is Role.DRAGON and state.actions == 1
    assert FELSENTAL.to_act(state) == {state.dragon_seat}


def test_first_dragon_is_drawn_at_random() -> None:
    """§12: the dragon player of leg 1 is chosen at random (both seats occur)."""
    seats = {FELSENTAL.setup(2, {}, rng(n)).dragon_seat for n in range(20)}
    assert seats == {0, 1}


def test_only_two_players() -> None:
    with pytest.raises(IllegalMove, match="exactly two"):
        FELSENTAL.setup(3, {}, rng())


def test_free_setup_places_dwarves_on_distinct_outer_hexes() -> None:
    """§6.3, §13.16: free setup: no dwarf next to the dragon, distinct hexes, dwarf player decides."""
    state = FELSENTAL.setup(2, {"dwarf_setup": "free"}, rng())
    dwarf_seat = state.seat_of(Role.DWARVES)
    assert state.phase is Phase.PLACE and FELSENTAL.to_act(state) == {dwarf_seat}
    moves = legal(state, dwarf_seat)
    assert len(moves) == 12 and "place:warrior:A1" in moves
    assert "place:warrior:B2" not in moves and "place:warrior:C3" not in moves
    state, _ = play(state, "place:warrior:A1")
    moves = legal(state, dwarf_seat)
    assert "place:crossbowman:A1" not in moves and "place:crossbowman:E3" in moves
    state, _ = play(state, "place:crossbowman:E3", "place:trapper:C1")
    assert state.phase is Phase.PLAY and FELSENTAL.to_act(state) == {state.dragon_seat}
    assert state.dwarf_hexes == ("A1", "E3", "C1") and state.actions == 1


def test_hand_exchange_dragon_first_then_dwarves_before_placement() -> None:
    """§6.2: exchange once, dragon first, then the dwarves, before the dwarves are placed."""
    state = FELSENTAL.setup(2, {"hand_exchange": True, "dwarf_setup": "free"}, rng())
    assert state.phase is Phase.EXCHANGE and FELSENTAL.to_act(state) == {state.dragon_seat}
    before = state.dragon.hand
    state, events = play(state, "exchange", counter=100)
    assert len(state.dragon.hand) == 4 and len(state.dragon.deck) == 34 and state.dragon.hand != before
    assert any(e.reveals and e.audience == state.dragon_seat for e in events)
    assert FELSENTAL.to_act(state) == {state.seat_of(Role.DWARVES)}
    assert legal(state, state.seat_of(Role.DWARVES)) == ["exchange", "keep"]
    state, _ = play(state, "keep")
    assert state.phase is Phase.PLACE


# --- §7 turns and actions -------------------------------------------------------------------


def test_dragon_first_turn_has_one_action() -> None:
    """§7, §13.1: the dragon's very first turn has exactly one action, then confirm."""
    state = position(dragon_hand=["DR34", "DR35"], actions=1)
    state, _ = play(state, "draw")
    assert legal(state, DRAGON_SEAT) == ["confirm"]
    state, _ = play(state, "confirm")
    assert state.active is Role.DWARVES and state.actions == 2


def test_two_actions_in_any_mix_and_no_passing() -> None:
    """§7: two actions (draw/play in any order); confirm only when they are used up."""
    state = position(dwarf_hand=["DW23", "DW24"], active=Role.DWARVES)
    moves = legal(state, DWARF_SEAT)
    assert "confirm" not in moves and "draw" in moves and "play:DW23:defend" in moves
    with pytest.raises(IllegalMove, match="passing is not allowed"):
        FELSENTAL.apply(state, DWARF_SEAT, CONFIRM, rng())
    state, _ = play(state, "play:DW23:defend", "draw")
    assert state.actions == 0
    assert legal(state, DWARF_SEAT) == ["confirm"]
    with pytest.raises(IllegalMove, match="no actions left"):
        FELSENTAL.apply(state, DWARF_SEAT, Move("draw"), rng())


def test_draw_takes_two_cards_privately() -> None:
    """§7 M1: two cards from the own pile; only the drawer sees which."""
    state = position(dragon_hand=["DR34"])
    state, events = play(state, "draw")
    assert len(state.dragon.hand) == 3 and len(state.dragon.deck) == 37 - 2
    private = [e for e in events if e.kind == "cards_drawn"]
    assert private and private[0].audience == DRAGON_SEAT and private[0].reveals
    public = [e for e in events if e.kind == "drew"]
    assert public[0].audience is None and "cards" not in public[0].data


def test_draw_with_one_card_left_takes_it_and_empty_pile_cannot_draw() -> None:
    """§7 M1, §13.3: a pile of one gives one card; an empty pile cannot be drawn from."""
    state = position(dragon_hand=["DR34"], dragon_deck=["DR35"])
    state, _ = play(state, "draw")
    assert state.dragon.hand == ("DR34", "DR35") and state.dragon.deck == ()
    assert "draw" not in legal(state, DRAGON_SEAT)
    with pytest.raises(IllegalMove, match="draw pile is empty"):
        FELSENTAL.apply(state, DRAGON_SEAT, Move("draw"), rng())


def test_hand_limit_forces_immediate_discards() -> None:
    """§7 M2, §13.2: drawing with 6 is allowed; then discard down to 6 before anything else."""
    hand = ["DR01", "DR03", "DR04", "DR34", "DR35", "DR36"]
    state = position(dragon_hand=hand)
    assert "draw" in legal(state, DRAGON_SEAT)
    state, _ = play(state, "draw")
    assert len(state.dragon.hand) == 8
    moves = legal(state, DRAGON_SEAT)
    assert all(m.startswith("discard:") for m in moves) and len(moves) == 8
    with pytest.raises(IllegalMove, match="discard down to 6"):
        FELSENTAL.apply(state, DRAGON_SEAT, Move("play", ("DR01", "bite")), rng())
    state, events = play(state, "discard:DR34", "discard:DR35")
    assert len(state.dragon.hand) == 6 and state.dragon.discard[-2:] == ("DR34", "DR35")
    assert kinds(events) == ["discarded", "discarded"]
    assert "draw" in legal(state, DRAGON_SEAT)


def test_player_without_cards_forfeits_the_rest_of_the_turn() -> None:
    """§7: actions left but nothing to draw or play: the turn can only be confirmed."""
    state = position(dragon_hand=["DR34"], dragon_deck=[])
    state, _ = play(state, "play:DR34:defend")
    assert state.actions == 1 and legal(state, DRAGON_SEAT) == ["confirm"]


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
    assert state.dragon_hex == "B2" and events[0].pieces == ("dragon", "hex-B2")


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
    state, _events = play(state, "block:trapper:DR35")  # every attack blocked: resolved at once
    assert state.attack is None and state.dragon_wounds == (0, 0, 0, 0)


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


# --- §13.15/13.17 and the turn workflow ------------------------------------------------------


def test_figures_never_enter_occupied_hexes() -> None:
    """§13.15: a dwarf never enters the dragon's hex or another dwarf's hex."""
    state = position(dwarf_hand=["DW34"], active=Role.DWARVES, dwarves=("B2", "B3", "D4"))
    state, _ = play(state, "play:DW34:move1", "dwarf:warrior")
    moves = legal(state, DWARF_SEAT)
    assert "to:B3" not in moves and "to:C3" not in moves and "to:B1" in moves and "to:A2" in moves


def test_review_variants_not_adopted() -> None:
    """§13.17: no discarding as an action, and drawing with six cards in hand is allowed."""
    state = position(dragon_hand=["DR01", "DR03", "DR04", "DR34", "DR35", "DR36"])
    moves = legal(state, DRAGON_SEAT)
    assert "draw" in moves and not any(m.startswith("discard:") for m in moves)


def test_card_choices_are_pending_and_attacks_and_draws_are_barriers() -> None:
    """Online convention: choosing a card and its target can be undone; a draw (reveal) and an
    attack (hand-over to the defender) commit at once."""
    from app.engine.selfplay import derive_seed
    from app.engine.turn import Turn, decide

    seed = derive_seed("felsental-barriers", 0)
    state = position(dragon_hand=["DR27", "DR03"], dwarf_hand=["DW23"], dwarves=("B3", "D1", "D4"))
    turn = Turn(state, 0)
    step = decide(FELSENTAL, turn, DRAGON_SEAT, Move.parse("play:DR27:move"), seed)
    assert not step.is_commit
    step = decide(FELSENTAL, step.turn, DRAGON_SEAT, Move.parse("to:C4"), seed)
    assert not step.is_commit and step.turn.pending
    step = decide(FELSENTAL, step.turn, DRAGON_SEAT, Move.parse("play:DR03:bite"), seed)
    step = decide(FELSENTAL, step.turn, DRAGON_SEAT, Move.parse("target:warrior"), seed)
    assert step.is_commit and len(step.committed) == 4
    assert FELSENTAL.to_act(step.state) == {DWARF_SEAT}
    drawer = decide(FELSENTAL, Turn(position(dragon_hand=["DR34"]), 0), DRAGON_SEAT, Move("draw"), seed)
    assert drawer.is_commit
