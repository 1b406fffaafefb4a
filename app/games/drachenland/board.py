"""The Drachenland board and setup tables, as data (spec §1–§3).

The printed board is not documented anywhere (spec §2, [A]); the layout below is the
designed one of the spec. Replace the tables in this module to use the real board: the
rules only read the derived ``BOARD`` graph and the constants here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from itertools import pairwise
from typing import TypeAlias

NodeIndex: TypeAlias = int
"""Index into ``BOARD.nodes``: volcanoes first, then spaces, then entrances."""


class Colour(Enum):
    """The three figure colours; a player owns one figure of each."""

    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Gem(Enum):
    """Gem colours: ruby, emerald, sapphire and the clear diamond (joker)."""

    RED = "red"
    GREEN = "green"
    BLUE = "blue"
    CLEAR = "clear"


COLOURS: tuple[Colour, ...] = tuple(Colour)
GEMS: tuple[Gem, ...] = tuple(Gem)


class Tile(Enum):
    """Tile kinds (spec §1 ids)."""

    REROLL = "REROLL"
    BOATMAN = "BOATMAN"
    QUICK_STEPS = "QUICK_STEPS"
    KING_RED = "KING_RED"
    KING_GREEN = "KING_GREEN"
    KING_BLUE = "KING_BLUE"
    SMALL_DRAGON = "SMALL_DRAGON"
    MAGIC_HAND = "MAGIC_HAND"
    RING = "RING"


KING_OF: dict[Tile, Colour] = {
    Tile.KING_RED: Colour.RED,
    Tile.KING_GREEN: Colour.GREEN,
    Tile.KING_BLUE: Colour.BLUE,
}
"""King dragon tiles and the colour of figure they carry."""


class NodeKind(Enum):
    VOLCANO = "volcano"
    SPACE = "space"
    ENTRANCE = "entrance"


# --- setup tables (spec §1, §3) ---------------------------------------------------------

GEM_SUPPLY: dict[Gem, int] = {Gem.RED: 15, Gem.GREEN: 15, Gem.BLUE: 15, Gem.CLEAR: 12}
"""[A] colour split of the 57 gems."""

MAX_SAME_GEM_PER_VOLCANO = 2
"""Setup limit per colour and volcano; variant 1 lifts it."""

EGG_SUPPLY = 18

PLAYER_TILES: tuple[Tile, ...] = (Tile.REROLL, Tile.BOATMAN, Tile.SMALL_DRAGON)
"""The three face-up tiles every player starts with."""

VOLCANO_TILES: dict[Tile, int] = {
    Tile.KING_RED: 1,
    Tile.KING_GREEN: 1,
    Tile.KING_BLUE: 1,
    Tile.RING: 3,
    Tile.MAGIC_HAND: 2,
    Tile.QUICK_STEPS: 2,
    Tile.REROLL: 2,
    Tile.BOATMAN: 2,
    Tile.SMALL_DRAGON: 2,
}
"""[A] the 16 volcano tiles; one is left unseen in the box."""

DIE_A: tuple[int, ...] = (1, 2, 2, 2, 3, 3)
DIE_B: tuple[int, ...] = (2, 3, 3, 4, 4, 4)
DRAGON_POWER = 4
"""The die value (or a Small Dragon) that flies or calls a king dragon."""
QUICK_STEPS_BONUS = 3

START_STEPS: dict[int, tuple[int, ...]] = {2: (2, 4), 3: (1, 2, 3), 4: (1, 2, 3, 4)}
"""Spaces walked in the start round, by position in turn order."""

CANVAS = (1100, 800)
VOLCANO_RADIUS = 46
"""Drawn size: room inside for the id, eggs and four gem counts; the nearest spaces stay clear."""
SPACE_RADIUS = 11

# --- board layout (spec §2) -------------------------------------------------------------

# id, x, y, ring, eggs, eggs with two players, gems
VOLCANO_TABLE: tuple[tuple[str, int, int, str, int, int, int], ...] = (
    ("V01", 310, 106, "outer", 1, 1, 3),
    ("V02", 790, 106, "outer", 1, 1, 3),
    ("V03", 1030, 400, "outer", 1, 1, 3),
    ("V04", 790, 694, "outer", 1, 1, 3),
    ("V05", 310, 694, "outer", 1, 1, 3),
    ("V06", 70, 400, "outer", 1, 1, 3),
    ("V07", 550, 185, "inner", 1, 1, 4),
    ("V08", 784, 292, "inner", 1, 1, 4),
    ("V09", 784, 508, "inner", 1, 1, 4),
    ("V10", 550, 615, "inner", 1, 1, 4),
    ("V11", 316, 508, "inner", 1, 1, 4),
    ("V12", 316, 292, "inner", 1, 1, 4),
    ("V13", 480, 350, "centre", 2, 1, 5),
    ("V14", 620, 350, "centre", 2, 1, 5),
    ("V15", 550, 470, "centre", 2, 1, 5),
)

ENTRANCE_TABLE: tuple[tuple[str, int, int], ...] = (
    ("E1", 550, 785),
    ("E2", 20, 190),
    ("E3", 1080, 190),
)

# path id, from, to, number of spaces; space coordinates are evenly spaced between the ends
PATH_TABLE: tuple[tuple[str, str, str, int], ...] = (
    ("P01", "E1", "V05", 3),
    ("P02", "E1", "V04", 3),
    ("P03", "E2", "V06", 3),
    ("P04", "E2", "V01", 3),
    ("P05", "E3", "V03", 3),
    ("P06", "E3", "V02", 3),
    ("P07", "V02", "V03", 4),
    ("P08", "V03", "V04", 4),
    ("P09", "V05", "V06", 4),
    ("P10", "V06", "V01", 4),
    ("P11", "V01", "V12", 2),
    ("P12", "V01", "V07", 3),
    ("P13", "V02", "V07", 3),
    ("P14", "V02", "V08", 2),
    ("P15", "V03", "V08", 3),
    ("P16", "V03", "V09", 3),
    ("P17", "V04", "V09", 2),
    ("P18", "V04", "V10", 3),
    ("P19", "V05", "V10", 3),
    ("P20", "V05", "V11", 2),
    ("P21", "V06", "V11", 3),
    ("P22", "V06", "V12", 3),
    ("P23", "V07", "V08", 3),
    ("P24", "V09", "V10", 3),
    ("P25", "V10", "V11", 3),
    ("P26", "V12", "V07", 3),
    ("P27", "V07", "V13", 2),
    ("P28", "V07", "V14", 2),
    ("P29", "V08", "V14", 2),
    ("P30", "V12", "V13", 2),
    ("P31", "V09", "V15", 2),
    ("P32", "V10", "V15", 1),
    ("P33", "V11", "V15", 2),
    ("P34", "V13", "V14", 1),
    ("P35", "V13", "V15", 1),
    ("P36", "V14", "V15", 1),
)

# link id, volcano, volcano, kind, optional quadratic control point for drawing
WATER_TABLE: tuple[tuple[str, str, str, str, tuple[int, int] | None], ...] = (
    ("W1", "V01", "V02", "river", (550, 30)),
    ("W2", "V04", "V05", "river", None),
    ("W3", "V08", "V09", "waterfall", None),
    ("W4", "V11", "V12", "waterfall", None),
)


# --- the derived graph ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Node:
    id: str
    kind: NodeKind
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Volcano:
    id: str
    ring: str
    eggs: int
    eggs_two_players: int
    gems: int


@dataclass(frozen=True, slots=True)
class WaterLink:
    id: str
    a: NodeIndex
    b: NodeIndex
    kind: str
    control: tuple[int, int] | None


@dataclass(frozen=True, slots=True)
class Board:
    """The board graph: nodes, one-way-aware adjacency and the water links."""

    nodes: tuple[Node, ...]
    volcanoes: tuple[Volcano, ...]
    """``volcanoes[i]`` describes node ``i`` (volcanoes come first)."""
    entrances: tuple[NodeIndex, ...]
    neighbours: tuple[tuple[NodeIndex, ...], ...]
    """Nodes reachable in one step; entrances are never a neighbour (one way in)."""
    water: tuple[WaterLink, ...]
    paths: tuple[tuple[str, tuple[NodeIndex, ...]], ...]
    """Each path as its chain of nodes, end to end (for drawing)."""
    index: dict[str, NodeIndex]

    def is_volcano(self, node: NodeIndex) -> bool:
        return node < len(self.volcanoes)

    def is_entrance(self, node: NodeIndex) -> bool:
        return self.nodes[node].kind is NodeKind.ENTRANCE


def build_board() -> Board:
    """Derive the graph from the tables above."""
    nodes: list[Node] = [Node(v[0], NodeKind.VOLCANO, v[1], v[2]) for v in VOLCANO_TABLE]
    volcanoes = tuple(Volcano(v[0], v[3], v[4], v[5], v[6]) for v in VOLCANO_TABLE)
    where = {n.id: (n.x, n.y) for n in nodes} | {e[0]: (e[1], e[2]) for e in ENTRANCE_TABLE}
    chains: list[tuple[str, list[str]]] = []
    for path_id, start, end, k in PATH_TABLE:
        (x0, y0), (x1, y1) = where[start], where[end]
        chain = [start]
        for i in range(1, k + 1):
            t = i / (k + 1)
            space = f"{path_id}-{i}"
            nodes.append(Node(space, NodeKind.SPACE, round(x0 + (x1 - x0) * t), round(y0 + (y1 - y0) * t)))
            chain.append(space)
        chains.append((path_id, [*chain, end]))
    entrances: list[NodeIndex] = []
    for entrance_id, x, y in ENTRANCE_TABLE:
        entrances.append(len(nodes))
        nodes.append(Node(entrance_id, NodeKind.ENTRANCE, x, y))
    index = {n.id: i for i, n in enumerate(nodes)}
    adjacent: list[set[NodeIndex]] = [set() for _ in nodes]
    for _, chain in chains:
        for a, b in pairwise(chain):
            ia, ib = index[a], index[b]
            adjacent[ia].add(ib)
            adjacent[ib].add(ia)
    entrance_set = set(entrances)
    neighbours = tuple(tuple(sorted(n for n in adj if n not in entrance_set)) for adj in adjacent)
    water = tuple(WaterLink(w[0], index[w[1]], index[w[2]], w[3], w[4]) for w in WATER_TABLE)
    paths = tuple((pid, tuple(index[n] for n in chain)) for pid, chain in chains)
    return Board(tuple(nodes), volcanoes, tuple(entrances), neighbours, water, paths, index)


BOARD = build_board()
VOLCANO_COUNT = len(BOARD.volcanoes)
