"""Information-set Monte Carlo tree search with determinisation, over the bot's own decisions.

Each iteration samples one full state consistent with the bot's observation and walks one
shared tree with the moves legal in that sample (UCB1 with availability counts, as in
Cowling, Powley and Whitehouse's SO-ISMCTS, 2012). The tree holds only the bot's own
decisions: the other seats are modelled by their greedy move in the sample (mostly; now and
then a random one), because their choices depend on cards the bot cannot see, and nodes keyed
by them would scatter the statistics over every sampled hand. After a new node the playout
continues for a few decisions (greedy mostly, random sometimes) and the game's evaluation, or
the outcome if the game ended, is the reward. Nodes are reached by move sequences, not states,
so dice and hidden cards are averaged over rather than branched on (open loop).

The search starts from the greedy move (it is expanded first and gets a small progressive
bias), so with a tiny budget the bot plays like the easy level and deviates only where the
playouts find something better. Tuned against the easy level at 100 iterations a decision.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from dataclasses import dataclass, field

from app.bots.budget import Budget
from app.bots.games import BotGame
from app.bots.observation import Observation
from app.engine.protocol import Game, Move, Outcome, Seat, State
from app.engine.rng import Rng

EXPLORATION = 0.3
"""UCB1's exploration constant for rewards in [0, 1]; tournaments against the easy level did
better with 0.3 than with 0.7 (most moves are plainly bad, the budget is better spent deep)."""
GREEDY_BIAS = 0.1
"""Progressive bias towards the greedy move (bias / visits): the search starts from what the
easy level would play, and deviates only where its playouts say so."""
GREEDY_PLAYOUT = 0.75
"""Share of playout moves taken by the game's greedy player (the rest uniformly random): greedy
playouts say far more about a move than random ones, the random share keeps them varied."""
OPPONENT_GREEDY = 0.9
"""How often a modelled rival plays its greedy move (the rest: any legal move, so the search does
not count on one exact reply)."""
_DRAWS_PER_ITERATION = 1 << 20
"""Each iteration reads its own range of the simulation Rng, so no two share a die roll."""


@dataclass(slots=True)
class _Node:
    """One decision of the bot, reached by the bot's moves so far (others' moves are not keys)."""

    visits: int = 0
    total: float = 0.0
    available: int = 0
    """How often this move was legal when its parent was passed (ISMCTS's UCB denominator)."""
    children: dict[Move, _Node] = field(default_factory=dict)
    greedy: Move | None = None
    """The greedy move in the first sample that passed here (biases UCB, see ``GREEDY_BIAS``)."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    move: Move
    iterations: int
    visits: dict[Move, int]
    means: dict[Move, float]
    """The mean reward of each root move for the deciding seat (for tuning and reports)."""


def search(game: Game, bot: BotGame, obs: Observation, rng: random.Random, budget: Budget) -> SearchResult:
    """The root move visited most often once the budget is spent."""
    offered = obs.legal_moves
    root_moves = frozenset(offered)
    root = _Node()
    sim_seed = hashlib.sha256(rng.getrandbits(256).to_bytes(32, "big")).digest()
    deadline = None if budget.ms is None else time.perf_counter() + budget.ms / 1000.0
    iterations = 0
    while iterations == 0 or not _spent(budget, iterations, deadline):
        state = bot.determinise(obs, rng)
        chance = Rng(sim_seed, iterations * _DRAWS_PER_ITERATION)
        _iterate(game, bot, state, obs.seat, root, root_moves, offered, rng, chance)
        iterations += 1
    visits = {move: child.visits for move, child in root.children.items()}
    means = {move: child.total / child.visits for move, child in root.children.items() if child.visits}
    # Most visits is the robust choice. Ties (a budget too small to tell moves apart) go to the
    # greedy move, so a starved search plays like the easy level rather than like a coin.
    best = max(offered, key=lambda m: (visits.get(m, -1), m == root.greedy, means.get(m, 0.0)))
    return SearchResult(best, iterations, visits, means)


def terminal_rewards(outcome: Outcome) -> tuple[float, ...]:
    """A win (a shared first place too) is 1, anything else 0."""
    return tuple(1.0 if rank == 1 else 0.0 for rank in outcome.ranks)


# --- private helpers -------------------------------------------------------------------------


def _spent(budget: Budget, iterations: int, deadline: float | None) -> bool:
    if budget.iterations is not None and iterations >= budget.iterations:
        return True
    return deadline is not None and time.perf_counter() >= deadline


def _iterate(
    game: Game,
    bot: BotGame,
    state: State,
    me: Seat,
    root: _Node,
    root_moves: frozenset[Move],
    offered: list[Move],
    rng: random.Random,
    chance: Rng,
) -> None:
    node = root
    path = [root]
    outcome = game.outcome(state)
    while outcome is None:
        seat = min(game.to_act(state))
        moves = game.legal_moves(state, seat)
        if seat != me:
            # Other seats are not searched but modelled, by their greedy move in this sample: a
            # node of theirs would be keyed by cards the bot cannot see, and split its statistics
            # across every sampled hand (the dilution that makes plain SO-ISMCTS weak here).
            state, _ = game.apply(
                state, seat, _policy(game, state, seat, moves, rng, OPPONENT_GREEDY), chance
            )
            outcome = game.outcome(state)
            continue
        if node is root:
            # Only what the seat was really offered: a sample may allow a little more.
            moves = [m for m in moves if m in root_moves] or offered
        for move in moves:
            child = node.children.get(move)
            if child is not None:
                child.available += 1
        if node.greedy is None:
            node.greedy = _greedy(game, state, seat, moves)
        untried = [m for m in moves if m not in node.children]
        if untried:
            # The greedy move first, the others in random order.
            move = node.greedy if node.greedy in untried else untried[rng.randrange(len(untried))]
            child = node.children[move] = _Node(available=1)
        else:
            move = _ucb(node, moves)
            child = node.children[move]
        state, _ = game.apply(state, seat, move, chance)
        path.append(child)
        node = child
        outcome = game.outcome(state)
        if child.visits == 0:
            break
    rewards = terminal_rewards(outcome) if outcome is not None else _playout(game, bot, state, rng, chance)
    for visited in path[1:]:
        visited.visits += 1
        visited.total += rewards[me]


def _ucb(node: _Node, moves: list[Move]) -> Move:
    best, best_value = moves[0], -1.0
    for move in moves:
        child = node.children[move]
        value = child.total / child.visits + EXPLORATION * math.sqrt(math.log(child.available) / child.visits)
        if move == node.greedy:
            value += GREEDY_BIAS / child.visits
        if value > best_value:
            best, best_value = move, value
    return best


def _playout(game: Game, bot: BotGame, state: State, rng: random.Random, chance: Rng) -> tuple[float, ...]:
    for _ in range(bot.playout_depth):
        outcome = game.outcome(state)
        if outcome is not None:
            return terminal_rewards(outcome)
        seat = min(game.to_act(state))
        moves = game.legal_moves(state, seat)
        state, _ = game.apply(state, seat, _policy(game, state, seat, moves, rng, GREEDY_PLAYOUT), chance)
    outcome = game.outcome(state)
    return terminal_rewards(outcome) if outcome is not None else bot.evaluate(state)


def _policy(
    game: Game, state: State, seat: Seat, moves: list[Move], rng: random.Random, greedy: float
) -> Move:
    """The greedy move with probability ``greedy``, else a uniformly random one."""
    if len(moves) == 1:
        return moves[0]
    if rng.random() < greedy:
        return _greedy(game, state, seat, moves)
    return moves[rng.randrange(len(moves))]


def _greedy(game: Game, state: State, seat: Seat, moves: list[Move]) -> Move:
    move = game.timeout_move(state, seat)
    return move if move in moves else moves[0]
