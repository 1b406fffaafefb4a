"""The Drachenland state: immutable records, replaced as a whole after each decision."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from app.engine.protocol import Seat
from app.games.drachenland.board import Colour, NodeIndex, Tile


class Phase(Enum):
    """Where the current turn stands (spec §4)."""

    START = "start"
    """Start round: choose the figure that enters (then MOVE with the start steps)."""
    ROLL = "roll"
    CHOOSE_FIRST = "choose1"
    """Dice rolled: reroll, or choose the first figure and its die."""
    MOVE = "move"
    TREASURE = "treasure"
    CHOOSE_SECOND = "choose2"
    DONE = "done"
    """Both figures have acted: only ``confirm``."""
    OVER = "over"


@dataclass(frozen=True, slots=True)
class VolcanoState:
    eggs: int
    gems: tuple[int, int, int, int]
    """Counts by ``GEMS`` order: red, green, blue, clear."""
    tile: Tile | None
    """The volcano's own tile (face down or open); king dragons live in ``State.kings``."""
    face_down: bool


@dataclass(frozen=True, slots=True)
class PlayerState:
    figures: tuple[NodeIndex | None, NodeIndex | None, NodeIndex | None]
    """Node of the red, green, blue figure; ``None`` while off the board."""
    rings: tuple[bool, bool, bool]
    eggs: int
    gems: tuple[int, int, int, int]
    tiles: tuple[Tile, ...]
    """Open tiles in front of the screen, in ``Tile`` order."""


@dataclass(frozen=True, slots=True)
class TurnState:
    phase: Phase
    dice: tuple[int, int] | None = None
    dice_used: tuple[bool, bool] = (False, False)
    moved: tuple[Colour, ...] = ()
    """Figures that have acted (or are acting) this turn, in order."""
    active: Colour | None = None
    die: int | None = None
    """Index of the die the active figure uses; ``None`` in the start round."""
    die_left: int = 0
    """Walking budget left from the die (or the start steps)."""
    die_walked: bool = False
    """The die paid for a step, so it can no longer power a king dragon."""
    bonus_left: int = 0
    """Walking budget left from Quick Steps."""
    visited: tuple[NodeIndex, ...] = ()
    """Nodes entered in this movement phase: a walk enters none of them again."""
    takes_left: int = 0
    just_walked: bool = False
    """The last movement action was a walk: walk again only after a tile or dragon action."""


@dataclass(frozen=True, slots=True)
class State:
    players: int
    variant1: bool
    variant2: bool
    first: Seat
    current: Seat
    turns: int
    """Completed turns; the start round lasts while ``turns < players``."""
    volcanoes: tuple[VolcanoState, ...]
    kings: tuple[NodeIndex | None, NodeIndex | None, NodeIndex | None]
    """Volcano of the red, green, blue king dragon once revealed."""
    box_tile: Tile
    """The 16th volcano tile, never seen."""
    box_eggs: int
    discarded: tuple[Tile, ...]
    seats: tuple[PlayerState, ...]
    turn: TurnState
    rules: int = 2
    """The rules the match began under: 2 follows seed 002; 1 (ruleset ``drachenland-1``) let
    the start round walk up to its N spaces, and kept the king dragon's flights and the
    Boatman off volcanoes already entered in the movement phase. Matches keep theirs."""

    def __repr__(self) -> str:
        from app.games.drachenland.notation import format_position

        return f"parse_position({format_position(self)!r})"

    @property
    def in_start_round(self) -> bool:
        return self.turns < self.players

    @property
    def is_over(self) -> bool:
        return self.turn.phase is Phase.OVER
