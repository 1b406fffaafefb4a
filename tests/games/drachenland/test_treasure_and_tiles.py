"""Treasure phase and every tile (spec §4.4, §5, §9)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.engine.protocol import IllegalMove
from app.games.drachenland.board import Tile
from app.games.drachenland.state import Phase, State
from tests.games.drachenland.helpers import (
    clear_tiles,
    events,
    figure_at,
    fresh,
    king,
    legal,
    node,
    place,
    play,
    ring,
    rolled,
    tiles,
    volcano,
)


def _at_v13(a: int = 2, b: int = 3, *, gems=(2, 1, 0, 1), eggs: int = 2, tile: Tile | None = None):  # type: ignore[no-untyped-def]
    """Seat 0's red figure stays on open V13 and enters its treasure phase."""
    state = clear_tiles(rolled(fresh(2), a, b))
    state = volcano(state, "V13", gems=gems, eggs=eggs, tile=tile)
    state = place(state, 0, "red", "V13")
    return play(state, "choose:red:a", "end")


# --- treasure ---------------------------------------------------------------------------


def test_treasure_choices_offered() -> None:
    """§4.4: all gems of the figure's colour, one clear gem, one egg."""
    state = _at_v13()
    assert legal(state) == {"gems", "clear", "egg"}


def test_take_all_gems_of_the_figures_colour() -> None:
    """§4.4: TAKE_COLOUR_GEMS takes every gem of that colour, and is then done."""
    state = play(_at_v13(), "gems")
    assert state.seats[0].gems == (2, 0, 0, 0)
    assert state.volcanoes[node("V13")].gems == (0, 1, 0, 1)
    assert state.turn.phase is Phase.CHOOSE_SECOND


def test_take_one_clear_gem() -> None:
    """§4.4: TAKE_CLEAR takes exactly one clear gem."""
    state = play(_at_v13(gems=(0, 0, 0, 2)), "clear")
    assert state.seats[0].gems == (0, 0, 0, 1)
    assert state.volcanoes[node("V13")].gems == (0, 0, 0, 1)


def test_take_egg_brings_the_volcano_tile() -> None:
    """§4.4 [R]: the egg taker also gets the volcano's own tile, face up."""
    state = play(_at_v13(tile=Tile.MAGIC_HAND), "egg")
    assert state.seats[0].eggs == 1 and Tile.MAGIC_HAND in state.seats[0].tiles
    assert state.volcanoes[node("V13")].tile is None


def test_ring_tile_is_not_taken_with_the_egg() -> None:
    """§5 [R]: king dragon and ring tiles are never taken with an egg; they stay."""
    state = play(_at_v13(tile=Tile.RING), "egg")
    assert state.volcanoes[node("V13")].tile is Tile.RING
    assert Tile.RING not in state.seats[0].tiles


def test_king_dragon_is_not_taken_with_the_egg() -> None:
    """§5 [R]: a king dragon on the volcano stays there when an egg is taken."""
    state = king(_at_v13(), "green", "V13")
    state = play(state, "egg")
    assert state.kings[1] == node("V13") and state.seats[0].tiles == fresh(2).seats[0].tiles


def test_second_egg_of_a_central_volcano_comes_without_tile() -> None:
    """§9.9: the first egg took the tile; the second egg comes alone."""
    state = play(_at_v13(tile=Tile.QUICK_STEPS), "egg", "choose:green")
    state = place(state, 0, "green", "V13")
    state = play(state, "end") if state.turn.phase is Phase.MOVE else state
    assert "egg" in legal(state)
    before = state.seats[0].tiles
    state = play(state, "egg")
    assert state.seats[0].eggs == 2 and state.seats[0].tiles == before


def test_put_ring_instead_of_a_treasure() -> None:
    """§4.4 [R]: on a volcano with an open Ring tile a ringless figure may put on a ring."""
    state = _at_v13(tile=Tile.RING)
    assert "ring" in legal(state)
    state = play(state, "ring")
    assert state.seats[0].rings == (True, False, False)
    assert state.volcanoes[node("V13")].tile is Tile.RING  # stays to the end of the game
    assert state.turn.phase is Phase.CHOOSE_SECOND


