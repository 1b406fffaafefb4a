"""Information-set Monte Carlo tree search with determinisation (single observer, open loop).

Each iteration samples one full state consistent with the bot's observation, walks the one
shared tree with the moves that are legal in that sample (UCB1 with availability counts, as
Cowling, Powley and Whitehouse 2012 describe for SO-ISMCTS), adds one node, plays random moves
for a few decisions and asks the game's evaluation (or the outcome, if the game ended). A node
is reached by a sequence of moves, not by a state, so chance and hidden cards are averaged over
instead of branching: the tree stores what the bot can distinguish, and nothing it cannot.

Every seat maximises its own reward (a value in [0, 1] per seat), so the same search plays
two-seat duels and five-seat tables.
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

EXPLORATION = 0.7
"""UCB1's exploration constant for rewards in [0, 1] (a little under sqrt(2): playouts are noisy)."""
GREEDY_PLAYOUT = 0.75
"""Share of playout moves taken by the game's greedy player (the rest uniformly random): greedy
playouts say far more about a move than random ones, the random share keeps them varied."""
_DRAWS_PER_ITERATION = 1 << 20
"""Each iteration reads its own range of the simulation Rng, so no two share a die roll."""


@dataclass(slots=True)
class _Node:
    seat: Seat
    """The seat whose move led here (its reward is what this node collects)."""
    visits: int = 0
    total: float = 0.0
    available: int = 0
    """How often this move was legal when its parent was passed (ISMCTS's UCB denominator)."""
    children: dict[Move, _Node] = field(default_factory=dict)


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
    root = _Node(seat=-1)
    sim_seed = hashlib.sha256(rng.getrandbits(256).to_bytes(32, "big")).digest()
    deadline = None if budget.ms is None else time.perf_counter() + budget.ms / 1000.0
    iterations = 0
    while iterations == 0 or not _spent(budget, iterations, deadline):
        state = bot.determinise(obs, rng)
        chance = Rng(sim_seed, iterations * _DRAWS_PER_ITERATION)
        _iterate(game, bot, state, root, root_moves, offered, rng, chance)
        iterations += 1
    visits = {move: child.visits for move, child in root.children.items()}
    # Most visits is the robust choice; ties (tiny budgets) go to the earlier legal move.
    best = max(offered, key=lambda m: (visits.get(m, -1), -offered.index(m)))
    means = {move: child.total / child.visits for move, child in root.children.items() if child.visits}
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
        if node is root:
            # Only what the seat was really offered: a sample may allow a little more.
            moves = [m for m in moves if m in root_moves] or offered
        for move in moves:
            child = node.children.get(move)
            if child is not None:
                child.available += 1
        untried = [m for m in moves if m not in node.children]
        if untried:
            # The greedy move first: with a small budget the search then starts from what the
            # easy level would play and has to find something better to deviate.
            greedy = _greedy(game, state, seat, moves)
            move = greedy if greedy in untried else untried[rng.randrange(len(untried))]
            child = node.children[move] = _Node(seat=seat, available=1)
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
        visited.total += rewards[visited.seat]


def _ucb(node: _Node, moves: list[Move]) -> Move:
    best, best_value = moves[0], -1.0
    for move in moves:
        child = node.children[move]
        value = child.total / child.visits + EXPLORATION * math.sqrt(math.log(child.available) / child.visits)
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
        if len(moves) == 1:
            move = moves[0]
        elif rng.random() < GREEDY_PLAYOUT:
            move = _greedy(game, state, seat, moves)
        else:
            move = moves[rng.randrange(len(moves))]
        state, _ = game.apply(state, seat, move, chance)
    outcome = game.outcome(state)
    return terminal_rewards(outcome) if outcome is not None else bot.evaluate(state)


def _greedy(game: Game, state: State, seat: Seat, moves: list[Move]) -> Move:
    move = game.timeout_move(state, seat)
    return move if move in moves else moves[0]
