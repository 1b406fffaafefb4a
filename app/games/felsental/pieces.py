"""Names of the board pieces that events name (``Event.pieces``); the board template carries
the same names in ``data-piece``, so a log line can highlight them. Figures are ``dragon`` and
``dwarf-<name>``, hexes ``hex-<id>``."""

from __future__ import annotations

from app.games.felsental.board import CardId, Role, Track


def role_piece(role: Role) -> str:
    """A side's tableau (its figures, wounds and cards)."""
    return f"role-{role}"


def card_piece(card: CardId) -> str:
    return f"card-{card}"


def track_piece(track: Track) -> str:
    """One of the dragon's wound tracks."""
    return f"track-{track}"
