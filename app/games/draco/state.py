"""The state of a game of Draco: an immutable snapshot, replaced (never mutated) by the rules."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from app.engine.protocol import Seat
from app.games.draco.board import Card, Kind, Space, track_for


class Phase(Enum):
    """Where the active player stands in his turn (spec §4)."""

    PLAY = "play"
    """Step 1: a card must be played."""
    MOUNT = "mount"
    """Step 2 (d): keep the own dragon or take the moved one; scoring waits for it."""
    DISCARD = "discard"
    """Step 4: summit cards may be discarded one at a time, then confirm (step 5)."""
    ENDING = "ending"
    """The third summit arrival was scored; only confirm remains (spec §4 step 3)."""
    OVER = "over"
    """The game has ended."""


class ScoringKind(Enum):
    SMALL = "small"
    BIG = "big"
    SUMMIT = "summit"


@dataclass(frozen=True, slots=True)
class Play:
    """The card played this turn and where it took its dragon."""

    card: Card
    origin: int
    target: int
    was_last: bool
    scored: bool = False
    """Whether a scoring was triggered (decides the refill at confirm)."""


@dataclass(frozen=True, slots=True)
class DracoState:
    """Everything about a game, hidden parts included.

    ``positions`` is indexed by dragon (``Dragon.index``); ``piles[seat]`` runs bottom to top,
    its last card names the dragon the seat rides; ``deck[0]`` is the top of the draw pile.
    """

    players: int
    positions: tuple[int, ...]
    hands: tuple[tuple[Card, ...], ...]
    piles: tuple[tuple[Card, ...], ...]
    deck: tuple[Card, ...]
    scores: tuple[int, ...]
    active: Seat
    phase: Phase
    play: Play | None = None
    """Set from the card play until confirm; in ``MOUNT`` its card is in nobody's hand or pile."""
    drawn: tuple[tuple[Card, ...], ...] = ()
    """Per seat, the cards drawn at its last confirm, until it plays its next card (hidden like
    the hand; the board marks them as new). Empty: nobody has new cards."""

    @property
    def track(self) -> tuple[Space, ...]:
        return track_for(self.players)

    def rider_index(self, seat: Seat) -> int:
        """The dragon index the seat rides (its pile's top card)."""
        return self.piles[seat][-1].dragon_index

    def riders(self) -> dict[int, Seat]:
        """Dragon index -> the seat riding it."""
        return {pile[-1].dragon_index: seat for seat, pile in enumerate(self.piles)}

    def is_last(self, dragon_index: int) -> bool:
        """In last place: no dragon stands lower (ties share last place)."""
        return self.positions[dragon_index] == min(self.positions)

    def on_summit(self, dragon_index: int) -> bool:
        return self.track[self.positions[dragon_index]].kind is Kind.RED

    def drawn_by(self, seat: Seat) -> tuple[Card, ...]:
        return self.drawn[seat] if self.drawn else ()

    def summit_count(self) -> int:
        track = self.track
        return sum(1 for p in self.positions if track[p].kind is Kind.RED)
