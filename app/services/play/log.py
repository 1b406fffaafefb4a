"""Log lines: each committed decision's events described once per locale, filtered per viewer.

A logged row never changes, so its lines are built the first time a locale asks for them and
kept with the row (in the match cache); pending decisions are described anew each time (only
the acting seat ever sees them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from app.db.store.records import LogRow
from app.engine.protocol import Event, Game, Seat
from app.engine.turn import Decision
from app.services.schemas import LogEntry


@dataclass(slots=True)
class LoggedRow:
    """One committed decision: its events, and per locale its lines with their audience."""

    seq: int
    seat: Seat
    move: str
    events: tuple[Event, ...]
    lines: dict[str, tuple[tuple[Seat | None, LogEntry], ...]] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: LogRow) -> LoggedRow:
        return cls(row.seq, row.seat, row.move, tuple(Event.from_json(e) for e in row.events))

    def to_row(self) -> LogRow:
        return LogRow(self.seq, self.seat, self.move, tuple(e.to_json() for e in self.events))

    def entries(self, game: Game, locale: str) -> tuple[tuple[Seat | None, LogEntry], ...]:
        built = self.lines.get(locale)
        if built is None:
            built = tuple(
                (e.audience, entry(game, self.seq, self.seat, e, locale, pending=False)) for e in self.events
            )
            self.lines[locale] = built
        return built


def logged(first_seq: int, decisions: Sequence[Decision]) -> list[LoggedRow]:
    """The rows ``decisions`` are logged as, numbered from ``first_seq``."""
    return [LoggedRow(seq, d.seat, str(d.move), d.events) for seq, d in enumerate(decisions, start=first_seq)]


def visible(game: Game, rows: Iterable[LoggedRow], viewer: Seat | None, locale: str) -> list[LogEntry]:
    """The lines of ``rows`` that ``viewer`` may see (an event with an audience: that seat only)."""
    return [
        line
        for row in rows
        for audience, line in row.entries(game, locale)
        if audience is None or audience == viewer
    ]


def pending_lines(
    game: Game, first_seq: int, pending: Sequence[Decision], viewer: Seat | None, locale: str
) -> list[LogEntry]:
    """The acting seat's pending decisions as log lines (numbered as they would be logged)."""
    return [
        entry(game, seq, d.seat, e, locale, pending=True)
        for seq, d in enumerate(pending, start=first_seq)
        for e in d.events
        if e.is_visible_to(viewer)
    ]


def entry(game: Game, seq: int, seat: Seat, event: Event, locale: str, *, pending: bool) -> LogEntry:
    """A log line; callers pass only events the viewer may see (a drawn hand: its owner)."""
    return LogEntry.model_construct(
        seq=seq,
        seat=seat,
        text=game.describe(event, locale),
        pieces=list(event.pieces),
        pending=pending,
        kind=event.kind,
    )
