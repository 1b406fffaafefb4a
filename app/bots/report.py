"""Tallies of bot matches by level, and the Wilson interval for the win rates."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from app.bots.arena import MatchResult

Z_95 = 1.959964


def wilson(wins: int, games: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for a win rate (sound near 0 and 1, unlike the normal one)."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(slots=True)
class _Figures:
    seats: int = 0
    wins: int = 0
    decisions: int = 0
    seconds: float = 0.0


@dataclass(slots=True)
class LevelTally:
    """Seats, wins, decisions and thinking time per level over many matches."""

    levels: dict[str, _Figures] = field(default_factory=dict)
    games: int = 0

    def add(self, result: MatchResult) -> None:
        self.games += 1
        for seat, level in enumerate(result.levels):
            figures = self.levels.setdefault(str(level), _Figures())
            figures.seats += 1
            figures.wins += result.winners[seat]
            figures.decisions += result.decisions[seat]
            figures.seconds += result.seconds[seat]

    @property
    def decisions(self) -> int:
        return sum(f.decisions for f in self.levels.values())

    def summary(self) -> dict[str, dict[str, float | int | list[float]]]:
        """Per level: seats, wins, win rate (and its 95 % interval), ms and decisions per second."""
        result: dict[str, dict[str, float | int | list[float]]] = {}
        for level, f in self.levels.items():
            low, high = wilson(f.wins, f.seats)
            result[level] = {
                "seats": f.seats,
                "wins": f.wins,
                "win_rate": round(f.wins / f.seats, 3) if f.seats else 0.0,
                "win_rate_95": [round(low, 3), round(high, 3)],
                "ms_per_decision": round(1000 * f.seconds / f.decisions, 3) if f.decisions else 0.0,
                "decisions_per_s": round(f.decisions / f.seconds, 1) if f.seconds else 0.0,
            }
        return result
