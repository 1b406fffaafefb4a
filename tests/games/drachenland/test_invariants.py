"""The invariants catch each broken fact; the speed-ups (caches by identity) give the same answers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.games.drachenland import rules
from app.games.drachenland.board import BOARD, COLOURS, Tile
from app.games.drachenland.state import Phase, State, TurnState
from tests.games.drachenland.helpers import GAME, fresh, node, place
from tests.games.drachenland.test_protocol import SAMPLES


def _volcano(state: State, index: int, **changes: object) -> State:
    volcanoes = list(state.volcanoes)
    volcanoes[index] = replace(volcanoes[index], **changes)
    return replace(state, volcanoes=tuple(volcanoes))


def _seat(state: State, seat: int, **changes: object) -> State:
    seats = list(state.seats)
    seats[seat] = replace(seats[seat], **changes)
    return replace(state, seats=tuple(seats))


def _broken() -> list[tuple[str, State]]:
    good = fresh(3)
    v0 = good.volcanoes[0]
    return [
        ("eggs not conserved", _volcano(good, 0, eggs=v0.eggs + 1)),
        ("eggs not conserved", _seat(good, 1, eggs=1)),
        ("gems not conserved", _seat(good, 0, gems=(1, 0, 0, 0))),
        ("gems not conserved", _volcano(good, 0, gems=(v0.gems[0] + 1, *v0.gems[1:]))),
        ("negative count", _volcano(_seat(good, 0, eggs=v0.eggs + 1), 0, eggs=-1)),
        (
            "negative count",
            _seat(_volcano(good, 0, gems=(v0.gems[0] + 1, *v0.gems[1:])), 2, gems=(-1, 0, 0, 0)),
        ),
        ("last egg", replace(good, turn=TurnState(Phase.OVER))),
        ("two figures on one space", place(place(good, 0, "red", "P01-1"), 1, "blue", "P01-1")),
        ("entrance", place(good, 2, "green", "E1")),
        ("tiles not conserved", replace(good, discarded=(Tile.REROLL,))),
        ("tiles not conserved", _volcano(good, 3, tile=None)),
        (
            "king dragon off the volcanoes",
            _volcano(replace(good, kings=(node("P01-1"), None, None)), 0, tile=None),
        ),
        ("acted twice", replace(good, turn=TurnState(Phase.MOVE, moved=(COLOURS[0], COLOURS[0])))),
    ]


@pytest.mark.parametrize(("message", "state"), _broken())
def test_invariants_catch_each_broken_fact(message: str, state: State) -> None:
    GAME.invariants(fresh(3))  # the volcano totals of a good state are remembered first
    with pytest.raises(AssertionError, match=message):
        GAME.invariants(state)


def test_invariants_hold_in_sampled_games() -> None:
    for state in SAMPLES:
        GAME.invariants(state)


def test_remembered_walks_and_moves_match_a_fresh_computation() -> None:
    """Legal moves and walks come from caches keyed by identity or by what a walk depends on."""
    remembered = {id(s): (GAME.legal_moves(s, s.current), _walks(s)) for s in SAMPLES}
    rules._cache.clear()
    rules._reached.clear()
    for state in SAMPLES:
        copy = GAME.parse_position(GAME.format_position(state))  # equal, but a new object
        assert copy is not state
        assert GAME.legal_moves(copy, copy.current) == remembered[id(state)][0]
        assert _walks(copy) == remembered[id(state)][1]


def _walks(state: State) -> list[tuple[int, int, list[int], list[tuple[int, ...]]]]:
    """Targets and paths of walks of 1-4 steps from every figure of the player to act."""
    result = []
    for position in state.seats[state.current].figures:
        start = BOARD.entrances[0] if position is None else position
        for budget in range(1, 5):
            targets = rules.walk_targets(state, start, budget)
            paths = [rules.walk_path(state, start, budget, t) for t in targets]
            assert all(0 < len(p) <= budget and p[-1] == t for p, t in zip(paths, targets, strict=True))
            result.append((start, budget, targets, paths))
    return result
