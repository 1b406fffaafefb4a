"""Bot levels and how long each may think."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Level(StrEnum):
    RANDOM = "random"
    """Uniformly random legal moves."""
    EASY = "easy"
    """The game's greedy timeout move, on one sampled state."""
    NORMAL = "normal"
    """Information-set MCTS with a short budget."""
    STRONG = "strong"
    """Information-set MCTS with the long budget."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How much search one decision may use: wall-clock milliseconds or a fixed iteration count.

    A fixed count makes a decision reproducible for a seed (tests); a time budget adapts to the
    machine (play). When both are set the search stops at whichever comes first.
    """

    ms: float | None = None
    iterations: int | None = None

    def __post_init__(self) -> None:
        if self.ms is None and self.iterations is None:
            raise ValueError("a budget needs milliseconds or iterations")


LEVEL_BUDGETS: dict[Level, Budget] = {
    Level.NORMAL: Budget(ms=500.0),
    Level.STRONG: Budget(ms=2000.0),
}
"""The issue's limits on this 2-core machine: strong <= 2 s, normal <= 0.5 s per decision."""

NORMAL_SHARE = 0.25
"""With ``think_ms`` given, normal keeps its quarter of strong's time (0.5 s : 2 s)."""


def budget_for(level: Level, think_ms: float | None = None, iterations: int | None = None) -> Budget:
    """The search budget of ``level``; ``think_ms`` (or ``iterations``) is strong's, normal gets a quarter."""
    share = NORMAL_SHARE if level is Level.NORMAL else 1.0
    if iterations is not None:
        return Budget(iterations=max(1, round(iterations * share)))
    if think_ms is not None:
        return Budget(ms=think_ms * share)
    return LEVEL_BUDGETS.get(level, Budget(iterations=1))
