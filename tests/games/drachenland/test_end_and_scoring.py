"""End of the game and scoring (spec §6, §9.10)."""

from __future__ import annotations

from dataclasses import replace

from app.games.drachenland.rules import score
from app.games.drachenland.state import Phase
from tests.games.drachenland.helpers import (
    GAME,
    clear_tiles,
    events,
    fresh,
    legal,
    place,
    play,
    rolled,
    volcano,
)


def _last_egg_on_v13():  # type: ignore[no-untyped-def]
    state = clear_tiles(rolled(fresh(2), 2, 3))
    vols = tuple(replace(v, eggs=0) for v in state.volcanoes)
    state = replace(state, volcanoes=vols)
    state = volcano(state, "V13", eggs=1, gems=(1, 0, 0, 1))
    return play(place(state, 0, "red", "V13"), "choose:red:a", "end")


def test_scoring_worked_example() -> None:
    """§6 example: E 4, red 3 (ring), green 2 (ring), blue 0, clear 2 -> k = 2, 23 points."""
    assert score(4, (3, 2, 0, 2), (True, True, False)) == (23, 2)


def test_gems_without_a_ring_do_not_score() -> None:
    """§6 [R]: gems of a colour whose figure wears no ring score nothing."""
    assert score(0, (5, 0, 0, 0), (False, False, False)) == (0, 0)
    assert score(0, (5, 0, 0, 0), (True, False, False)) == (5, 0)


def test_clear_gems_are_jokers_but_never_eggs() -> None:
    """§6: clear gems need no ring and replace any coloured gem in a set, never an egg."""
    assert score(1, (0, 0, 0, 3), (False, False, False)) == (1 + 3 + 6, 1)
    assert score(0, (1, 1, 1, 3), (True, True, True)) == (6, 0)
    assert score(2, (1, 1, 1, 0), (True, True, True)) == (2 + 3 + 6, 1)


def test_game_ends_when_the_last_egg_is_taken() -> None:
    """§6/§9.10: the last egg ends the game at once; the second figure does not act."""
    state = _last_egg_on_v13()
    assert "game_over" in events(state, "egg")
    state = play(state, "egg")
    assert state.turn.phase is Phase.OVER
    assert GAME.to_act(state) == frozenset() and legal(state) == set()
    result = GAME.outcome(state)
    assert result is not None and result.scores == (1.0, 0.0) and result.ranks == (1, 2)


def test_game_is_not_over_while_eggs_remain() -> None:
    """§6: taking gems does not end the game."""
    state = play(_last_egg_on_v13(), "gems")
    assert GAME.outcome(state) is None and state.turn.phase is Phase.CHOOSE_SECOND


def test_ties_share_the_victory() -> None:
    """§6 [A]: equal scores share rank 1."""
    state = play(_last_egg_on_v13(), "egg")
    seats = (state.seats[0], replace(state.seats[1], eggs=1))
    result = GAME.outcome(replace(state, seats=seats))
    assert result is not None and result.ranks == (1, 1)
