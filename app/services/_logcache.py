"""The newest part of each match's committed log, kept per process and read incrementally.

The move log is append-only: a row, once committed, never changes. So a worker keeps the log
lines it has already built (per locale, each with its audience) and asks the database only for
the rows after the newest one it knows: one small query instead of reading, decoding and
describing the whole shown log on every view and every move.

Only rows read outside a writing transaction are kept (``store=True``): a transaction that has
just inserted its own decisions sees rows that a rollback could still take back; the move path
hands its own rows over with ``remember`` once its commit went through. Entries are keyed by
the match id and checked against the match's secret seed, so a recreated database (or a reused
id) can never serve another match's lines. Least recently used matches are dropped.

Every change that logs decisions also sets the match's ``committed_version`` (in the same
transaction), and rows are always read after the match row. So rows read, or remembered, for
a ``committed_version`` hold every decision logged up to it: a reader that passes the version
it saw and finds the cache at that version needs no query at all.
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
from app.engine.turn import Decision
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
    version: int | None = None
    """The match's ``committed_version`` the rows are complete for (None: unknown)."""


_cache: OrderedDict[int, _MatchLog] = OrderedDict()
_rows_kept = 0


async def newest_rows(
    db: AsyncSession,
    match_id: int,
    seed: bytes,
    *,
    last: int | None,
    store: bool,
    version: int | None = None,
) -> list[LoggedRow]:
    """The newest ``last`` (None: all) committed decisions in order, the known ones from the cache.

    ``version`` is the match's ``committed_version`` as the caller read it (before this call):
    when the cache is complete for that version, nothing is read from the database.
    """
    known = _cache.get(match_id)
    if known is not None and (known.seed != seed or not _covers(known.last, last)):
        known = None
    if known is not None and version is not None and known.version == version:
        _cache.move_to_end(match_id)
        return known.rows if last is None else known.rows[-last:]
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
        _store(match_id, _MatchLog(seed, rows, last, version))
    return rows


async def rows_between(db: AsyncSession, match_id: int, first: int, last: int) -> list[LoggedRow]:
    """The committed decisions ``first``..``last`` in order, read from the database (not cached)."""
    query = (
        select(LoggedMove.seq, LoggedMove.seat, LoggedMove.events)
        .where(LoggedMove.match_id == match_id, LoggedMove.seq >= first, LoggedMove.seq <= last)
        .order_by(LoggedMove.seq)
    )
    return [LoggedRow(seq, seat, _events(events)) for seq, seat, events in (await db.execute(query)).tuples()]


def logged_rows(first_seq: int, decisions: Sequence[Decision]) -> list[LoggedRow]:
    """The rows ``decisions`` are logged as, numbered from ``first_seq`` (no database read)."""
    return [LoggedRow(seq, d.seat, d.events) for seq, d in enumerate(decisions, start=first_seq)]


def remember(match_id: int, seed: bytes, rows: list[LoggedRow], *, last: int | None, version: int) -> None:
    """Keep ``rows``, the whole log of the match at committed ``version`` (the newest ``last``).

    Only after the transaction that logged them has committed.
    """
    _store(match_id, _MatchLog(seed, rows if last is None else rows[-last:], last, version))


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
