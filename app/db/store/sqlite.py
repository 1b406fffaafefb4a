"""The move path on SQLite: the same reads and writes as ``postgres.py``, in SQLAlchemy Core.

SQLite has no data-modifying CTEs, so a decision is a short transaction of plain statements
that begins with the versioned ``UPDATE`` (so a second writer waits for the lock rather than
failing half-way). An embedded server is one process: live updates need no help from the
database here (the broker delivers the news in-process after the commit).
"""

from __future__ import annotations

from typing import Any, cast

import orjson
from sqlalchemy import Table, exists, func, insert, select, update
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.db.async_play import MatchControl, Notification, UserSettings
from app.db.matches import VERSION_SPAN, MatchStatus
from app.db.models import LoggedMove, Match, MatchSeat, MoveRequest, User
from app.db.store.records import (
    CONTROL_COLUMNS,
    YOUR_TURN,
    Answered,
    Applied,
    ControlRow,
    DecisionWrite,
    Loaded,
    LogRow,
    MatchRow,
    Moved,
    SeatRow,
    WriteOutcome,
)

_matches = cast(Table, Match.__table__)
_moves = cast(Table, LoggedMove.__table__)
_requests = cast(Table, MoveRequest.__table__)
_notifications = cast(Table, Notification.__table__)
_seats = cast(Table, MatchSeat.__table__)
_controls = cast(Table, MatchControl.__table__)

_MATCH = select(
    _matches.c.id,
    _matches.c.game,
    _matches.c.ruleset,
    _matches.c.options,
    _matches.c.players,
    _matches.c.status,
    _matches.c.seed,
    _matches.c.version,
    _matches.c.committed_version,
    _matches.c.state,
    _matches.c.rng_counter,
    _matches.c.pending,
    _matches.c.to_act,
    _matches.c.result,
    _matches.c.created_by,
    _matches.c.turn_started_at,
)
_SEATS = (
    select(
        MatchSeat.seat,
        MatchSeat.user_id,
        MatchSeat.reserved_for,
        User.name,
        MatchSeat.score,
        MatchSeat.rank,
        func.coalesce(MatchSeat.stand_in, User.bot_level),
    )
    .outerjoin(User, User.id == func.coalesce(MatchSeat.user_id, MatchSeat.reserved_for))
    .order_by(MatchSeat.seat)
)
_VERSIONS_CHUNK = 500
_LOG = select(_moves.c.seq, _moves.c.seat, _moves.c.move, _moves.c.events)


