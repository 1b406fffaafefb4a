"""Deterministic, secret-seeded randomness.

Draw *k* of a match is HMAC-SHA256(seed, k): the same seed and the same sequence of draws
give the same shuffles and dice (replays, tests), while players who do not know the 256-bit
seed cannot predict them. The counter is part of the committed match state, so a replay
and the live match consume exactly the same draws.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def new_seed() -> bytes:
    """A fresh secret 256-bit match seed."""
    return secrets.token_bytes(32)


class Rng:
    """The only source of chance for games: ``randbelow``, ``die``, ``choice``, ``shuffled``."""

    __slots__ = ("_counter", "_seed")

    def __init__(self, seed: bytes, counter: int = 0) -> None:
        if len(seed) < 16:
            raise ValueError("a match seed needs at least 128 bits")
        self._seed = seed
        self._counter = counter

    @property
    def counter(self) -> int:
        """How many draws have been taken; stored with the committed state."""
        return self._counter

    def __repr__(self) -> str:
        # Never print the seed: it would let a reader of logs predict the match.
        return f"Rng(<secret>, counter={self._counter})"

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("randbelow needs a positive bound")
        limit = (1 << 256) - ((1 << 256) % n)
        while True:
            digest = hmac.new(self._seed, self._counter.to_bytes(8, "big"), hashlib.sha256).digest()
            self._counter += 1
            value = int.from_bytes(digest, "big")
            if value < limit:
                return value % n

    def die(self, sides: int = 6) -> int:
        """A die roll, 1..sides."""
        return 1 + self.randbelow(sides)

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise ValueError("cannot choose from an empty sequence")
        return items[self.randbelow(len(items))]

    def shuffled(self, items: Sequence[T]) -> tuple[T, ...]:
        """A Fisher-Yates shuffle of a copy; the input order must be deterministic."""
        result = list(items)
        for i in range(len(result) - 1, 0, -1):
            j = self.randbelow(i + 1)
            result[i], result[j] = result[j], result[i]
        return tuple(result)


class RecordingRng(Rng):
    """An ``Rng`` that notes each outcome as (bound, value): what a match record writes out."""

    __slots__ = ("draws",)

    def __init__(self, seed: bytes, counter: int = 0) -> None:
        super().__init__(seed, counter)
        self.draws: list[tuple[int, int]] = []

    def randbelow(self, n: int) -> int:
        value = super().randbelow(n)
        self.draws.append((n, value))
        return value


class ForcedDrawMismatch(ValueError):
    """A forced outcome does not fit the draw the game asks for (another bound, none left)."""


class ForcedRng(Rng):
    """An ``Rng`` that hands out given outcomes instead of drawing: how the engine accepts
    a record's written-out random outcomes when no seed is known.

    Each ``randbelow(n)`` takes the next (bound, value); the bound must be ``n`` (the game asks
    for the same kind of draw) and ``0 <= value < n``. Games only draw through ``randbelow``
    (``die``, ``choice`` and ``shuffled`` use it), so this forces every random outcome.
    """

    __slots__ = ("_given", "used")

    def __init__(self, given: Sequence[tuple[int, int]], counter: int = 0) -> None:
        super().__init__(bytes(16), counter)  # never drawn from: every outcome is given
        self._given = list(reversed(given))
        self.used: list[tuple[int, int]] = []

    @property
    def left(self) -> int:
        """Given outcomes not used yet."""
        return len(self._given)

    def randbelow(self, n: int) -> int:
        if not self._given:
            raise ForcedDrawMismatch(f"the game draws a number below {n} here, but no draw is written out")
        bound, value = self._given.pop()
        if bound != n or not 0 <= value < n:
            raise ForcedDrawMismatch(f"the game draws a number below {n} here, not {value}/{bound}")
        self._counter += 1
        self.used.append((bound, value))
        return value
