"""Draco's components as data: dragons, the 110 cards and both sides of the board.

The order of the spaces on both sides is an assumption (spec §2 [A]): the printed board is only
known from pictures. Replace ``SIDE_23`` / ``SIDE_45`` with the real layout when it is found;
nothing else depends on the order, only on the kinds and values defined here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple


class Dragon(Enum):
    """The ten dragons in Yucata order; the value is the id used in moves, views and events."""

    BLUE = "blue"
    BROWN = "brown"
    BLACK = "black"
    RED = "red"
    YELLOW = "yellow"
    GREEN = "green"
    GRAY = "gray"
    LIGHTBLUE = "lightblue"
    PURPLE = "purple"
    ORANGE = "orange"

    @property
    def index(self) -> int:
        return DRAGON_INDEX[self]

    @property
    def code(self) -> str:
        """One letter for the position string."""
        return DRAGON_CODE[self]


DRAGONS: tuple[Dragon, ...] = tuple(Dragon)
DRAGON_INDEX: dict[Dragon, int] = {d: i for i, d in enumerate(DRAGONS)}
DRAGON_CODE: dict[Dragon, str] = dict(zip(DRAGONS, "BNKRYGALPO", strict=True))
DRAGON_BY_CODE: dict[str, Dragon] = {c: d for d, c in DRAGON_CODE.items()}
DRAGON_BY_ID: dict[str, Dragon] = {d.value: d for d in DRAGONS}

CARD_VALUES: tuple[int, ...] = (1, 1, 2, 2, 3, 3, 3, 4, 4, 5, 5)
"""The eleven cards of one colour (sum 33)."""

HAND_SIZE = 6
GAME_END_SUMMIT_DRAGONS = 3
"""The game ends at once after the big scoring for the third dragon on a red space."""


class Card(NamedTuple):
    """A card: the dragon it moves and how far. Cards of one colour and value are interchangeable.

    A named tuple rather than a dataclass: hands, piles and the deck are sorted, hashed and
    compared after every move, and tuples do that in C.
    """

    dragon_index: int
    value: int

    @property
    def dragon(self) -> Dragon:
        return DRAGONS[self.dragon_index]

    def __str__(self) -> str:
        return f"{self.dragon.code}{self.value}"

    def __repr__(self) -> str:
        return f"Card.of(Dragon.{self.dragon.name}, {self.value})"

    @classmethod
    def of(cls, dragon: Dragon, value: int) -> Card:
        return cls(DRAGON_INDEX[dragon], value)


ALL_CARDS: tuple[Card, ...] = tuple(Card(i, v) for i in range(len(DRAGONS)) for v in CARD_VALUES)
"""All 110 cards in a fixed order (the input of the setup shuffle)."""


class Kind(Enum):
    """What a space does when a dragon is moved onto it."""

    START = "start"
    PLAIN = "plain"
    BLUE = "blue"
    """Small scoring: riders on values <= 3 gain them."""
    GREEN = "green"
    """Big scoring: every rider gains his dragon's value."""
    RED = "red"
    """Summit: the first arrival of a dragon is a big scoring."""


SMALL_SCORING_LIMIT = 3
"""A small scoring pays riders whose dragon stands on a value of at most this."""


@dataclass(frozen=True, slots=True)
class Space:
    index: int
    value: int
    kind: Kind


class Side(Enum):
    """The two sides of the board, chosen by player count."""

    FEW = "2-3"
    MANY = "4-5"


def _track(rows: str) -> tuple[Space, ...]:
    kinds = {"S": Kind.START, "p": Kind.PLAIN, "b": Kind.BLUE, "g": Kind.GREEN, "r": Kind.RED}
    spaces = []
    for index, token in enumerate(rows.split()):
        spaces.append(Space(index, int(token[:-1]), kinds[token[-1]]))
    return tuple(spaces)


# [A] Proposed layouts (spec §2): value + kind letter per space, index 0 = start, 27-30 summit.
SIDE_23 = _track(
    "0S 1p 2p 3b 1p 4p 2p 5p 1p 3b 6p 4g 2p 5p 1p 3b 6p 2p 7g 5p 1p 3b 6p 2p 8g 5p 3p 4r 2r 0r -2r"
)
SIDE_45 = _track(
    "0S 1p 2b 3p 1p 4p 2p 5p 2b 3p 4g 1p 6p 3p 2b 5p 1p 6p 3p 7g 2b 5p 1p 6p 8g 4p 3p 4r 2r 0r -2r"
)
TRACKS: dict[Side, tuple[Space, ...]] = {Side.FEW: SIDE_23, Side.MANY: SIDE_45}


def side_for(players: int) -> Side:
    """2-3 players use one side, 4-5 the other (spec §3.1)."""
    return Side.FEW if players <= 3 else Side.MANY


def track_for(players: int) -> tuple[Space, ...]:
    return _TRACK_BY_PLAYERS[players]


_TRACK_BY_PLAYERS = {n: TRACKS[side_for(n)] for n in range(2, 6)}


def last_index(track: tuple[Space, ...]) -> int:
    return len(track) - 1
