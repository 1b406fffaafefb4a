"""Knockout brackets (pure: no I/O).

Two-player games: a bracket of the next power of two seeded by rating (1 against the lowest
seed, the top seeds get the byes), the winner of each match goes on. Multi-player tables:
tables seeded snake-wise, the best ``advance`` of each table go on, until the players left fit
at one final table.
"""

from __future__ import annotations

from collections.abc import Sequence


def bracket_order(size: int) -> list[int]:
    """Seed numbers (0-based) in bracket order for a power-of-two ``size``: 0,7,3,4,1,6,2,5 for 8,
    so the two best seeds can meet in the final only."""
    order = [0]
    while len(order) < size:
        n = len(order) * 2
        order = [s for seed in order for s in (seed, n - 1 - seed)]
    return order


def first_round(players: Sequence[int]) -> list[tuple[int, int | None]]:
    """The first round's pairs of a two-player bracket (strongest first); ``None``: a bye."""
    size = 1
    while size < len(players):
        size *= 2
    order = bracket_order(size)
    slots = [players[s] if s < len(players) else None for s in order]
    pairs: list[tuple[int, int | None]] = []
    for i in range(0, size, 2):
        a, b = slots[i], slots[i + 1]
        if a is None:
            a, b = b, a
        assert a is not None
        pairs.append((a, b))
    return pairs


def next_round(winners: Sequence[int]) -> list[tuple[int, int | None]]:
    """The next round of a two-player bracket: the winners in bracket order, neighbours meet."""
    pairs: list[tuple[int, int | None]] = []
    for i in range(0, len(winners), 2):
        pairs.append((winners[i], winners[i + 1] if i + 1 < len(winners) else None))
    return pairs


def tables(players: Sequence[int], table_size: int, min_size: int = 2) -> list[list[int]]:
    """Multi-player knockout tables: ``players`` (strongest first) snake-seeded into as few tables
    as hold them (each at least ``min_size``)."""
    count = -(-len(players) // table_size)
    while count > 1 and len(players) // count < min_size:
        count -= 1
    out: list[list[int]] = [[] for _ in range(count)]
    for i, player in enumerate(players):
        lap, pos = divmod(i, count)
        out[pos if lap % 2 == 0 else count - 1 - pos].append(player)
    return out


def advancing(tables_ranked: Sequence[Sequence[int]], advance: int) -> list[int]:
    """Who goes on: the best ``advance`` of each table (each table's players best first), in
    seeding order for the next round (all table winners, then all runners-up, ...)."""
    out = []
    for place in range(advance):
        out += [t[place] for t in tables_ranked if place < len(t)]
    return out
