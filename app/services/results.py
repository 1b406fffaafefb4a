"""A finished match's result: what is stored when it ends and what the pages are given.

``matches.result`` is JSON: the scores and ranks, and what a result table needs beyond them
(what the score counts, the game's tie-breaks, how the match ended if not by its rules, who
resigned), so a finished match never has to be rebuilt to show who won and why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.engine.protocol import Outcome
from app.services.schemas import OutcomeOut, TiebreakOut


def stored(outcome: Outcome) -> dict[str, Any]:
    """The ``result`` column of a match its rules have ended."""
    return {
        "scores": list(outcome.scores),
        "ranks": list(outcome.ranks),
        "score_label": outcome.score_label,
        "tiebreaks": [{"label": t.label, "values": list(t.values)} for t in outcome.tiebreaks],
    }


def concluded(ranks: Sequence[int], conclusion: str, resigned: Sequence[int] = ()) -> dict[str, Any]:
    """The ``result`` of a match ended otherwise (resignation, draw, vote): ranks, no scores."""
    return {
        "scores": [0.0] * len(ranks),
        "ranks": list(ranks),
        "conclusion": conclusion,
        "resigned": [int(s) for s in resigned],
    }


def outcome_out(result: Mapping[str, Any] | None) -> OutcomeOut | None:
    """The result as the views carry it (None before the end, and for aborted matches)."""
    if not result or "scores" not in result:
        return None
    scores = [float(s) for s in result["scores"]]
    ranks = [int(r) for r in result["ranks"]]
    tiebreaks = [TiebreakOut(label=t["label"], values=list(t["values"])) for t in result.get("tiebreaks", ())]
    return OutcomeOut(
        scores=scores,
        ranks=ranks,
        score_label=result.get("score_label", ""),
        tiebreaks=tiebreaks,
        tiebreak_decided=bool(tiebreaks) and _ranked_apart(scores, ranks),
        conclusion=result.get("conclusion"),
        resigned=[int(s) for s in result.get("resigned", ())],
    )


def _ranked_apart(scores: Sequence[float], ranks: Sequence[int]) -> bool:
    """Two seats with the same score and different ranks: something else decided."""
    return any(
        scores[a] == scores[b] and ranks[a] != ranks[b]
        for a in range(len(scores))
        for b in range(a + 1, len(scores))
    )