def test_no_second_ring_for_a_figure() -> None:
    """§9.7: PUT_RING is not offered to a figure that already wears a ring."""
    state = clear_tiles(rolled(fresh(2), 2, 3))
    state = ring(volcano(state, "V13", tile=Tile.RING), 0, "red")
    state = play(place(state, 0, "red", "V13"), "choose:red:a", "end")
    assert "ring" not in legal(state)
    with pytest.raises(IllegalMove, match="not possible on this volcano"):
        play(state, "ring")


def test_empty_treasures_are_not_offered() -> None:
    """§9.7: options with nothing to take are not offered; with nothing at all the phase is skipped."""
    state = _at_v13(gems=(0, 2, 0, 0), eggs=1)
    assert legal(state) == {"egg"}
    empty = clear_tiles(rolled(fresh(2), 2, 3))
    empty = place(volcano(empty, "V13", gems=(0, 2, 0, 0), eggs=0), 0, "red", "V13")
    assert play(empty, "choose:red:a", "end").turn.phase is Phase.CHOOSE_SECOND


def test_treasure_only_where_the_figure_ends() -> None:
    """§9.6: never on volcanoes passed."""
    state = clear_tiles(rolled(fresh(2), 1, 4))
    state = place(state, 0, "red", "P34-1")
    state = play(state, "choose:red:b", "move:P36-1")
    assert state.turn.phase is Phase.CHOOSE_SECOND
    assert state.seats[0].eggs == 0 and sum(state.seats[0].gems) == 0


def test_passive_figure_on_a_volcano_takes_nothing() -> None:
    """§9.8: two figures may share a volcano; the passive one still cannot take."""
    state = clear_tiles(rolled(fresh(2), 2, 3))
    state = place(place(state, 0, "red", "V13"), 0, "green", "V13")
    state = place(state, 0, "blue", "P01-1")
    state = play(state, "choose:blue:a", "end", "choose:red", "end", "egg")
    assert legal(state) == {"confirm"}
    assert state.seats[0].eggs == 1


def test_magic_hand_grants_one_more_action() -> None:
    """§4.4/§5: Magic Hand: one more treasure action on the same volcano; discarded."""
    state = tiles(_at_v13(), 0, Tile.MAGIC_HAND)
    assert "hand" in legal(state)
    state = play(state, "egg")
    assert legal(state) == {"hand", "pass"}
    state = play(state, "hand")
    assert Tile.MAGIC_HAND not in state.seats[0].tiles
    assert {"gems", "clear", "egg"} == legal(state)
    state = play(state, "gems")
    assert state.seats[0].eggs == 1 and state.seats[0].gems[0] == 2


def test_magic_hand_may_be_played_before_the_first_choice() -> None:
    """§4.4 [R]: PLAY_MAGIC_HAND after the first choice or before it."""
    state = play(tiles(_at_v13(), 0, Tile.MAGIC_HAND), "hand")
    assert state.turn.takes_left == 2
    state = play(state, "egg", "egg")
    assert state.seats[0].eggs == 2


def test_taking_is_not_optional() -> None:
    """German rules: "genau eine dieser Möglichkeiten" - no pass while something is there."""
    assert "pass" not in legal(_at_v13())


# --- tiles ------------------------------------------------------------------------------


def test_reroll_only_right_after_the_roll() -> None:
    """§4.2.2/§5: Reroll rerolls both dice before a figure is chosen; the tile is discarded."""
    state = rolled(fresh(2), 1, 2)
    assert "reroll" in legal(state)
    after = play(state, "reroll")
    assert Tile.REROLL not in after.seats[0].tiles and Tile.REROLL in after.discarded
    assert after.turn.phase is Phase.CHOOSE_FIRST and after.turn.dice is not None
    assert "reroll" not in legal(after)
    chosen = play(state, "choose:red:a")
    with pytest.raises(IllegalMove, match="right after the roll"):
        play(chosen, "reroll")


def test_quick_steps_add_three() -> None:
    """§5: Quick Steps: the active figure walks up to 3 extra spaces; discarded."""
    state = tiles(place(rolled(fresh(2), 1, 2), 0, "red", "P10-1"), 0, Tile.QUICK_STEPS)
    state = play(state, "choose:red:a")
    assert "move:P10-3" not in legal(state)
    state = play(state, "quick")
    assert state.turn.die_left + state.turn.bonus_left == 4
    assert "move:V06" in legal(state) and Tile.QUICK_STEPS not in state.seats[0].tiles


