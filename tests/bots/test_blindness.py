"""A bot cannot reach the true state (issue 14): it is given an observation, never a state, and
altering everything hidden from its seat leaves its decisions unchanged for a fixed seed."""

from __future__ import annotations

import inspect
import json
import random
from typing import Any

import pytest

from app.bots import Budget, Level, Observation, decide
from tests.bots.alter import alter_hidden
from tests.bots.positions import CASE_IDS, CASES, random_positions

BUDGET = Budget(iterations=24)


def test_decide_takes_an_observation_and_no_state() -> None:
    parameters = inspect.signature(decide).parameters
    assert list(parameters) == ["obs", "level", "seed", "budget"]
    assert parameters["obs"].annotation in (Observation, "Observation")


@pytest.mark.parametrize(("slug", "players", "options"), CASES, ids=CASE_IDS)
def test_hidden_information_does_not_change_decisions(
    slug: str, players: int, options: dict[str, Any]
) -> None:
    rng = random.Random(3)
    compared = altered_some = 0
    for position in random_positions(slug, players, options, 1, every=11, limit=8):
        seat = position.acting
        obs = position.observe(seat)
        if len(obs.legal) < 2:
            continue
        game = position.game
        other = alter_hidden(position.state, seat, rng)
        altered_some += game.format_position(other) != game.format_position(position.state)
        twin = Observation(
            obs.game,
            seat,
            players,
            game.view(other, seat),
            tuple(str(m) for m in game.legal_moves(other, seat)),
            obs.log,
            obs.options,
        )
        assert twin == obs, "the alteration touched something the seat can see"
        # The observation is plain data: a JSON round trip (what a worker process gets) changes nothing.
        wire = Observation(
            obs.game, seat, players, json.loads(json.dumps(obs.view)), obs.legal, obs.log, obs.options
        )
        for level in Level:
            move = decide(obs, level, 99, BUDGET)
            assert decide(twin, level, 99, BUDGET) == move
            assert decide(wire, level, 99, BUDGET) == move
            assert str(move) in obs.legal
        compared += 1
    assert compared >= 3
    assert altered_some >= 1, "no position had anything hidden to alter"
