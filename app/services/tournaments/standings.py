"""Standings and tie-breaks (pure: no I/O).

Points per table: a player gets one point for every player ranked below them and half for
each tied with them (two-player games: win 1, draw 1/2, loss 0; a four-player table: 3, 2, 1, 0
placement points). A bye is worth a win. Tie-breaks:

- Swiss: Buchholz (the sum of the opponents' points), then Sonneborn-Berger (the points of
  opponents beaten, plus half of those drawn with).
- Round robin: two-player Sonneborn-Berger; multi-player the game score summed.
- Then, for every format, a draw seeded by the tournament, so equal players are ordered
  the same way on every page and every server.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Table:
    """A finished (or forfeited) table: players in seat order, their ranks (1 best) and scores."""

    players: tuple[int, ...]
    ranks: tuple[int, ...]
    scores: tuple[float, ...] = ()


@dataclass
class Standing:
    player: int
    points: float = 0.0
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    score: float = 0.0
    games: int = 0
    byes: int = 0
    draw: int = 0
    opponents: list[int] = field(default_factory=list)
    place: int = 0
    reached: int | None = None
    """Knockout: the last round the player played in."""


def table_points(ranks: Sequence[int]) -> list[float]:
    """Placement points of each seat: one per player ranked below, half per player tied."""
    return [
        sum(1.0 if r < other else 0.5 if r == other else 0.0 for j, other in enumerate(ranks) if j != i)
        for i, r in enumerate(ranks)
    ]


def seeded_draw(seed: str, player: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}:{player}".encode()).digest()[:8], "big")


def compute(
    players: Sequence[int],
    tables: Sequence[Table],
    byes: Mapping[int, int],
    *,
    fmt: str,
    seed: str,
) -> list[Standing]:
    """Every player's standing, best first, places shared by nobody (the draw decides last)."""
    rows = {p: Standing(player=p, draw=seeded_draw(seed, p)) for p in players}
    for table in tables:
        points = table_points(table.ranks)
        for i, p in enumerate(table.players):
            row = rows.get(p)
            if row is None:
                continue
            row.points += points[i]
            row.games += 1
            if table.scores:
                row.score += table.scores[i]
            row.opponents += [q for q in table.players if q != p]
    for p, count in byes.items():
        if p in rows:
            rows[p].byes += count
            rows[p].points += count
    for table in tables:
        if len(table.players) != 2:
            continue
        points = table_points(table.ranks)
        for i, p in enumerate(table.players):
            other = table.players[1 - i]
            if p in rows and other in rows:
                rows[p].sonneborn_berger += points[i] * rows[other].points
    for row in rows.values():
        row.buchholz = sum(rows[o].points for o in row.opponents if o in rows)
    ordered = sorted(rows.values(), key=lambda r: _key(r, fmt), reverse=True)
    for place, row in enumerate(ordered, start=1):
        row.place = place
    return ordered


def _key(row: Standing, fmt: str) -> tuple[float, ...]:
    if fmt == "swiss":
        return (row.points, row.buchholz, row.sonneborn_berger, row.draw)
    return (row.points, row.sonneborn_berger, row.score, row.draw)
