"""Final standings beyond the rules: resigned seats rank behind everybody who played on."""

from __future__ import annotations

from collections.abc import Sequence


def resigned_last(ranks: Sequence[int], resigned: Sequence[int]) -> list[int]:
    """``ranks`` with the ``resigned`` seats moved behind the others, later resignations
    ranking better; the others keep their order (ties stay ties)."""
    if not resigned:
        return list(ranks)
    playing = [s for s in range(len(ranks)) if s not in resigned]
    new = [0] * len(ranks)
    for s in playing:
        new[s] = 1 + sum(1 for other in playing if ranks[other] < ranks[s])
    for place, s in enumerate(reversed(list(resigned)), start=len(playing) + 1):
        new[s] = place
    return new


RESIGNED = "you have resigned: the server plays your turns"
"""Why a resigned seat's decisions are refused (it has conceded; the server plays for it)."""