def test_quick_steps_spent_first_keep_the_die_for_a_dragon() -> None:
    """§4.3/§9.4 [D]: walking uses Quick Steps budget before the die, so a 4 can still fly."""
    state = clear_tiles(rolled(fresh(2), 1, 4))
    state = king(tiles(place(state, 0, "red", "P34-1"), 0, Tile.QUICK_STEPS), "red", "V14")
    state = play(state, "choose:red:b", "quick", "move:V14")
    assert state.turn.die_left == 4 and not state.turn.die_walked
    assert "fly:V01:die" in legal(state)


def test_boatman_ferries_across_water_and_reveals() -> None:
    """§5/§2.3: the Boatman moves the figure across a water link; arrival reveals and stops."""
    state = rolled(fresh(2), 2, 3)
    state = place(volcano(state, "V01", tile=None, face_down=False), 0, "red", "V01")
    state = play(state, "choose:red:a")
    assert "boat:W1" in legal(state) and "boat:W2" not in legal(state)
    assert "revealed" in events(state, "boat:W1")
    state = play(state, "boat:W1")
    assert figure_at(state, 0, "red") == "V02" and state.turn.phase is Phase.TREASURE
    assert Tile.BOATMAN not in state.seats[0].tiles


def test_boatman_combines_with_walking_before_and_after() -> None:
    """§9.11: walk onto a linked volcano, ferry, walk on with the pips left."""
    state = clear_tiles(rolled(fresh(2), 1, 3))
    state = place(state, 0, "red", "P11-1")
    state = play(state, "choose:red:b", "move:V01")
    assert "boat:W1" in legal(state)
    state = play(state, "boat:W1")
    assert figure_at(state, 0, "red") == "V02"
    assert {"move:P13-1", "move:P13-2", "move:P14-2"} <= legal(state)
    assert "move:P13-3" not in legal(state)


def _two_boatmen_on_v01(rules: int) -> State:
    state = clear_tiles(rolled(replace(fresh(2), rules=rules), 2, 3))
    state = tiles(place(state, 0, "red", "V01"), 0, Tile.BOATMAN, Tile.BOATMAN)
    return play(state, "choose:red:a", "boat:W1")


def test_a_second_boatman_crosses_back_over_the_same_water() -> None:
    """Seed 002: the Boatman sets the figure "über dieses Wasser hinweg auf den Vulkan, der auf
    der anderen Seite direkt anschließt", and "beliebig viele Plättchen" combine: nothing
    forbids crossing back, to the volcano the figure started on."""
    state = _two_boatmen_on_v01(rules=2)
    assert figure_at(state, 0, "red") == "V02" and "boat:W1" in legal(state)
    state = play(state, "boat:W1")
    assert figure_at(state, 0, "red") == "V01" and Tile.BOATMAN not in state.seats[0].tiles
    assert {"move:P11-1", "move:P11-2"} <= legal(state)


def test_matches_begun_under_ruleset_1_keep_the_boatman_off_entered_volcanoes() -> None:
    state = _two_boatmen_on_v01(rules=1)
    assert figure_at(state, 0, "red") == "V02" and "boat:W1" not in legal(state)


def test_boatman_needs_the_figure_on_a_linked_volcano() -> None:
    """§9.11: not offered on a space or an unlinked volcano."""
    state = clear_tiles(rolled(fresh(2), 1, 3))
    on_space = play(place(state, 0, "red", "P11-1"), "choose:red:a")
    assert not any(m.startswith("boat") for m in legal(on_space))
    unlinked = play(place(state, 0, "red", "V13"), "choose:red:a")
    assert not any(m.startswith("boat") for m in legal(unlinked))


def test_fly_with_a_rolled_four() -> None:
    """§4.3/§5: same colour, same volcano, a 4: figure and king dragon fly to any other volcano."""
    state = clear_tiles(rolled(fresh(2), 3, 4))
    state = tiles(king(place(state, 0, "red", "V13"), "red", "V13"), 0)
    state = play(state, "choose:red:b")
    flights = {m for m in legal(state) if m.startswith("fly")}
    assert len(flights) == 14 and "fly:V13:die" not in flights
    state = play(state, "fly:V03:die")
    assert figure_at(state, 0, "red") == "V03" and state.kings[0] == node("V03")
    assert state.turn.die_left == 0


