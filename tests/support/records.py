"""Finished matches played by the engine (random legal decisions through the turn workflow), as
records: the material of the record tests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import app.games  # noqa: F401 - importing registers every game
from app.engine.protocol import Move, Seat, State
from app.engine.registry import get_game
from app.engine.rng import Rng
from app.engine.selfplay import derive_seed
from app.engine.turn import Turn, decide
from app.services import results
from app.services.records.format import RecordHeader, write_record

CASES: list[tuple[str, int, dict[str, Any]]] = [
    ("draco", 2, {}),
    ("draco", 4, {}),
    ("drachenland", 2, {}),
    ("drachenland", 3, {"variant1": True}),
    ("drachenland", 4, {"variant2": True}),
    ("drachenland", 2, {"variant1": True, "variant2": True}),
    ("felsental", 2, {}),
    ("felsental", 2, {"legs": 1, "dwarf_setup": "free"}),
    ("felsental", 2, {"hand_exchange": True}),
]
"""Every game and each of its variants (and Draco's and Drachenland's player counts)."""
NAMES = ("Anna", "Bert", "Chloé", "Dário")


def case_id(case: tuple[str, int, dict[str, Any]]) -> str:
    slug, players, options = case
    return "-".join([slug, str(players), *(f"{k}={v}" for k, v in sorted(options.items()))])


@dataclass(frozen=True)
class PlayedMatch:
    header: RecordHeader
    moves: list[tuple[Seat, Move]]
    states: list[State]
    """The state after the setup and after each committed decision (as the match went)."""


def play_match(slug: str, players: int, options: dict[str, Any], number: int = 0) -> PlayedMatch:
    game = get_game(slug)
    chosen = game.info.normalise_options(options)
    seed = derive_seed(f"records:{slug}", number)
    chooser = Rng(derive_seed(f"records:{slug}:chooser", number))
    rng = Rng(seed)
    state = game.setup(players, chosen, rng)
    turn = Turn(state, rng.counter)
    moves: list[tuple[Seat, Move]] = []
    states = [state]
    while game.outcome(state) is None:
        seat = min(game.to_act(state))
        step = decide(game, turn, seat, chooser.choice(game.legal_moves(state, seat)), seed, state)
        if step.committed:  # each committed decision again from the last committed state
            rng = Rng(seed, turn.rng_counter)
            for decision in step.committed:
                moves.append((decision.seat, decision.move))
                states.append(game.apply(states[-1], decision.seat, decision.move, rng)[0])
            assert states[-1] == step.turn.committed
        turn, state = step.turn, step.state
    outcome = game.outcome(state)
    assert outcome is not None
    header = RecordHeader(
        game=slug,
        ruleset=game.info.ruleset,
        options=chosen,
        names=NAMES[:players],
        result=results.stored(outcome),
        date="2026-12-01T18:30:00Z",
        language="en",
        seed=seed,
    )
    return PlayedMatch(header, moves, states)


def record_of(played: PlayedMatch) -> str:
    return write_record(played.header, played.moves)
