"""Draco positions searched for in real matches over the JSON API (tests and screenshot scenes)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from tests.browser.studio import Studio, User, any_move

CROWD = 4
"""Targets on one space that make it crowded: issue 20 saw four tags pile up on a space."""


def crowded_space(seen: dict[str, Any], crowd: int = CROWD) -> int | None:
    """The space that at least ``crowd`` of the seat's legal targets share, if any."""
    view = seen.get("view") or {}
    count = Counter(t["space"] for t in view.get("targets") or [] if t["move"] in seen["legal"])
    shared = sorted(space for space, n in count.items() if n >= crowd)
    return shared[0] if shared else None


def plays_first(match: dict[str, Any], rnd: random.Random) -> str:
    """Any play while one is legal, else any decision: the dragons climb and the hands turn over."""
    plays = [m for m in match["legal"] if m.startswith("play:")]
    return rnd.choice(plays) if plays else any_move(match, rnd)


def _crowded(seen: dict[str, Any]) -> bool:
    return crowded_space(seen) is not None


@dataclass(frozen=True)
class Crowd:
    """A match whose seat to act (``actor``) has ``CROWD`` targets on ``space``."""

    match_id: int
    actor: User
    space: int


def find_crowd(studio: Studio, names: tuple[str, ...] = ("ta", "tb", "tc"), matches: int = 40) -> Crowd:
    """Three-seat matches played at random until one reaches a crowded space (about one in
    eight does within 120 decisions; the studio's random source makes the search repeatable
    apart from the server's shuffles)."""
    for _ in range(matches):
        users = studio.users(*names)
        match_id = studio.match("draco", users)
        actor = studio.play(match_id, users, 120, policy=plays_first, until=_crowded)
        if actor is not None:
            space = crowded_space(studio.view(match_id, actor))
            if space is not None:
                return Crowd(match_id, actor, space)
    raise AssertionError(f"no Draco position with {CROWD} targets on one space in {matches} matches")
