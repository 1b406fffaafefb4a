"""Start round, turn structure and movement (spec §4.1–§4.3, §9)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.engine.protocol import IllegalMove, Move
from app.games.drachenland.board import Tile
from app.games.drachenland.state import Phase
from tests.games.drachenland.helpers import (
    GAME,
    clear_tiles,
    events,
    figure_at,
    fresh,
    legal,
    place,
    play,
    rng,
    rolled,
    tiles,
    volcano,
)

FIRST_SPACES = {"P01-1", "P02-1", "P03-1", "P04-1", "P05-1", "P06-1"}


def _entering(moves: set[str]) -> set[str]:
    return {m.split(":")[-1] for m in moves if m.startswith("move:")}


@pytest.mark.parametrize(("players", "steps"), [(2, (2, 4)), (3, (1, 2, 3)), (4, (1, 2, 3, 4))])
def test_start_round_steps_by_seat(players: int, steps: tuple[int, ...]) -> None:
    """§4.1: the n-th player enters one figure n spaces (2 and 4 with two players)."""
    state = fresh(players)
    for n in steps:
        assert state.turn.phase is Phase.START
        assert legal(state) == {"choose:red", "choose:green", "choose:blue"}
        state = play(state, "choose:green")
        assert state.turn.die_left == n and "end" not in legal(state)
        assert "roll" not in legal(state)
        moves = legal(state)
        assert all(m.startswith("move:E") for m in moves)
        state = play(state, max(moves, key=lambda m: (m.split(":")[-1][0] == "V", m)))
        if state.turn.phase is Phase.TREASURE:
            state = play(state, sorted(legal(state))[0])
        assert legal(state) == {"confirm"}
        state = play(state, "confirm")
    assert state.turn.phase is Phase.ROLL and legal(state) == {"roll"}


def test_start_round_first_player_walks_one_space() -> None:
    """§4.1: 1 space for the first player; the entrance does not count."""
    state = play(fresh(4), "choose:red")
    assert _entering(legal(state)) == FIRST_SPACES
    assert "move:E1:P01-2" not in legal(state)


def test_start_round_fourth_player_reaches_a_volcano_and_takes_treasure() -> None:
    """§9.12: only N = 4 reaches a volcano; it is revealed and the figure takes a treasure."""
    state = replace(fresh(4), turns=3, current=3)
    state = play(state, "choose:blue")
    assert {"V05", "V04", "V06", "V01", "V03", "V02"} <= _entering(legal(state))
    assert "revealed" in events(state, "move:E1:V05")
    state = play(state, "move:E1:V05")
    assert figure_at(state, 3, "blue") == "V05"
    assert state.turn.phase is Phase.TREASURE and "egg" in legal(state)


SPACES_AWAY = {n: {f"P0{i}-{n}" for i in range(1, 7)} for n in (1, 2, 3)}
ENTRANCE_VOLCANOES = {"V01", "V02", "V03", "V04", "V05", "V06"}


@pytest.mark.parametrize(
    ("players", "turns", "targets"),
    [
        (4, 0, SPACES_AWAY[1]),
        (4, 1, SPACES_AWAY[2]),
        (4, 2, SPACES_AWAY[3]),
        (4, 3, ENTRANCE_VOLCANOES),
        (3, 2, SPACES_AWAY[3]),
        (2, 0, SPACES_AWAY[2]),
        (2, 1, ENTRANCE_VOLCANOES),
    ],
)
def test_start_round_walks_exactly_n_spaces(players: int, turns: int, targets: set[str]) -> None:
    """Seed 002: "zieht sie ohne Würfel los: 1 Feld beim ersten Spieler, 2 beim zweiten, 3 beim
    dritten und 4 beim vierten" (two players: 2 and 4): exactly N, never fewer (spec §4.1)."""
    state = play(replace(fresh(players), turns=turns, current=turns), "choose:red")
    moves = legal(state)
    assert _entering(moves) == targets
    assert {m.split(":")[1] for m in moves} == {"E1", "E2", "E3"}
    assert "end" not in moves


