"""The newest part of each match's committed log, kept per process and read incrementally.

The move log is append-only: a row, once committed, never changes. So a worker keeps the log
lines it has already built (per locale, each with its audience) and asks the database only for
the rows after the newest one it knows: one small query instead of reading, decoding and
describing the whole shown log on every view and every move.

Only rows read outside a writing transaction are kept (``store=True``): a transaction that has
just inserted its own decisions sees rows that a rollback could still take back. Entries are
keyed by the match id and checked against the match's secret seed, so a recreated database (or
a reused id) can never serve another match's lines. Least recently used matches are dropped.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import LoggedMove
from app.engine.protocol import Event, Game, Seat
from app.services.schemas import LogEntry

MAX_MATCHES = 256
"""Matches whose log lines a worker keeps at most."""
MAX_ROWS = 40_000
"""Logged decisions a worker keeps at most (about 1-2 KB each with their lines: tens of MB)."""


@dataclass(slots=True)
class LoggedRow:
    """One committed decision: its events, and per locale its log lines with their audience."""

    seq: int
    seat: Seat
    events: tuple[Event, ...]
    lines: dict[str, tuple[tuple[Seat | None, LogEntry], ...]] = field(default_factory=dict)

    def entries(self, game: Game, locale: str) -> tuple[tuple[Seat | None, LogEntry], ...]:
        built = self.lines.get(locale)
        if built is None:
            built = tuple(
                (
                    event.audience,
                    LogEntry(
                        seq=self.seq,
                        seat=self.seat,
                        text=game.describe(event, locale),
                        pieces=list(event.pieces),
                        pending=False,
                        kind=event.kind,
                    ),
                )
                for event in self.events
            )
            self.lines[locale] = built
        return built


@dataclass(slots=True)
class _MatchLog:
    seed: bytes
    rows: list[LoggedRow]
    last: int | None
    """The rows are the newest ``last`` ones (all of them when None or fewer)."""


_cache: OrderedDict[int, _MatchLog] = OrderedDict()
_rows_kept = 0


async def newest_rows(
    db: AsyncSession, match_id: int, seed: bytes, *, last: int | None, store: bool
) -> list[LoggedRow]:
    """The newest ``last`` (None: all) committed decisions in order, the known ones from the cache."""
    known = _cache.get(match_id)
    if known is not None and (known.seed != seed or not _covers(known.last, last)):
        known = None
    query = select(LoggedMove.seq, LoggedMove.seat, LoggedMove.events).where(LoggedMove.match_id == match_id)
    if known is None:
        newest = query.order_by(LoggedMove.seq.desc())
        fetched = list((await db.execute(newest if last is None else newest.limit(last))).tuples())
        fetched.reverse()
        rows: list[LoggedRow] = []
    else:
        after = known.rows[-1].seq if known.rows else 0
        query = query.where(LoggedMove.seq > after).order_by(LoggedMove.seq)
        fetched = list((await db.execute(query)).tuples())
        rows = known.rows
    if fetched:
        rows = rows + [LoggedRow(seq, seat, _events(events)) for seq, seat, events in fetched]
    if last is not None:
        rows = rows[-last:]
    if store:
        _store(match_id, _MatchLog(seed, rows, last))
    return rows


def visible_entries(
    game: Game, rows: Sequence[LoggedRow], viewer: Seat | None, locale: str
) -> list[LogEntry]:
    """The log lines ``viewer`` may see (an event with an audience only for that seat)."""
    return [
        entry
        for row in rows
        for audience, entry in row.entries(game, locale)
        if audience is None or audience == viewer
    ]


def forget(match_id: int | None = None) -> None:
    """Drop one match's cached lines, or all of them."""
    global _rows_kept
    if match_id is None:
        _cache.clear()
        _rows_kept = 0
    else:
        dropped = _cache.pop(match_id, None)
        _rows_kept -= len(dropped.rows) if dropped else 0


def _store(match_id: int, entry: _MatchLog) -> None:
    global _rows_kept
    old = _cache.pop(match_id, None)
    _rows_kept -= len(old.rows) if old else 0
    _cache[match_id] = entry
    _rows_kept += len(entry.rows)
    while len(_cache) > 1 and (len(_cache) > MAX_MATCHES or _rows_kept > MAX_ROWS):
        _, dropped = _cache.popitem(last=False)
        _rows_kept -= len(dropped.rows)


def _covers(kept: int | None, wanted: int | None) -> bool:
    """Whether rows kept as the newest ``kept`` contain the newest ``wanted`` (None: all)."""
    return kept is None or (wanted is not None and kept >= wanted)


def _events(raw: list[dict[str, Any]]) -> tuple[Event, ...]:
    return tuple(Event.from_json(e) for e in raw)
