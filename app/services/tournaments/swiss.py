"""Swiss pairing for two-player games, Dutch-system style (pure: no I/O).

Players are ranked by score, then seed (their rating order at the start). Each score group
is split in halves and the top half meets the bottom half (S1[i] against S2[i]); a player
who cannot be paired in the group floats down. A complete backtracking search guarantees
that nobody meets an opponent twice while any pairing without a rematch exists; colour (the
first seat: Felsental's dragon) is balanced by allocation, and a pairing that would give a
player the same seat a third time running or a seat difference above two is avoided while
another exists. Among the rest, the first pairing in the transposition order that denies the
fewest players their colour preference is taken (FIDE C.04.3 C.12 and D.1; searched briefly
for each count, so a large field cannot make it slow). With an odd number of players the
lowest-ranked player who has not had a bye gets it (one point), provided the others can then
be paired.

No maintained Python library fitted: the PyPI Swiss pairing packages are unmaintained or
wrap external binaries (bbpPairings, JaVaFo) the lock cannot install; so the rules are
written here and tested by property and against FIDE's published cases
(tests/tournaments/test_pairing.py, tests/tournaments/test_fide_examples.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field

FIRST, SECOND = 1, -1
PREFERENCE_PASSES = 3
"""Counts of denied colour preferences searched for (from the lower bound up) before the
preferences stop binding."""
PREFERENCE_STEPS_PER_PLAYER = 20
"""Search steps per player for each of those passes (a large field must not take long)."""


@dataclass
class SwissPlayer:
    """What pairing needs to know of one player (``seed``: 0 is the strongest)."""

    id: int
    seed: int
    score: float = 0.0
    opponents: set[int] = field(default_factory=set)
    colours: list[int] = field(default_factory=list)
    """FIRST or SECOND per game played, in order (byes and forfeits without a game: none)."""
    had_bye: bool = False

    @property
    def colour_difference(self) -> int:
        return sum(self.colours)


@dataclass(frozen=True)
class SwissRound:
    pairs: list[tuple[int, int]]
    """(first seat, second seat) player ids."""
    bye: int | None


class _Budget(Exception):
    pass


def pair_round(players: Sequence[SwissPlayer], *, max_steps: int = 200_000) -> SwissRound:
    """The next round's pairs for ``players`` (those still in the tournament)."""
    ranked = sorted(players, key=lambda p: (-p.score, p.seed))
    bye_candidates: Sequence[SwissPlayer | None] = [None]
    if len(ranked) % 2:
        # Lowest first: the lowest-ranked player without a bye; those with one as a last resort.
        bye_candidates = [p for p in reversed(ranked) if not p.had_bye] + [
            p for p in reversed(ranked) if p.had_bye
        ]
    for strict_colours in (True, False):
        for bye in bye_candidates:
            rest = [p for p in ranked if p is not bye]
            # Fewest players denied their colour preference first (C.04.3 C.12), each count
            # searched briefly in the transposition order; then preferences no longer bind.
            least = _fewest_denied(rest)
            limits: list[int | None] = [*range(least, least + PREFERENCE_PASSES), None]
            for limit in limits if strict_colours else [None]:
                steps = max_steps if limit is None else PREFERENCE_STEPS_PER_PLAYER * len(rest) + 100
                try:
                    found = _search(
                        rest,
                        strict_colours=strict_colours,
                        allow_rematch=False,
                        budget=[steps],
                        denials_left=limit,
                    )
                except _Budget:
                    found = None
                if found is not None:
                    return SwissRound([_allocate(a, b) for a, b in found], bye.id if bye else None)
    # No pairing without a rematch exists: allow rematches (fewest by the search order).
    bye = bye_candidates[0]
    rest = [p for p in ranked if p is not bye]
    found = _search(rest, strict_colours=False, allow_rematch=True, budget=[max_steps])
    assert found is not None
    return SwissRound([_allocate(a, b) for a, b in found], bye.id if bye else None)


def _search(
    ranked: list[SwissPlayer],
    *,
    strict_colours: bool,
    allow_rematch: bool,
    budget: list[int],
    denials_left: int | None = None,
) -> list[tuple[SwissPlayer, SwissPlayer]] | None:
    """Pairs for every player of ``ranked`` (in rank order), depth first in Dutch preference;
    ``denials_left``: how many more pairs may deny one player its colour preference."""
    if not ranked:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        raise _Budget
    top, others = ranked[0], ranked[1:]
    candidates = _preferences(top, others)
    if not strict_colours:
        # Colours no longer rule a pairing out, but a clash is still tried last.
        candidates.sort(key=lambda c: _colour_clash(top, c))
    for candidate in candidates:
        if not allow_rematch and candidate.id in top.opponents:
            continue
        if strict_colours and _colour_clash(top, candidate):
            continue
        left = denials_left
        if left is not None and _preference(top) is not None and _preference(top) == _preference(candidate):
            if left == 0:
                continue
            left -= 1
        rest = [p for p in others if p is not candidate]
        if not allow_rematch and not _each_has_someone(rest):
            continue
        found = _search(
            rest, strict_colours=strict_colours, allow_rematch=allow_rematch, budget=budget, denials_left=left
        )
        if found is not None:
            return [(top, candidate), *found]
    return None


