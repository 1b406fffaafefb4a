"""What the search needs to know about each game beyond the engine protocol.

Per game: ``determinise`` samples a full state consistent with one seat's observation (the
hidden parts drawn from what that seat cannot rule out), ``evaluate`` scores a non-final state
for every seat (the search cuts its playouts short and asks it), a playout depth, and
optionally a fast ``rollout`` of the game's own.

These live beside the bots rather than in the game packages so the engine protocol stays as it
is; each module reads only its game's public data tables and state classes.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.bots.observation import Observation
from app.engine.protocol import State


@dataclass(frozen=True, slots=True)
class BotGame:
    determinise: Callable[[Observation, random.Random], State]
    evaluate: Callable[[State], tuple[float, ...]]
    """Per seat, a value in [0, 1] that estimates its chance to win."""
    playout_depth: int
    """Random decisions after the tree before ``evaluate`` is asked."""
    rollout: Callable[[State, random.Random], tuple[float, ...]] | None = None
    """A fast playout from a state to a reward per seat, where the game has one; the bot then
    chooses among its root moves by sequential halving (``app.bots.halving``), not by a tree."""


class NoBotForGame(LookupError):
    """No bot adapter is known for this game."""


def bot_game(slug: str) -> BotGame:
    # Imported here: each adapter imports its game's rules, and a caller needs only one.
    if slug == "draco":
        from app.bots.games import draco as module
    elif slug == "drachenland":
        from app.bots.games import drachenland as module  # type: ignore[no-redef]
    elif slug == "felsental":
        from app.bots.games import felsental as module  # type: ignore[no-redef]
    else:
        raise NoBotForGame(f"no bot plays {slug!r}")
    return module.BOT_GAME


def margin_rewards(values: Sequence[float], scale: float) -> tuple[float, ...]:
    """Each seat's lead over its best rival, squashed into (0, 1): 0.5 is level."""
    rewards = []
    for seat, mine in enumerate(values):
        best_other = max(v for s, v in enumerate(values) if s != seat)
        rewards.append(logistic((mine - best_other) / scale))
    return tuple(rewards)


def logistic(x: float) -> float:
    """The standard logistic function: 0.5 at 0, towards 1 for large ``x``."""
    return 1.0 / (1.0 + math.exp(-x))