def _walked_through_v15_to_the_king(rules: int) -> State:
    """Red starts on V10, walks V10 P32-1 V15 P35-1 V13 (a 4) to its king; a Small Dragon left."""
    state = clear_tiles(rolled(replace(fresh(2), rules=rules), 1, 4))
    state = tiles(king(place(state, 0, "red", "V10"), "red", "V13"), 0, Tile.SMALL_DRAGON)
    state = play(state, "choose:red:b", "move:V13")
    assert figure_at(state, 0, "red") == "V13" and node("V15") in state.turn.visited
    return state


def test_fly_to_any_other_volcano_even_one_passed_in_this_movement() -> None:
    """Seed 002: figure and king dragon go "auf einen beliebigen anderen Vulkan": the one the
    figure walked through (V15) and the one it started on (V10) included."""
    state = _walked_through_v15_to_the_king(rules=2)
    flights = {m for m in legal(state) if m.startswith("fly")}
    assert flights == {f"fly:V{v:02d}:small" for v in range(1, 16) if v != 13}
    state = play(state, "fly:V15:small")
    assert figure_at(state, 0, "red") == "V15" and state.kings[0] == node("V15")
    assert state.turn.phase is Phase.TREASURE or "end" in legal(state)


def test_matches_begun_under_ruleset_1_keep_flights_off_entered_volcanoes() -> None:
    state = _walked_through_v15_to_the_king(rules=1)
    flights = {m for m in legal(state) if m.startswith("fly")}
    assert len(flights) == 12 and not {"fly:V10:small", "fly:V15:small"} & flights


def test_die_a_never_flies() -> None:
    """§9.4: die A never shows 4; a 3 cannot power a dragon."""
    state = clear_tiles(rolled(fresh(2), 3, 4))
    state = tiles(king(place(state, 0, "red", "V13"), "red", "V13"), 0)
    assert not any(m.startswith("fly") for m in legal(play(state, "choose:red:a")))


def test_king_of_another_colour_does_not_carry() -> None:
    """§4.3: the king dragon flies only with a figure of its own colour."""
    state = clear_tiles(rolled(fresh(2), 3, 4))
    state = king(place(state, 0, "green", "V13"), "red", "V13")
    assert not any(m.startswith(("fly", "call")) for m in legal(play(state, "choose:green:b")))


def test_walking_the_four_spends_the_dragon_power() -> None:
    """§9.4: a die used for walking can no longer fly; a die used to fly no longer walks."""
    state = clear_tiles(rolled(fresh(2), 3, 4))
    state = tiles(king(place(state, 0, "red", "V13"), "red", "V14"), 0, Tile.QUICK_STEPS)
    state = play(state, "choose:red:b", "move:V14")
    assert not any(m.startswith("fly") for m in legal(state))
    flown = clear_tiles(rolled(fresh(2), 3, 4))
    flown = tiles(king(place(flown, 0, "red", "V13"), "red", "V13"), 0, Tile.QUICK_STEPS)
    flown = play(flown, "choose:red:b", "fly:V15:die")
    assert not any(m.startswith("move") for m in legal(flown))
    flown = play(flown, "quick")
    assert "move:P36-1" in legal(flown)  # Quick Steps budget still applies


def test_small_dragon_flies_and_calls_but_never_walks() -> None:
    """§5: the Small Dragon counts as a 4 for FLY or CALL_KING only; discarded."""
    state = clear_tiles(rolled(fresh(2), 1, 2))
    state = tiles(king(place(state, 0, "red", "V13"), "red", "V13"), 0, Tile.SMALL_DRAGON)
    state = play(state, "choose:red:a")
    assert "fly:V07:small" in legal(state) and "fly:V07:die" not in legal(state)
    assert not any(m.split(":")[-1] in ("P27-1", "V07") for m in legal(state) if m.startswith("move"))
    state = play(state, "fly:V07:small")
    assert Tile.SMALL_DRAGON not in state.seats[0].tiles
    assert "move:P12-3" in legal(state)  # the die still walks after a Small Dragon flight


