"""Felsental rules: board and decks (spec §3–§5), setup (§6), turns and actions (§7), §13.15–17."""

from __future__ import annotations

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
