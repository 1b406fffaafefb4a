"""Computer opponents: decide a move from what one seat may know, and nothing else.

The public surface: ``Observation`` (a seat's view, its legal moves and the public log),
``observe`` (builds one at the table), ``decide`` (pure, CPU-bound), ``decide_async`` (the same
in a process pool, for an event loop), ``Level`` and ``Budget``.
"""

from __future__ import annotations

from app.bots.budget import LEVEL_BUDGETS, Budget, Level, budget_for
from app.bots.decide import decide
from app.bots.observation import Observation, observe
from app.bots.pool import decide_async, shutdown_pool

__all__ = [
    "LEVEL_BUDGETS",
    "Budget",
    "Level",
    "Observation",
    "budget_for",
    "decide",
    "decide_async",
    "observe",
    "shutdown_pool",
]