def test_start_round_walks_n_spaces_past_earlier_figures() -> None:
    """Figures may be jumped: the third player lands 3 spaces in behind the first two."""
    state = place(place(replace(fresh(4), turns=2, current=2), 0, "red", "P01-1"), 1, "red", "P01-2")
    state = play(state, "choose:green")
    assert "move:E1:P01-3" in legal(state) and "move:E1:P01-2" not in legal(state)
    state = play(state, "move:E1:P01-3")
    assert figure_at(state, 2, "green") == "P01-3" and legal(state) == {"confirm"}


def test_matches_begun_under_ruleset_1_keep_walking_up_to_n() -> None:
    """Ruleset drachenland-1 offered 1..N spaces; its matches (positions ``DL1 …``) keep that."""
    state = play(replace(fresh(4), turns=3, current=3, rules=1), "choose:blue")
    assert {"move:E1:P01-1", "move:E1:P01-3", "move:E1:V05"} <= legal(state)


def test_roll_uses_both_dice_and_is_public() -> None:
    """§4.2.1: ROLL throws die A and die B."""
    state = replace(fresh(2), turns=2, turn=replace(fresh(2).turn, phase=Phase.ROLL))
    after, evs = GAME.apply(state, 0, Move("roll"), rng())
    assert after.turn.dice is not None and after.turn.dice[0] in (1, 2, 3)
    assert evs[0].kind == "rolled" and evs[0].audience is None


def test_choose_first_figure_with_either_die() -> None:
    """§4.2.3: any of the three figures, on or off the board, with either die."""
    state = rolled(fresh(2), 2, 4)
    assert {f"choose:{c}:{d}" for c in ("red", "green", "blue") for d in "ab"} <= legal(state)
    assert "choose:red" not in legal(state)


def test_second_figure_must_differ_and_third_is_passive() -> None:
    """§4.2.5–6: the second figure is a different one; then only confirm (third is passive)."""
    state = place(clear_tiles(rolled(fresh(2), 1, 2)), 0, "green", "V13")
    state = play(state, "choose:red:a", "end")
    assert state.turn.phase is Phase.CHOOSE_SECOND
    assert legal(state) == {"choose:green", "choose:blue"}
    state = play(state, "choose:blue")
    assert state.turn.die_left == 2
    state = play(state, "end")
    assert legal(state) == {"confirm"}


def test_first_figure_completes_before_second() -> None:
    """§4.2.4/7: while the first figure moves or takes, the second cannot be chosen."""
    state = place(clear_tiles(rolled(fresh(2), 3, 4)), 0, "red", "V13")
    state = play(state, "choose:red:a")
    assert not any(m.startswith("choose") for m in legal(state))
    with pytest.raises(IllegalMove, match="cannot choose a figure now"):
        play(state, "choose:green")


def test_walk_may_stop_early() -> None:
    """§4.3 [R]: you need not use all pips; the rest is forfeited."""
    state = place(rolled(fresh(2), 1, 4), 0, "red", "P10-2")
    state = play(state, "choose:red:b")
    assert {"move:P10-1", "move:P10-3", "move:P10-4"} <= legal(state)
    state = play(state, "move:P10-1")
    assert figure_at(state, 0, "red") == "P10-1"
    assert state.turn.phase is Phase.CHOOSE_SECOND


def test_walk_jumps_figures_but_never_ends_on_an_occupied_space() -> None:
    """§4.3: figures may be jumped; a walk may not end on an occupied space (own or foreign)."""
    state = place(rolled(fresh(2), 1, 3), 0, "red", "P09-1")
    state = place(state, 1, "red", "P09-2")
    state = place(state, 0, "green", "P09-3")
    state = play(state, "choose:red:b")
    moves = legal(state)
    assert "move:P09-4" in moves
    assert "move:P09-2" not in moves and "move:P09-3" not in moves
    with pytest.raises(IllegalMove, match="not a legal movement"):
        play(state, "move:P09-2")


