"""The end of a match as the match page shows it: who won, how, and the result table's rows."""

from __future__ import annotations

from dataclasses import dataclass

from app.services.schemas import MatchView


@dataclass(frozen=True, slots=True)
class ResultRow:
    seat: int
    name: str
    rank: int
    score: int | float
    tiebreaks: tuple[int, ...]
    resigned: bool


@dataclass(frozen=True, slots=True)
class MatchResult:
    """What the game-over banner says; ``rows`` in rank order (then seat order)."""

    winners: tuple[str, ...]
    resigned: tuple[str, ...]
    everybody_first: bool
    rows: tuple[ResultRow, ...]


def match_result(m: MatchView) -> MatchResult | None:
    """The finished match's result (None while it runs, and for aborted matches)."""
    o = m.outcome
    if m.status != "finished" or o is None:
        return None
    names = {s.seat: s.name or "" for s in m.seats}
    rows = tuple(
        ResultRow(
            seat=seat,
            name=names.get(seat, ""),
            rank=o.ranks[seat],
            score=_number(o.scores[seat]),
            tiebreaks=tuple(t.values[seat] for t in o.tiebreaks),
            resigned=seat in o.resigned,
        )
        for seat in sorted(range(len(o.ranks)), key=lambda s: (o.ranks[s], s))
    )
    return MatchResult(
        winners=tuple(r.name for r in rows if r.rank == 1),
        resigned=tuple(names.get(seat, "") for seat in o.resigned),
        everybody_first=all(r.rank == 1 for r in rows),
        rows=rows,
    )


def _number(score: float) -> int | float:
    """Scores are counts: 53, not 53.0."""
    return int(score) if score == int(score) else score
