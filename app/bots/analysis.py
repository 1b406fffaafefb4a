"""The strong bot's view of a finished match, step by step: pure and CPU-bound (the pool runs it).

For each replay step (a decision a player counts; a confirm belongs to the decision it ends):

- each seat's chance to win *before* the step: the mean reward of ``CHANCE_PLAYOUTS`` of the
  search's own playouts (greedy mostly, then the game's evaluation) from the true position —
  the match has ended, so nothing in it is hidden any more — normalised to sum to 1;
- the move the strong bot would have made from the acting seat's own observation (the same
  search the strong level plays with, on a small iteration budget), its estimated chance to
  win and that of the move played, so a step shows what the choice cost.

Only plain data crosses the process boundary: the seed and the logged (seat, move) pairs in,
JSON-ready dicts out. Each chunk replays the match from its seed up to its first step
(microseconds a decision), so chunks are independent and progress can be written between them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import app.games  # noqa: F401 - importing registers every game
from app.bots.budget import Budget
from app.bots.games import bot_game
from app.bots.halving import halving_search
from app.bots.observation import observe
from app.bots.search import _playout, search, terminal_rewards
from app.engine.protocol import Event, Game, IllegalMove, Move, Seat, State
from app.engine.registry import get_game
from app.engine.rng import Rng

ITERATIONS = 48
"""The search budget per analysed decision (bench/analysis.py measures what it costs)."""
CHANCE_PLAYOUTS = 6
"""Playouts per position for the win-chance graph."""


def analyse_steps(
    slug: str,
    ruleset: str,
    players: int,
    options: Mapping[str, Any],
    seed: bytes,
    moves: Sequence[tuple[Seat, str]],
    ends: Sequence[int],
    first: int,
    last: int,
    iterations: int = ITERATIONS,
) -> list[dict[str, Any]]:
    """The analysis of steps ``first``..``last`` (1-based, inclusive) of a finished match.

    Each item: ``step``, ``chances`` (per seat, before the step), ``seat``, ``played``,
    ``best``, ``played_value``, ``best_value`` (the acting seat's estimated chance to win after
    the move; None for a forced step), and ``best_text``/``played_text`` per locale.
    """
    game = get_game(slug, ruleset)
    bot = bot_game(slug)
    rng = Rng(seed)
    state = game.setup(players, options, rng)
    events: list[Event] = []
    done = 0
    start_of = [0, *ends]
    items: list[dict[str, Any]] = []
    for step in range(1, last + 1):
        begin, end = start_of[step - 1], start_of[step]
        if step >= first:
            seat, played = moves[begin][0], Move.parse(moves[begin][1])
            items.append(
                _analyse(game, bot, state, seat, played, events, players, options, seed, step, iterations)
            )
        for seat, text in moves[done:end]:
            state, caused = game.apply(state, seat, Move.parse(text), rng)
            events.extend(caused)
        done = end
    if last == len(ends):
        outcome = game.outcome(state)
        final = (
            _normalised(terminal_rewards(outcome))
            if outcome is not None
            else _chances(game, bot, state, seed, last)
        )
        items.append({"step": last + 1, "chances": final, "final": True})
    return items


def _analyse(
    game: Game,
    bot: Any,
    state: State,
    seat: Seat,
    played: Move,
    events: Sequence[Event],
    players: int,
    options: Mapping[str, Any],
    seed: bytes,
    step: int,
    iterations: int,
) -> dict[str, Any]:
    item: dict[str, Any] = {"step": step, "chances": _chances(game, bot, state, seed, step), "seat": seat}
    item["played"] = str(played)
    legal = game.legal_moves(state, seat)
    if len(legal) < 2:
        item |= {"best": str(played), "best_value": None, "played_value": None}
    else:
        obs = observe(game, state, seat, players, events, options)
        searcher = search if bot.rollout is None else halving_search
        found = searcher(game, bot, obs, random.Random(f"{step}:{seed.hex()}"), Budget(iterations=iterations))
        item |= {
            "best": str(found.move),
            "best_value": _rounded(found.means.get(found.move)),
            "played_value": _rounded(found.means.get(played)),
        }
    for key in ("best", "played"):
        item[f"{key}_text"] = {
            locale: _move_text(game, state, seat, Move.parse(item[key]), locale) for locale in ("en", "de")
        }
    return item


def _chances(game: Game, bot: Any, state: State, seed: bytes, step: int) -> list[float]:
    """Each seat's share of the mean playout reward from ``state`` (sums to 1)."""
    rng = random.Random(f"chances:{step}:{seed.hex()}")
    sums: list[float] | None = None
    for number in range(CHANCE_PLAYOUTS):
        chance = Rng(seed + b"analysis", (step * CHANCE_PLAYOUTS + number) << 20)
        rewards = _playout(game, bot, state, rng, chance)
        sums = list(rewards) if sums is None else [a + b for a, b in zip(sums, rewards, strict=True)]
    assert sums is not None
    return _normalised(sums)


def _normalised(values: Sequence[float]) -> list[float]:
    total = sum(values)
    if total <= 0:
        return [round(1.0 / len(values), 4)] * len(values)
    return [round(v / total, 4) for v in values]


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _move_text(game: Game, state: State, seat: Seat, move: Move, locale: str) -> str:
    """The move as its first log line says it ("Player 1 plays Brown 3: ..."), else its notation."""
    try:
        _, events = game.apply(state, seat, move, Rng(bytes(32)))
    except IllegalMove:
        return str(move)
    public = [e for e in events if e.audience is None]
    return game.describe(public[0], locale) if public else str(move)