def _preferences(top: SwissPlayer, others: list[SwissPlayer]) -> list[SwissPlayer]:
    """Opponents for the top player in preference order: its score group's bottom half from its
    top down (S2[0] first), then the group's top half upwards, then lower groups in rank order."""
    group = [p for p in others if p.score == top.score]
    lower = [p for p in others if p.score != top.score]
    half = (len(group) + 1) // 2
    # With the top player the group has len(group) + 1 players; S2 starts at its index ``half``.
    ordered = group[half - 1 :] + group[: half - 1][::-1] if group else []
    return ordered + lower


def _each_has_someone(rest: list[SwissPlayer]) -> bool:
    """Cheap pruning: every remaining player still has a possible opponent."""
    ids = {p.id for p in rest}
    return all(len(ids - p.opponents - {p.id}) > 0 for p in rest)


def _colour_clash(a: SwissPlayer, b: SwissPlayer) -> bool:
    """Both players would need the same seat absolutely (difference of two, or the same seat
    twice running)."""
    need_a, need_b = _absolute(a), _absolute(b)
    return need_a is not None and need_a == need_b


def _absolute(p: SwissPlayer) -> int | None:
    if p.colour_difference >= 2 or p.colours[-2:] == [FIRST, FIRST]:
        return SECOND
    if p.colour_difference <= -2 or p.colours[-2:] == [SECOND, SECOND]:
        return FIRST
    return None


def _preference(p: SwissPlayer) -> int | None:
    """The seat a player would like next (C.04.3 A.6): absolute, strong (a difference of one
    to make up) or mild (alternating from the last game); None before the first game."""
    if not p.colours:
        return None
    if p.colour_difference != 0:
        return SECOND if p.colour_difference > 0 else FIRST
    return -p.colours[-1]


def _fewest_denied(players: Sequence[SwissPlayer]) -> int:
    """A lower bound of the pairs that deny someone its preference: the players wanting the
    more wanted seat beyond those wanting the other one or nothing meet each other."""
    wants = [_preference(p) for p in players]
    first, second, free = wants.count(FIRST), wants.count(SECOND), wants.count(None)
    return max(0, max(first, second) - min(first, second) - free) // 2


def _allocate(a: SwissPlayer, b: SwissPlayer) -> tuple[int, int]:
    """(first, second): the one further behind on first seats gets it; then the one who had
    the second seat last (looking back until they differ); then the higher-ranked ``a``
    alternates from its last game; in round one the seats alternate down the seeds."""
    if a.colour_difference != b.colour_difference:
        return (a.id, b.id) if a.colour_difference < b.colour_difference else (b.id, a.id)
    for pa, pb in zip(reversed(a.colours), reversed(b.colours), strict=False):
        if pa != pb:
            return (a.id, b.id) if pa == SECOND else (b.id, a.id)
    if a.colours:  # ``a`` ranks higher (the search pairs the top player): it gets its due seat
        return (b.id, a.id) if a.colours[-1] == FIRST else (a.id, b.id)
    return (a.id, b.id) if a.seed % 2 == 0 else (b.id, a.id)


def players_from_history(
    seeds: Sequence[int],
    games: Sequence[tuple[int, int, float | None]],
    byes: Set[int] = frozenset(),
    bonus: Mapping[int, float] | None = None,
) -> list[SwissPlayer]:
    """SwissPlayers from the games so far: ``(first, second, first's points or None)``; ``seeds``
    the player ids strongest first; ``bonus`` extra points (byes, forfeit wins without a game)."""
    by_id = {pid: SwissPlayer(id=pid, seed=i) for i, pid in enumerate(seeds)}
    for first, second, points in games:
        a, b = by_id.get(first), by_id.get(second)
        for me, other, colour in ((a, second, FIRST), (b, first, SECOND)):
            if me is not None:
                me.opponents.add(other)
                me.colours.append(colour)
        if points is not None:
            if a is not None:
                a.score += points
            if b is not None:
                b.score += 1 - points
    for pid in byes:
        if pid in by_id:
            by_id[pid].had_bye = True
    for pid, extra in (bonus or {}).items():
        if pid in by_id:
            by_id[pid].score += extra
    return [by_id[pid] for pid in seeds]
