"""Bots playing whole matches against each other through the real turn workflow.

Used by ``drachenhort selfplay --bots`` and ``bench/bots.py``. Every decision goes through
``engine.turn.decide`` (pending decisions, barriers, confirm) exactly as a person's would, and
each bot is handed only its observation: the view of its seat, its legal moves, the events
it was shown and the match options.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from app.bots.budget import Level, budget_for
from app.bots.decide import decide
from app.bots.observation import Observation
from app.engine.protocol import JSON, Game, Options
from app.engine.rng import Rng
from app.engine.selfplay import StalledGame, derive_seed
from app.engine.turn import Turn
from app.engine.turn import decide as take_decision


@dataclass(frozen=True, slots=True)
class MatchResult:
    levels: tuple[Level, ...]
    """The level of each seat."""
    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    decisions: tuple[int, ...]
    """Decisions each seat took."""
    seconds: tuple[float, ...]
    """Time each seat spent deciding."""

    @property
    def winners(self) -> tuple[bool, ...]:
        """Whether each seat won (a shared first place is a win for each seat in it)."""
        return tuple(rank == 1 for rank in self.ranks)


def play_match(
    game: Game,
    levels: Sequence[Level],
    seed: int,
    *,
    think_ms: float | None = None,
    iterations: int | None = None,
    options: Options | None = None,
    max_decisions: int = 50_000,
) -> MatchResult:
    """One match, seat ``s`` played by a bot of ``levels[s]``; reproducible with ``iterations``."""
    players = len(levels)
    options = game.info.normalise_options(options or {})
    match_seed = derive_seed(f"{game.slug}:bots", seed)
    rng = Rng(match_seed)
    state = game.setup(players, options, rng)
    turn = Turn(state, rng.counter)
    budgets = [budget_for(level, think_ms, iterations) for level in levels]
    logs: list[list[JSON]] = [[] for _ in range(players)]
    decisions = [0] * players
    seconds = [0.0] * players
    total = 0
    while (outcome := game.outcome(state)) is None:
        if total >= max_decisions:
            raise StalledGame(f"{game.slug}: no end after {max_decisions} decisions")
        seat = min(game.to_act(state))
        # ``observe`` would filter and convert the whole log at every decision; the arena keeps
        # each seat's visible log as it grows (a Drachenland match has thousands of events).
        obs = Observation(
            game=game.slug,
            seat=seat,
            players=players,
            view=game.view(state, seat),
            legal=tuple(str(m) for m in game.legal_moves(state, seat)),
            log=tuple(logs[seat]),
            options=options,
        )
        started = time.perf_counter()
        move = decide(obs, levels[seat], seed * 1_000_003 + total, budgets[seat])
        seconds[seat] += time.perf_counter() - started
        decisions[seat] += 1
        total += 1
        step = take_decision(game, turn, seat, move, match_seed, state)
        for event in step.decision.events:
            raw = event.to_json()
            for s in range(players):
                if event.is_visible_to(s):
                    logs[s].append(raw)
        turn, state = step.turn, step.state
    return MatchResult(tuple(levels), outcome.ranks, outcome.scores, tuple(decisions), tuple(seconds))


def rotated(levels: Sequence[Level], number: int) -> tuple[Level, ...]:
    """The seating of game ``number``: the list turned by one seat per game."""
    k = number % len(levels)
    return tuple(levels[-k:]) + tuple(levels[:-k]) if k else tuple(levels)