class SqliteStore:
    """Loads matches and writes decisions on one SQLite database (through SQLAlchemy's engine)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def close(self) -> None:
        """Nothing of its own to close: the engine's pool is the caller's."""

    async def load(self, match_id: int, *, log_after: int, log_limit: int) -> Loaded | None:
        async with self._engine.connect() as conn:
            found = (await conn.execute(_MATCH.where(_matches.c.id == match_id))).first()
            if found is None:
                return None
            seats = (await conn.execute(_SEATS.where(MatchSeat.match_id == match_id))).all()
            resigned = await conn.scalar(
                select(MatchControl.resigned).where(MatchControl.match_id == match_id)
            )
            newest = (
                _LOG.where(_moves.c.match_id == match_id, _moves.c.seq > log_after)
                .order_by(_moves.c.seq.desc())
                .limit(log_limit)
            )
            rows = (await conn.execute(newest)).all()
        return Loaded(_match_row(found, seats, resigned), tuple(_log_row(r) for r in reversed(rows)))

    async def log_before(self, match_id: int, *, before: int, limit: int) -> tuple[LogRow, ...]:
        query = (
            _LOG.where(_moves.c.match_id == match_id, _moves.c.seq < before)
            .order_by(_moves.c.seq.desc())
            .limit(limit)
        )
        async with self._engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return tuple(_log_row(r) for r in reversed(rows))

    async def write(self, w: DecisionWrite) -> WriteOutcome:
        async with self._engine.connect() as conn:
            applied = await self._apply(conn, w)
            if applied is not None:
                await conn.commit()
                return Applied(applied)
            await conn.rollback()
            used = await _answer(conn, w.match_id, w.request_id)
            if used is not None:
                return used
            current = await conn.scalar(select(_matches.c.version).where(_matches.c.id == w.match_id))
            return Moved(current or 0)

    async def answer(self, match_id: int, request_id: str) -> Answered | None:
        async with self._engine.connect() as conn:
            return await _answer(conn, match_id, request_id)

    async def versions(self, match_ids: list[int]) -> dict[int, int]:
        found: dict[int, int] = {}
        async with self._engine.connect() as conn:
            # A few hundred at a time: SQLite limits the parameters of a statement.
            for start in range(0, len(match_ids), _VERSIONS_CHUNK):
                chunk = match_ids[start : start + _VERSIONS_CHUNK]
                query = select(_matches.c.id, _matches.c.committed_version).where(_matches.c.id.in_(chunk))
                found.update({r.id: r.committed_version for r in await conn.execute(query)})
        return found

    async def control(self, match_id: int) -> ControlRow | None:
        query = select(*(_controls.c[name] for name in CONTROL_COLUMNS)).where(
            _controls.c.match_id == match_id
        )
        async with self._engine.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else ControlRow(*row)

    async def badge(self, user_id: int) -> tuple[int, int]:
        seated = (
            select(_matches.c.to_act, _seats.c.seat)
            .join(_seats, _seats.c.match_id == _matches.c.id)
            .where(_seats.c.user_id == user_id, _matches.c.status == MatchStatus.ACTIVE)
        )
        unread = select(func.count(func.distinct(_notifications.c.match_id))).where(
            _notifications.c.user_id == user_id, _notifications.c.read_at.is_(None)
        )
        async with self._engine.connect() as conn:
            your_turn = sum(1 for acting, seat in await conn.execute(seated) if seat in acting)
            return your_turn, await conn.scalar(unread) or 0

    async def _apply(self, conn: AsyncConnection, w: DecisionWrite) -> int | None:
        """The match's new version, or None when nothing was written."""
        used = exists().where(_requests.c.match_id == w.match_id, _requests.c.request_id == w.request_id)
        values: dict[str, Any] = {"version": _matches.c.version + 1, "pending": w.pending}
        c = w.commit
        if c is not None:
            values |= {
                "version": (_matches.c.committed_version + 1) * VERSION_SPAN,
                "committed_version": _matches.c.committed_version + 1,
                "state": c.state,
                "rng_counter": c.rng_counter,
                "to_act": list(c.to_act),
                "status": c.status,
                "result": c.result,
                "updated_at": w.now,
            }
            if c.turn_started_at is not None:
                values["turn_started_at"] = c.turn_started_at
            if c.finished_at is not None:
                values["finished_at"] = c.finished_at
        changed = await conn.execute(
            update(_matches)
            .returning(_matches.c.version)
            .where(
                _matches.c.id == w.match_id,
                _matches.c.version == w.seen,
                _matches.c.state == w.seen_state,
                ~used,
            )
            .values(**values)
        )
        version: int | None = changed.scalar()
        if version is None:
            return None
        await conn.execute(
            insert(_requests).values(
                match_id=w.match_id,
                request_id=w.request_id,
                user_id=w.user_id,
                answer=orjson.loads(w.answer),
                created_at=w.now,
            )
        )
        if c is None:
            return version
        if c.log:
            await conn.execute(
                insert(_moves),
                [
                    {
                        "match_id": w.match_id,
                        "seq": r.seq,
                        "seat": r.seat,
                        "move": r.move,
                        "events": list(r.events),
                        "created_at": w.now,
                    }
                    for r in c.log
                ],
            )
        await conn.execute(
            update(_notifications)
            .where(
                _notifications.c.user_id == w.user_id,
                _notifications.c.match_id == w.match_id,
                _notifications.c.kind == YOUR_TURN,
                _notifications.c.read_at.is_(None),
            )
            .values(read_at=w.now)
        )
        if c.standings:
            for seat, score, rank in c.standings:
                await conn.execute(
                    update(_seats)
                    .where(_seats.c.match_id == w.match_id, _seats.c.seat == seat)
                    .values(score=score, rank=rank)
                )
        if c.notices:
            users = {user_id for user_id, _, _ in c.notices}
            mailable = set(
                await conn.scalars(
                    select(UserSettings.user_id).where(
                        UserSettings.user_id.in_(users),
                        UserSettings.email.is_not(None),
                        UserSettings.mail_opt_out.is_(False),
                        UserSettings.disabled.is_(False),
                    )
                )
            )
            await conn.execute(
                sqlite_insert(_notifications).on_conflict_do_nothing(),
                [
                    {
                        "user_id": user_id,
                        "match_id": w.match_id,
                        "kind": kind,
                        "period": period,
                        "created_at": w.now,
                        "mail_state": "pending" if user_id in mailable else "none",
                    }
                    for user_id, kind, period in c.notices
                ],
            )
        return version


def _match_row(found: Any, seats: Any, resigned: list[int] | None) -> MatchRow:
    return MatchRow(
        id=found.id,
        game=found.game,
        ruleset=found.ruleset,
        options=found.options,
        players=found.players,
        status=found.status,
        seed=found.seed,
        version=found.version,
        committed_version=found.committed_version,
        state=found.state,
        rng_counter=found.rng_counter,
        pending=found.pending,
        to_act=tuple(found.to_act),
        result=found.result,
        created_by=found.created_by,
        turn_started_at=found.turn_started_at,
        seats=tuple(SeatRow(*s) for s in seats),
        resigned=tuple(resigned or ()),
    )


async def _answer(conn: AsyncConnection, match_id: int, request_id: str) -> Answered | None:
    used = (
        await conn.execute(
            select(_requests.c.user_id, _requests.c.answer).where(
                _requests.c.match_id == match_id, _requests.c.request_id == request_id
            )
        )
    ).first()
    return None if used is None else Answered(used.user_id, used.answer)


def _log_row(row: Any) -> LogRow:
    return LogRow(row.seq, row.seat, row.move, tuple(row.events))
