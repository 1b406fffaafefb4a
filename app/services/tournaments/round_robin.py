"""Round robin in groups (pure: no I/O).

Two-player games: the circle method (everybody meets everybody once, the first seat
alternating). Multi-player tables: a fixed number of rounds whose tables are chosen so that
every pair of a group shares a table as evenly as possible (a seeded greedy search that
keeps the smallest count of shared tables per pair as high as it can).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations


def groups(players: Sequence[int], group_size: int) -> list[list[int]]:
    """Split players (strongest first) into groups of at most ``group_size``, snake-seeded so
    every group gets a similar mix of strong and weak players."""
    count = max(1, -(-len(players) // group_size))
    out: list[list[int]] = [[] for _ in range(count)]
    for i, player in enumerate(players):
        lap, pos = divmod(i, count)
        out[pos if lap % 2 == 0 else count - 1 - pos].append(player)
    return out


def circle_rounds(players: Sequence[int]) -> list[list[tuple[int, int | None]]]:
    """Every round of a two-player round robin: pairs (first seat, second seat); an odd count
    gives one player a bye per round, shown as ``(player, None)``."""
    ring: list[int | None] = list(players)
    if len(ring) % 2:
        ring.append(None)
    n = len(ring)
    rounds = []
    for r in range(n - 1):
        pairs: list[tuple[int, int | None]] = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if (i == 0 and r % 2) or i % 2:
                a, b = b, a  # seats alternate round by round (and board by board)
            if a is None:
                a, b = b, None
            assert a is not None
            pairs.append((a, b))
        rounds.append(pairs)
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def table_sizes(count: int, table_size: int, min_size: int) -> list[int]:
    """Split ``count`` players into tables of at most ``table_size`` and at least ``min_size``
    (as equal as possible)."""
    tables = -(-count // table_size)
    if count < min_size:
        raise ValueError("too few players for one table")
    base, extra = divmod(count, tables)
    sizes = [base + 1] * extra + [base] * (tables - extra)
    if min(sizes) < min_size:
        raise ValueError("these players cannot be seated at tables of this size")
    return sizes


def table_rounds(
    players: Sequence[int],
    table_size: int,
    rounds: int,
    *,
    min_size: int = 2,
    seed: int = 0,
    tries: int = 200,
) -> list[list[list[int]]]:
    """``rounds`` rounds of tables for a multi-player group, sharing tables as evenly as possible."""
    rng = random.Random(seed)
    sizes = table_sizes(len(players), table_size, min_size)
    met: Counter[tuple[int, int]] = Counter()
    out = []
    for _ in range(rounds):
        best: list[list[int]] | None = None
        best_cost: tuple[int, int] | None = None
        for _ in range(tries):
            tables = _greedy_tables(list(players), sizes, met, rng)
            cost = _cost(tables, met)
            if best_cost is None or cost < best_cost:
                best, best_cost = tables, cost
        assert best is not None
        for table in best:
            for a, b in combinations(sorted(table), 2):
                met[(a, b)] += 1
        out.append(best)
    return out


def _greedy_tables(
    pool: list[int], sizes: list[int], met: Counter[tuple[int, int]], rng: random.Random
) -> list[list[int]]:
    rng.shuffle(pool)
    tables: list[list[int]] = []
    for size in sizes:
        table = [pool.pop()]
        while len(table) < size:
            # The player who has met this table least so far (random among equals: the shuffle).
            pick = min(pool, key=lambda p: sum(met[_key(p, q)] for q in table))
            pool.remove(pick)
            table.append(pick)
        tables.append(table)
    return tables


def _cost(tables: list[list[int]], met: Counter[tuple[int, int]]) -> tuple[int, int]:
    """(the highest count any pair would reach, the sum of squares): lower is more even."""
    counts = [met[_key(a, b)] + 1 for t in tables for a, b in combinations(t, 2)]
    return max(counts, default=0), sum(c * c for c in counts)


def _key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)