def test_call_the_king_dragon() -> None:
    """§4.3/§5: with a 4 the king dragon of the figure's colour comes to the figure's volcano."""
    state = clear_tiles(rolled(fresh(2), 1, 4))
    state = tiles(king(place(state, 0, "blue", "V01"), "blue", "V15"), 0, Tile.SMALL_DRAGON)
    state = play(state, "choose:blue:b")
    assert {"call:die", "call:small"} <= legal(state)
    state = play(state, "call:die")
    assert state.kings[2] == node("V01") and figure_at(state, 0, "blue") == "V01"


def test_call_then_fly_combines_tiles() -> None:
    """§5 [R]: e.g. CALL_KING with a die 4, then FLY with a Small Dragon."""
    state = clear_tiles(rolled(fresh(2), 1, 4))
    state = tiles(king(place(state, 0, "blue", "V01"), "blue", "V15"), 0, Tile.SMALL_DRAGON)
    state = play(state, "choose:blue:b", "call:die", "fly:V10:small")
    assert figure_at(state, 0, "blue") == "V10" and state.kings[2] == node("V10")


def test_call_is_illegal_when_king_hidden_unused_or_here() -> None:
    """§9.5: no CALL_KING if the king dragon is face down, unused, or already on this volcano."""
    state = clear_tiles(rolled(fresh(2), 1, 4))
    state = place(state, 0, "blue", "V01")
    hidden = play(state, "choose:blue:b")
    assert not any(m.startswith("call") for m in legal(hidden))
    here = play(king(state, "blue", "V01"), "choose:blue:b")
    assert not any(m.startswith("call") for m in legal(here)) and "fly:V02:die" in legal(here)
    with pytest.raises(IllegalMove):
        play(hidden, "call:die")


def test_revealed_king_dragon_stays_on_the_board() -> None:
    """§5: a revealed king dragon lies on its volcano; the volcano counts as tile gone."""
    state = rolled(fresh(2), 1, 4)
    state = volcano(state, "V13", tile=Tile.KING_GREEN, face_down=True)
    state = play(place(state, 0, "red", "P35-1"), "choose:red:b", "move:V13")
    assert state.kings[1] == node("V13")
    assert state.volcanoes[node("V13")].tile is None and not state.volcanoes[node("V13")].face_down


def test_tiles_only_for_the_active_figure() -> None:
    """§4.3 [R]: tiles act on the active figure only (the boat needs *it* on a linked volcano)."""
    state = clear_tiles(rolled(fresh(2), 1, 3))
    state = place(place(state, 0, "green", "V01"), 0, "red", "P10-2")
    state = play(state, "choose:red:a")
    assert not any(m.startswith("boat") for m in legal(state))


def test_flight_to_a_face_down_volcano_reveals_and_stops() -> None:
    """§4.3 [D]: arrival by FLY at a face-down volcano reveals its tile and ends the movement."""
    state = rolled(fresh(2), 3, 4)
    state = volcano(state, "V13", tile=None, face_down=False)
    state = tiles(king(place(state, 0, "red", "V13"), "red", "V13"), 0, Tile.QUICK_STEPS)
    state = play(state, "choose:red:b")
    assert "revealed" in events(state, "fly:V05:die")
    state = play(state, "fly:V05:die")
    assert state.turn.phase is Phase.TREASURE and not state.volcanoes[node("V05")].face_down


def test_after_calling_the_figure_takes_treasure_where_it_stands() -> None:
    """German rules: after calling the king dragon the figure may still take a treasure there."""
    state = clear_tiles(rolled(fresh(2), 1, 4))
    state = tiles(king(place(state, 0, "blue", "V01"), "blue", "V15"), 0)
    state = play(state, "choose:blue:b", "call:die")
    assert state.turn.phase is Phase.TREASURE  # nothing else to do: the movement ends by itself
    assert "egg" in legal(state)


def test_tile_won_with_an_egg_can_be_used_at_once() -> None:
    """§4.4 [D]: a Magic Hand gained with the egg may be played in the same treasure phase."""
    state = play(_at_v13(tile=Tile.MAGIC_HAND), "egg")
    assert legal(state) == {"hand", "pass"}
    state = play(state, "hand", "egg")
    assert state.seats[0].eggs == 2
