"""Random self-play through the real turn workflow, checking invariants after every decision.

Used by the contract tests, ``drachenhort selfplay`` and the engine benchmark.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from app.engine.protocol import Game, Options
from app.engine.rng import Rng
from app.engine.turn import Turn, current_state, decide, undo


@dataclass(frozen=True, slots=True)
class SelfPlayResult:
    decisions: int
    undos: int
    ranks: tuple[int, ...]
    scores: tuple[float, ...]


class StalledGame(AssertionError):
    """A seat to act had no legal move, or the game ran past its decision limit."""


def derive_seed(label: str, number: int) -> bytes:
    """A reproducible 256-bit seed for tests and benchmarks."""
    return hashlib.sha256(f"drachenhort:{label}:{number}".encode()).digest()


def play_random_game(
    game: Game,
    players: int,
    options: Options | None = None,
    seed: int = 0,
    *,
    undo_every: int = 0,
    check: bool = True,
    max_decisions: int = 100_000,
) -> SelfPlayResult:
    """Play one complete game with uniformly random legal moves.

    ``undo_every`` > 0 undoes a pending decision now and then and checks that the refolded
    state equals the state before it. ``check`` runs the game's invariants after every step.
    """
    options = game.info.normalise_options(options or {})
    match_seed = derive_seed(f"{game.slug}:match", seed)
    chooser = Rng(derive_seed(f"{game.slug}:chooser", seed))
    rng = Rng(match_seed)
    state = game.setup(players, options, rng)
    turn = Turn(state, rng.counter)
    if check:
        game.invariants(state)
    decisions = undos = 0
    while game.outcome(state) is None:
        if decisions >= max_decisions:
            raise StalledGame(f"{game.slug}: no end after {max_decisions} decisions")
        seat = min(game.to_act(state))
        moves = game.legal_moves(state, seat)
        if not moves:
            raise StalledGame(f"{game.slug}: seat {seat} must act but has no legal move")
        before = state
        step = decide(game, turn, seat, chooser.choice(moves), match_seed, state)
        decisions += 1
        if undo_every and step.turn.pending and chooser.randbelow(undo_every) == 0:
            turn = undo(step.turn, seat)
            state = current_state(game, turn, match_seed)
            assert state == before, "undo did not restore the state before the decision"
            undos += 1
            continue
        turn, state = step.turn, step.state
        if check:
            game.invariants(state)
    outcome = game.outcome(state)
    assert outcome is not None
    return SelfPlayResult(decisions, undos, outcome.ranks, outcome.scores)
