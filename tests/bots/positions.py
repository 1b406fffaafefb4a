"""Positions for the bot tests: random games through the real turn workflow, with each seat's log."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import app.games  # noqa: F401 - registers every game
from app.bots.observation import Observation, observe
from app.engine.protocol import Event, Game, Seat, State
from app.engine.registry import get_game
from app.engine.rng import Rng
from app.engine.selfplay import derive_seed
from app.engine.turn import Turn, decide


@dataclass(frozen=True, slots=True)
class Position:
    game: Game
    state: State
    players: int
    events: tuple[Event, ...]
    options: dict[str, Any]

    def observe(self, seat: Seat, *, with_log: bool = True) -> Observation:
        return observe(
            self.game, self.state, seat, self.players, self.events if with_log else (), self.options
        )

    @property
    def acting(self) -> Seat:
        return min(self.game.to_act(self.state))


CASES: list[tuple[str, int, dict[str, Any]]] = [
    ("draco", 2, {}),
    ("draco", 3, {}),
    ("draco", 5, {}),
    ("drachenland", 2, {}),
    ("drachenland", 3, {}),
    ("drachenland", 4, {"variant2": True}),
    ("felsental", 2, {}),
    ("felsental", 2, {"dwarf_setup": "free", "hand_exchange": True, "legs": 1}),
]
CASE_IDS = [f"{slug}-{players}p{'-opts' if opts else ''}" for slug, players, opts in CASES]


def random_positions(
    slug: str, players: int, options: dict[str, Any], number: int, *, every: int, limit: int
) -> Iterator[Position]:
    """Every ``every``-th position of a random game (at most ``limit``), the game not yet over."""
    game = get_game(slug)
    options = game.info.normalise_options(options)
    seed = derive_seed(f"bots-test:{slug}", number)
    chooser = Rng(derive_seed(f"bots-test-chooser:{slug}", number))
    rng = Rng(seed)
    state = game.setup(players, options, rng)
    turn = Turn(state, rng.counter)
    events: list[Event] = []
    step_no = found = 0
    while game.outcome(state) is None and found < limit:
        if step_no % every == 0:
            found += 1
            yield Position(game, state, players, tuple(events), options)
        seat = min(game.to_act(state))
        step = decide(game, turn, seat, chooser.choice(game.legal_moves(state, seat)), seed, state)
        events.extend(step.decision.events)
        turn, state = step.turn, step.state
        step_no += 1
