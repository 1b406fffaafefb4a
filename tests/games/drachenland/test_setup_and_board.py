"""Board data and setup (spec §1–§3, §8)."""

from __future__ import annotations

from collections import Counter

from app.engine.rng import Rng
from app.engine.selfplay import derive_seed
from app.games.drachenland.board import (
    BOARD,
    DIE_A,
    DIE_B,
    EGG_SUPPLY,
    GEM_SUPPLY,
    GEMS,
    PLAYER_TILES,
    VOLCANO_TILES,
    NodeKind,
)
from app.games.drachenland.state import Phase
from tests.games.drachenland.helpers import GAME, node


def _setup(players: int, n: int, **options: bool):  # type: ignore[no-untyped-def]
    return GAME.setup(players, options, Rng(derive_seed("dl-setup", n)))


def test_board_has_15_volcanoes_94_spaces_3_entrances() -> None:
    """§2.1/§2.2: 15 volcanoes, 36 paths with 94 spaces, 3 entrances."""
    kinds = Counter(n.kind for n in BOARD.nodes)
    assert kinds == {NodeKind.VOLCANO: 15, NodeKind.SPACE: 94, NodeKind.ENTRANCE: 3}
    assert len(BOARD.paths) == 36
    assert sum(v.eggs for v in BOARD.volcanoes) == EGG_SUPPLY == 18
    assert sum(v.gems for v in BOARD.volcanoes) == sum(GEM_SUPPLY.values()) == 57


def test_space_coordinates_match_the_spec_table() -> None:
    """§2.2: spaces are evenly spaced between the path ends (spot checks from the table)."""
    for space, xy in {
        "P01-2": (430, 740),
        "P16-3": (846, 481),
        "P31-1": (706, 495),
        "P10-4": (262, 165),
    }.items():
        n = BOARD.nodes[node(space)]
        assert (n.x, n.y) == xy


def test_entrances_are_one_way() -> None:
    """§2.2: no edge leads back onto an entrance; an entrance leads into two paths."""
    for entrance in BOARD.entrances:
        assert all(entrance not in nbrs for nbrs in BOARD.neighbours)
        assert len(BOARD.neighbours[entrance]) == 2


def test_entrance_to_its_volcanoes_is_four_steps() -> None:
    """§2.2 step counts: entrance -> its two volcanoes 4 steps; centre <-> centre 2."""

    def dist(a: int, b: int) -> int:
        seen, frontier, d = {a}, [a], 0
        while b not in seen:
            d += 1
            frontier = [n for f in frontier for n in BOARD.neighbours[f] if n not in seen]
            seen.update(frontier)
        return d

    assert dist(node("E1"), node("V05")) == dist(node("E1"), node("V04")) == 4
    assert dist(node("E2"), node("V01")) == dist(node("E3"), node("V03")) == 4
    assert dist(node("V13"), node("V14")) == dist(node("V10"), node("V15")) == 2


def test_dice_faces() -> None:
    """§1: die A 1,2,2,2,3,3 and die B 2,3,3,4,4,4: only die B can show 4."""
    assert sorted(DIE_A) == [1, 2, 2, 2, 3, 3] and 4 not in DIE_A
    assert sorted(DIE_B) == [2, 3, 3, 4, 4, 4]


def test_eggs_per_volcano_and_two_player_rule() -> None:
    """§3.3/§8: printed eggs (centre 2); with two players one per volcano, 3 eggs in the box."""
    four = _setup(4, 0)
    assert [v.eggs for v in four.volcanoes] == [1] * 12 + [2] * 3 and four.box_eggs == 0
    two = _setup(2, 0)
    assert [v.eggs for v in two.volcanoes] == [1] * 15 and two.box_eggs == 3


def test_every_gem_is_placed_at_most_two_alike() -> None:
    """§3.4: all 57 gems on the volcanoes as printed, never more than 2 of a colour (clear too)."""
    for n in range(40):
        state = _setup(3, n)
        for i, v in enumerate(state.volcanoes):
            assert sum(v.gems) == BOARD.volcanoes[i].gems
            assert max(v.gems) <= 2
        for g, gem in enumerate(GEMS):
            assert sum(v.gems[g] for v in state.volcanoes) == GEM_SUPPLY[gem]


def test_variant1_lifts_the_gem_limit() -> None:
    """§8 variant 1: any number of one colour per volcano (seen within a few setups)."""
    assert any(max(v.gems) > 2 for n in range(20) for v in _setup(3, n, variant1=True).volcanoes)


def test_one_face_down_tile_per_volcano_and_one_in_the_box() -> None:
    """§3.5: the 16 volcano tiles: 15 face down on the volcanoes, the 16th unseen in the box."""
    state = _setup(4, 1)
    assert all(v.face_down and v.tile is not None for v in state.volcanoes)
    mix = Counter(v.tile for v in state.volcanoes) + Counter([state.box_tile])
    assert mix == Counter(VOLCANO_TILES)


def test_players_start_with_three_tiles_and_figures_off_board() -> None:
    """§3.2: Reroll, Boatman, Small Dragon face up; all figures off the board."""
    state = _setup(3, 2)
    for p in state.seats:
        assert sorted(t.value for t in p.tiles) == sorted(t.value for t in PLAYER_TILES)
        assert p.figures == (None, None, None) and p.eggs == 0 and sum(p.gems) == 0
    assert state.turn.phase is Phase.START


def test_start_player_is_random() -> None:
    """§3.1 [A]: online the start player is drawn at random."""
    assert {_setup(4, n).first for n in range(30)} == {0, 1, 2, 3}
