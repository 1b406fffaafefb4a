"""The match as one viewer may see it: the per-seat view, the legal moves, the newest log.

The acting seat sees its own pending decisions; everybody else sees the committed state and
the committed version, so no answer of theirs changes while a seat tries and undoes things.
A view carries the log lines after the seq the viewer says it has (``log_after``), or the
newest ``LOG_PAGE`` decisions when it says nothing; earlier lines come page by page
(``log_page``). So neither the cost nor the size of an answer grows with the match.
"""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy.ext.asyncio import AsyncSession

from app.db.matches import public_version
from app.db.models import MatchStatus
from app.db.store import store_of
from app.db.store.records import SeatRow
from app.engine.protocol import CONFIRM, Seat, State
from app.services import results
from app.services._db import use_case
from app.services.errors import Forbidden, NotFound
from app.services.play import chat
from app.services.play import loaded as kept
from app.services.play.loaded import LoadedMatch
from app.services.play.log import LoggedRow, pending_lines, visible
from app.services.schemas import LogEntry, MatchStatusName, MatchView, MessageOut, SeatOut

LOG_PAGE = 50
"""Logged decisions a view shows when the viewer has none yet (earlier ones on demand)."""
_CONFIRM = str(CONFIRM)


@use_case
async def get_match(
    db: AsyncSession, *, match_id: int, viewer_id: int | None, locale: str, log_after: int | None = None
) -> MatchView:
    """The match as ``viewer_id`` may see it (None: a spectator)."""
    loaded = await kept.load(db, match_id)
    return match_view(loaded, loaded.seat_of(viewer_id), locale, log_after=log_after)


@use_case
async def get_seats(db: AsyncSession, *, match_id: int) -> list[SeatOut]:
    """The match's seats with their occupants' names."""
    return seat_outs((await kept.load(db, match_id)).row.seats)


@use_case
async def log_page(
    db: AsyncSession, *, match_id: int, viewer_id: int | None, before: int, locale: str
) -> tuple[list[LogEntry], int]:
    """The viewer's lines of the ``LOG_PAGE`` decisions before seq ``before``, and the seq the
    page starts after (0: nothing earlier)."""
    loaded = await kept.load(db, match_id)
    if loaded.game is None:
        raise NotFound(f"there is no log for match {match_id}")
    rows = await store_of(db).log_before(match_id, before=max(0, before), limit=LOG_PAGE)
    logged = [LoggedRow.from_row(r) for r in rows]
    lines = visible(loaded.game, logged, loaded.seat_of(viewer_id), locale)
    return lines, (logged[0].seq - 1 if logged else 0)


def match_view(
    loaded: LoadedMatch,
    viewer_seat: Seat | None,
    locale: str,
    *,
    log_after: int | None = None,
) -> MatchView:
    """Build ``viewer_seat``'s view of ``loaded`` (no database access)."""
    row = loaded.row
    acting = viewer_seat is not None and viewer_seat in row.to_act
    base: dict[str, Any] = {
        "id": row.id,
        "game": row.game,
        "status": cast(MatchStatusName, row.status),
        # Only the acting seat learns about its own pending decisions and undos.
        "version": row.version if acting else public_version(row.committed_version),
        "options": dict(row.options),
        "seats": loaded.built("seats", lambda: seat_outs(row.seats)),  # shared by its views, read only
        "viewer_seat": viewer_seat,
        "created_by": row.created_by,
        "waiting_since": row.turn_started_at if row.status == MatchStatus.ACTIVE else None,
        "outcome": results.outcome_out(row.result),
    }
    game, turn = loaded.game, loaded.turn
    if game is None or turn is None:
        return MatchView.model_construct(
            **base, view={}, to_act=[], legal=[], can_undo=False, can_confirm=False, log=[], log_after=0
        )
    own_pending = viewer_seat is not None and turn.pending_seat == viewer_seat
    state: State = loaded.current() if own_pending else turn.committed
    running = loaded.is_running
    to_act = sorted(game.to_act(state)) if running else []
    # A resigned seat decides nothing (the server plays its turns): it is shown no moves.
    legal = (
        [str(m) for m in game.legal_moves(state, viewer_seat)]
        if running and viewer_seat is not None and viewer_seat in to_act and viewer_seat not in row.resigned
        else []
    )
    rows, after = log_window(loaded, log_after)
    log = visible(game, rows, viewer_seat, locale)
    if own_pending:
        log += pending_lines(game, loaded.last_seq + 1, turn.pending, viewer_seat, locale)
    return MatchView.model_construct(
        **base,
        view=loaded.game_view(state, viewer_seat),
        to_act=to_act,
        legal=legal,
        can_undo=own_pending,
        can_confirm=_CONFIRM in legal,
        log=log,
        log_after=after,
    )


def log_window(loaded: LoadedMatch, log_after: int | None) -> tuple[list[LoggedRow], int]:
    """The kept rows after ``log_after`` and the seq they continue from.

    A viewer that says nothing, or is further behind than the kept rows reach, gets the newest
    ``LOG_PAGE`` decisions (and loads earlier pages when it wants them).
    """
    kept_from = loaded.log[0].seq - 1 if loaded.log else loaded.last_seq
    if log_after is not None and (log_after >= kept_from or loaded.log_is_complete):
        after = max(0, min(log_after, loaded.last_seq))
        return [r for r in loaded.log if r.seq > after], after
    rows = loaded.log[-LOG_PAGE:]
    return rows, (rows[0].seq - 1 if rows else loaded.last_seq)


def seat_outs(seats: tuple[SeatRow, ...]) -> list[SeatOut]:
    return [
        SeatOut.model_construct(
            seat=s.seat,
            user_id=s.user_id,
            name=s.name,
            score=s.score,
            rank=s.rank,
            reserved=s.user_id is None and s.reserved_for is not None,
            bot=s.bot,
        )
        for s in seats
    ]


def seat_or_forbidden(loaded: LoadedMatch, user_id: int) -> Seat:
    seat = loaded.seat_of(user_id)
    if seat is None:
        raise Forbidden("you do not play in this match")
    return seat


@use_case
async def get_match_page(
    db: AsyncSession, *, match_id: int, viewer_id: int | None, locale: str
) -> tuple[MatchView, list[MessageOut] | None]:
    """``get_match`` and, for a player, the table's chat."""
    loaded = await kept.load(db, match_id)
    seat = loaded.seat_of(viewer_id)
    view = match_view(loaded, seat, locale)
    return view, (await chat.messages(db, match_id) if seat is not None else None)
