"""Root move choice by sequential halving over rollouts, with common random numbers.

For games whose adapter has a fast ``rollout``, a tree of the bot's own later decisions barely
grows within a budget of a hundred samples, and the noise of the samples, not their depth,
decides which move looks best. So the budget goes to the root moves only: in each round every
move still in the race is tried on the same sampled states with the same dice (common random
numbers: the moves' differences then show through the luck of the sample), and the worse half
is dropped (Karnin, Koren and Somekh 2013). With ``k`` moves there are ``ceil(log2 k)`` rounds,
each with an equal share of the budget.
"""

from __future__ import annotations

import hashlib
import math
import random
import time

from app.bots.budget import Budget
from app.bots.games import BotGame
from app.bots.observation import Observation
from app.bots.search import SearchResult, terminal_rewards
from app.engine.protocol import Game, Move, State
from app.engine.rng import Rng


def halving_search(
    game: Game, bot: BotGame, obs: Observation, rng: random.Random, budget: Budget
) -> SearchResult:
    """The root move with the best mean reward once the halving rounds are done."""
    assert bot.rollout is not None, "sequential halving needs the game's fast rollout"
    alive = obs.legal_moves
    totals = dict.fromkeys(alive, 0.0)
    samples = dict.fromkeys(alive, 0)
    rounds = max(1, math.ceil(math.log2(len(alive))))
    started = time.perf_counter()
    iterations = 0
    greedy: Move | None = None
    for number in range(rounds):
        # Each round's share of the budget: a count of samples per move, or a slice of the time.
        per_move = None if budget.iterations is None else max(1, budget.iterations // (rounds * len(alive)))
        until = None if budget.ms is None else started + budget.ms / 1000.0 * (number + 1) / rounds
        done = 0
        while done == 0 or not _round_over(done, per_move, until):
            state = bot.determinise(obs, rng)
            if greedy is None:
                greedy = game.timeout_move(state, obs.seat)
            seed = rng.getrandbits(64)
            chance = hashlib.sha256(seed.to_bytes(8, "big")).digest()
            for move in alive:
                reward = _sample(game, bot, state, obs.seat, move, Rng(chance), random.Random(seed))
                totals[move] += reward
                samples[move] += 1
            iterations += len(alive)
            done += 1
        # Equal means (a starved budget) keep the greedy move: the bot then plays like easy.
        ranked = sorted(alive, key=lambda m: (totals[m] / samples[m], m == greedy), reverse=True)
        alive = ranked[: math.ceil(len(alive) / 2)]
    means = {move: totals[move] / samples[move] for move in totals if samples[move]}
    return SearchResult(alive[0], iterations, samples, means)


def _round_over(done: int, per_move: int | None, until: float | None) -> bool:
    if per_move is not None and done >= per_move:
        return True
    return until is not None and time.perf_counter() >= until


def _sample(
    game: Game, bot: BotGame, state: State, me: int, move: Move, chance: Rng, luck: random.Random
) -> float:
    """The reward of ``move`` in one sampled state: the engine applies it, the rollout goes on."""
    assert bot.rollout is not None
    after, _ = game.apply(state, me, move, chance)
    outcome = game.outcome(after)
    rewards = terminal_rewards(outcome) if outcome is not None else bot.rollout(after, luck)
    return rewards[me]
