"""The bots' one entry point: a move for an observation, a level, a seed and a budget."""

from __future__ import annotations

import random

import app.games  # noqa: F401 - importing registers every game
from app.bots.budget import Budget, Level, budget_for
from app.bots.games import bot_game
from app.bots.halving import halving_search
from app.bots.observation import Observation
from app.bots.search import search
from app.engine.protocol import Move
from app.engine.registry import get_game


def decide(obs: Observation, level: Level, seed: int, budget: Budget | None = None) -> Move:
    """The move the bot of ``level`` takes; the same observation, seed and iteration budget give
    the same move. Pure and CPU-bound: from an event loop use ``decide_async``.

    The bot is given an observation, never a state: whatever is hidden from its seat cannot
    reach it, so it cannot influence the decision.
    """
    legal = obs.legal_moves
    if not legal:
        raise ValueError(f"seat {obs.seat} has nothing to decide")
    if len(legal) == 1:
        return legal[0]  # a forced step (a lone confirm): nothing to think about
    rng = random.Random(seed)
    if level is Level.RANDOM:
        return legal[rng.randrange(len(legal))]
    game = get_game(obs.game)
    bot = bot_game(obs.game)
    if level is Level.EASY:
        # The game's greedy timeout player, on a sampled state: it reads only the own hand and
        # public facts, so any consistent sample gives the move it would make on the true one.
        move = game.timeout_move(bot.determinise(obs, rng), obs.seat)
        return move if move in legal else legal[0]
    searcher = search if bot.rollout is None else halving_search
    return searcher(game, bot, obs, rng, budget or budget_for(level)).move