def test_volcano_holds_any_number_of_figures() -> None:
    """§4.3: volcanoes hold any number of figures."""
    state = clear_tiles(rolled(fresh(2), 1, 2))
    state = place(place(state, 1, "red", "V15"), 1, "green", "V15")
    state = place(state, 0, "red", "P32-1")
    state = play(state, "choose:red:a")
    assert "move:V15" in legal(state)


def test_open_volcano_is_passed_and_counts_one() -> None:
    """§4.3/§9.3: an open volcano is passable and counts as a step; a face-down one is not."""
    state = place(rolled(fresh(2), 1, 3), 0, "red", "P34-1")
    face_down = play(state, "choose:red:b")
    assert _targets(face_down) == {"V13", "V14"}
    opened = volcano(state, "V14", tile=None, face_down=False)
    opened = play(opened, "choose:red:b")
    assert {"V14", "P36-1", "V15", "P28-2", "P28-1", "P29-2", "P29-1"} <= _targets(opened)
    assert "P35-1" not in _targets(opened)  # only via face-down V13


def test_reaching_a_face_down_volcano_reveals_and_ends_movement() -> None:
    """§4.3/§9.3: arriving reveals the tile (a reveal event) and ends the movement, pips left or not."""
    state = place(rolled(fresh(2), 1, 4), 0, "red", "P35-1")
    state = play(state, "choose:red:b")
    evs = GAME.apply(state, 0, Move.parse("move:V13"), rng())[1]
    assert [e.kind for e in evs if e.reveals] == ["revealed"]
    after = play(state, "move:V13")
    assert not after.volcanoes[12].face_down
    assert after.turn.phase is Phase.TREASURE


def test_no_node_twice_in_one_movement() -> None:
    """§4.3 [D]: a movement phase never enters a node twice (no walking back to the start)."""
    state = clear_tiles(place(rolled(fresh(2), 1, 4), 0, "red", "V13"))
    state = tiles(state, 0, Tile.QUICK_STEPS, Tile.QUICK_STEPS)
    state = play(state, "choose:red:b", "move:P34-1")
    assert not any(m.startswith("move:") for m in legal(state))  # a second walk needs a tile between
    state = play(state, "quick")
    assert "move:V14" in legal(state)
    assert "move:V13" not in legal(state) and "move:P35-1" in legal(state)  # the long way round


def test_off_board_figure_enters_through_any_entrance() -> None:
    """§9.1: an off-board figure given a die enters through any of the 3 entrances; first space = 1."""
    state = play(rolled(fresh(2), 1, 3), "choose:red:a")
    assert _targets(state) == FIRST_SPACES
    state = play(rolled(fresh(2), 1, 3), "choose:red:b")
    assert "move:E3:P05-3" in legal(state) and "move:E3:V03" not in legal(state)


def test_off_board_figure_with_no_movement_stays_off_and_takes_nothing() -> None:
    """§9.1: with 0 movement it stays off the board and gets no treasure phase."""
    state = play(rolled(fresh(2), 1, 3), "choose:red:a", "end")
    assert figure_at(state, 0, "red") is None
    assert state.turn.phase is Phase.CHOOSE_SECOND


def test_staying_on_a_volcano_still_takes_treasure() -> None:
    """§9.2 [R]: moving 0 spaces is legal; on a volcano the figure still takes a treasure."""
    state = clear_tiles(place(rolled(fresh(2), 2, 3), 0, "red", "V13"))
    state = play(state, "choose:red:a", "end")
    assert state.turn.phase is Phase.TREASURE
    assert {"egg", "clear"} & legal(state)


def test_figure_never_leaves_the_board() -> None:
    """§2.3: once in the dragon land a figure can never step back onto an entrance."""
    state = place(rolled(fresh(2), 1, 3), 0, "red", "P01-1")
    state = play(state, "choose:red:b")
    assert not any(":E" in m or m.endswith("E1") for m in legal(state))


def _targets(state) -> set[str]:  # type: ignore[no-untyped-def]
    return {m.split(":")[-1] for m in legal(state) if m.startswith("move:")}
