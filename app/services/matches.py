"""Playing a match: the per-seat view, decisions (submit, undo, confirm) and chat.

The move path is ONE transaction: read the match, let the engine decide, then
``UPDATE matches ... WHERE version = :seen`` (0 rows: someone was faster), append the
committed decisions to the ``moves`` log, store the answer under the request id, commit,
and only then nudge the other viewers, and only when something was committed: a pending
decision is the acting seat's private business (nudging would leak its timing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

from sqlalchemy import and_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import LoggedMove, Match, MatchSeat, MatchStatus, Message, MoveRequest, User
from app.db.types import utcnow
from app.engine.protocol import CONFIRM, Event, Game, IllegalMove, InvalidMove, Move, Seat, State
from app.engine.registry import get_game
from app.engine.turn import Decision, Turn, current_state, decide, undo
from app.engine.turn import NotYourTurn as EngineNotYourTurn
from app.services import _logcache, conclusions, live, notify, results
from app.services._db import use_case
from app.services._rows import (
    MAX_ID,
    bump_version,
    has_control_characters,
    is_token,
    load_match,
    load_seated_match,
    load_seats,
    seat_of,
    seat_outs,
    seated_match_query,
    split_seated,
)
from app.services.errors import (
    Conflict,
    Forbidden,
    IllegalMoveError,
    InvalidInput,
    NotFound,
    NotYourTurn,
    StaleVersion,
)
from app.services.schemas import (
    LogEntry,
    MatchStatusName,
    MatchView,
    MessageOut,
    MoveResult,
)

MESSAGE_MAX = 500
LOG_MOVES_SHOWN: int | None = None
"""How many of the newest decisions a match view's log covers (None: all of them)."""
MESSAGES_SHOWN = 200
Action = Literal["move", "undo", "confirm"]


@use_case
async def get_match(db: AsyncSession, *, match_id: int, viewer_id: int | None, locale: str) -> MatchView:
    """The match as ``viewer_id`` may see it (None: a spectator).

    The viewer's own pending decisions are applied for the viewer only; everybody else sees
    the committed state.
    """
    match, seats, names = await load_seated_match(db, match_id)
    return await _view(db, match, seats, names, seat_of(seats, viewer_id), locale)


@use_case
async def get_match_page(
    db: AsyncSession, *, match_id: int, viewer_id: int | None, locale: str
) -> tuple[MatchView, list[MessageOut] | None]:
    """``get_match`` and, for a player, the table's chat (``list_messages``) in one go."""
    match, seats, names = await load_seated_match(db, match_id)
    viewer_seat = seat_of(seats, viewer_id)
    view = await _view(db, match, seats, names, viewer_seat, locale)
    chat = await _messages(db, match_id) if viewer_seat is not None else None
    return view, chat


@use_case
async def submit_move(
    db: AsyncSession,
    *,
    match_id: int,
    user_id: int,
    move: str,
    expected_version: int,
    request_id: str,
    locale: str,
) -> MoveResult:
    """Take one decision; it stays pending (undoable) unless it is an undo barrier."""
    return await _act(db, match_id, user_id, "move", move, expected_version, request_id, locale)


@use_case
async def undo_move(
    db: AsyncSession, *, match_id: int, user_id: int, expected_version: int, request_id: str, locale: str
) -> MoveResult:
    """Drop the seat's last pending decision."""
    return await _act(db, match_id, user_id, "undo", None, expected_version, request_id, locale)


@use_case
async def confirm_turn(
    db: AsyncSession, *, match_id: int, user_id: int, expected_version: int, request_id: str, locale: str
) -> MoveResult:
    """Commit everything pending and end the turn (submits ``confirm``)."""
    return await _act(db, match_id, user_id, "confirm", str(CONFIRM), expected_version, request_id, locale)


@use_case
async def post_message(db: AsyncSession, *, match_id: int, user_id: int, text: str) -> MessageOut:
    """Say something at the table (players only)."""
    match = await load_match(db, match_id)
    seats = (await load_seats(db, [match_id]))[match_id]
    if seat_of(seats, user_id) is None:
        raise Forbidden("only the players of this match can chat here")
    text = text.strip()
    if not text:
        raise InvalidInput("the message is empty")
    if has_control_characters(text, allowed="\n\t"):
        raise InvalidInput("the message contains control characters")
    if len(text) > MESSAGE_MAX:
        raise InvalidInput(f"a message has at most {MESSAGE_MAX} characters")
    message = Message(match_id=match_id, user_id=user_id, text=text, created_at=utcnow())
    db.add(message)
    await db.commit()
    name = await db.scalar(select(User.name).where(User.id == user_id))
    await live.publish_match(match_id, match.version)
    return MessageOut(
        id=message.id, user_id=user_id, name=name or "", text=text, created_at=message.created_at
    )


@use_case
async def list_messages(db: AsyncSession, *, match_id: int, user_id: int) -> list[MessageOut]:
    """The table's chat, oldest first (players only)."""
    await load_match(db, match_id)
    seats = (await load_seats(db, [match_id]))[match_id]
    if seat_of(seats, user_id) is None:
        raise Forbidden("only the players of this match can read its chat")
    return await _messages(db, match_id)


async def _messages(db: AsyncSession, match_id: int) -> list[MessageOut]:
    rows = await db.execute(
        select(Message, User.name)
        .join(User, User.id == Message.user_id)
        .where(Message.match_id == match_id)
        .order_by(Message.id.desc())
        .limit(MESSAGES_SHOWN)
    )
    out = [
        MessageOut(id=m.id, user_id=m.user_id, name=name, text=m.text, created_at=m.created_at)
        for m, name in rows.tuples()
    ]
    return out[::-1]


# --- the move path -----------------------------------------------------------------------


async def _act(
    db: AsyncSession,
    match_id: int,
    user_id: int,
    action: Action,
    move_text: str | None,
    expected_version: int,
    request_id: str,
    locale: str,
) -> MoveResult:
    if not is_token(request_id):
        raise InvalidInput("a request id has 1 to 64 letters, digits, '-' or '_'")
    if not 1 <= match_id <= MAX_ID:
        # Before any lookup: PostgreSQL refuses ids beyond its integer column outright.
        raise NotFound(f"there is no match {match_id}")
    # The match, an earlier answer to this request id, the seats and their names: one query.
    query = seated_match_query(match_id, MoveRequest).outerjoin(
        MoveRequest, and_(MoveRequest.match_id == Match.id, MoveRequest.request_id == request_id)
    )
    found = (await db.execute(query)).all()
    if not found:
        raise NotFound(f"there is no match {match_id}")
    match, request, seats, names = split_seated(found, extra=1)
    if request is not None:
        return await _stored(db, request, user_id)
    seat = seat_of(seats, user_id)
    if seat is None:
        raise Forbidden("you do not play in this match")
    if match.status != MatchStatus.ACTIVE:
        raise Conflict("this match is not running")
    if seat not in match.to_act:
        # Before the version check: a 409 would tell a waiting seat the private version.
        if action == "undo":
            raise IllegalMoveError("there is nothing to undo: committed decisions are final")
        raise NotYourTurn("it is not your turn")
    if match.version != expected_version:
        raise StaleVersion(
            f"the match has moved on (version {match.version}, you saw {expected_version})",
            current_version=match.version,
        )
    game = get_game(match.game)
    assert match.seed is not None and match.state is not None
    seed = match.seed
    turn = _turn(game, match)
    # The committed log before this decision (read before writing: committed rows only). If
    # the version check below passes, nobody logged anything since: these are all the rows.
    rows = await _logcache.newest_rows(
        db, match_id, seed, last=LOG_MOVES_SHOWN, store=True, version=match.committed_version
    )
    committed: tuple[Decision, ...] = ()
    current: State | None = None
    try:
        if action == "undo":
            new_turn = undo(turn, seat)
        else:
            step = decide(game, turn, seat, _parse_move(move_text), match.seed)
            new_turn, committed, current = step.turn, step.committed, step.state
    except EngineNotYourTurn as error:
        raise NotYourTurn(error.reason) from None
    except IllegalMove as error:
        raise IllegalMoveError(error.reason) from None

    values = _match_values(game, match, turn, new_turn)
    if not await bump_version(db, match, expected_version, pending_only=not committed, **values):
        await db.rollback()
        return await _lost_race(db, match_id, request_id, user_id)
    if committed:
        new_rows = _logcache.logged_rows(rows[-1].seq + 1 if rows else 1, committed)
        rows = rows + new_rows
        now = values["updated_at"]
        db.add_all(
            LoggedMove(
                match_id=match_id,
                seq=row.seq,
                seat=row.seat,
                move=str(d.move),
                events=[e.to_json() for e in d.events],
                created_at=now,
            )
            for row, d in zip(new_rows, committed, strict=True)
        )
        if match.result is not None:
            for seat_row in seats:
                seat_row.score = match.result["scores"][seat_row.seat]
                seat_row.rank = match.result["ranks"][seat_row.seat]
        await db.flush()
        await notify.clear_turn(db, user_id, match_id)
        # Notifications, and for a finished match the ranks of resigned seats and the ratings.
        notified = await conclusions.after_commit(db, match, seats)
    else:
        notified = set()
    view = await _view(db, match, seats, names, seat, locale, turn=new_turn, current=current, rows=rows)
    answer = MoveResult(version=match.version, committed=bool(committed), match=view)
    db.add(
        MoveRequest(
            match_id=match_id,
            request_id=request_id,
            user_id=user_id,
            answer=_stored_form(answer, rows, locale),
            created_at=utcnow(),
        )
    )
    try:
        await db.commit()
    except IntegrityError:
        # The same request id raced in on another version: the twin's answer stands.
        await db.rollback()
        return await _lost_race(db, match_id, request_id, user_id)
    if committed:
        _logcache.remember(match_id, seed, rows, last=LOG_MOVES_SHOWN, version=match.committed_version)
        await live.publish_match(match_id, match.version)
        await notify.nudge({row.user_id for row in seats if row.user_id is not None} | notified)
    return answer


def _parse_move(text: str | None) -> Move:
    try:
        return Move.parse(text or "")
    except InvalidMove as error:
        raise IllegalMoveError(str(error)) from None


def _match_values(game: Game, match: Match, before: Turn, after: Turn) -> dict[str, Any]:
    """The new columns of the match row after a decision."""
    now = utcnow()
    values: dict[str, Any] = {
        "pending": [_decision_json(d) for d in after.pending],
        "updated_at": now,
    }
    if after.committed is not before.committed or after.rng_counter != before.rng_counter:
        to_act = sorted(game.to_act(after.committed))
        values |= {
            "state": game.format_position(after.committed),
            "rng_counter": after.rng_counter,
            "to_act": to_act,
        }
        if to_act != list(match.to_act):
            values["turn_started_at"] = now
        outcome = game.outcome(after.committed)
        if outcome is not None:
            values |= {
                "status": MatchStatus.FINISHED,
                "finished_at": now,
                "result": results.stored(outcome),
                "to_act": [],
            }
    return values


async def _stored_answer(db: AsyncSession, match_id: int, request_id: str, user_id: int) -> MoveResult | None:
    row = await db.get(MoveRequest, (match_id, request_id), populate_existing=True)
    if row is None:
        return None
    return await _stored(db, row, user_id)


async def _stored(db: AsyncSession, row: MoveRequest, user_id: int) -> MoveResult:
    """The answer given to this request id before (``_stored_form`` back into a ``MoveResult``)."""
    if row.user_id != user_id:
        raise Conflict("this request id was already used")
    answer = row.answer
    shown = answer.get("log")
    if shown is None:  # stored whole (before the log was kept by reference)
        return MoveResult.model_validate(answer)
    match = answer["match"]
    log: list[LogEntry] = []
    if shown["last"] >= shown["first"]:
        logged = await _logcache.rows_between(db, row.match_id, shown["first"], shown["last"])
        log = _logcache.visible_entries(
            get_game(match["game"]), logged, match["viewer_seat"], shown["locale"]
        )
    log += [LogEntry.model_validate(entry) for entry in shown["pending"]]
    return MoveResult.model_validate(
        {"version": answer["version"], "committed": answer["committed"], "match": {**match, "log": log}}
    )


def _stored_form(answer: MoveResult, rows: Sequence[_logcache.LoggedRow], locale: str) -> dict[str, Any]:
    """The answer as stored for a repeated request id: the committed log lines by reference.

    Logged rows never change and their lines depend only on the viewer and the locale, so
    the seq range shown (and the pending lines, which are not logged) rebuilds the very same
    answer; the whole log would make every stored answer grow with the match.
    """
    view = answer.match
    return {
        "version": answer.version,
        "committed": answer.committed,
        "match": view.model_dump(mode="json", exclude={"log"}),
        "log": {
            "locale": locale,
            "first": rows[0].seq if rows else 1,
            "last": rows[-1].seq if rows else 0,
            "pending": [e.model_dump(mode="json") for e in view.log if e.pending],
        },
    }


async def _lost_race(db: AsyncSession, match_id: int, request_id: str, user_id: int) -> MoveResult:
    """Another transaction changed the match first: its answer if it was our twin, else 409."""
    stored = await _stored_answer(db, match_id, request_id, user_id)
    if stored is not None:
        return stored
    current = await db.scalar(select(Match.version).where(Match.id == match_id))
    raise StaleVersion("the match has moved on: look at the board again", current_version=current or 0)


# --- views -------------------------------------------------------------------------------


def _turn(game: Game, match: Match) -> Turn:
    assert match.state is not None
    pending = tuple(
        Decision(p["seat"], Move.parse(p["move"]), tuple(Event.from_json(e) for e in p["events"]))
        for p in match.pending
    )
    return Turn(game.parse_position(match.state), match.rng_counter, pending)


def _decision_json(decision: Decision) -> dict[str, Any]:
    return {
        "seat": decision.seat,
        "move": str(decision.move),
        "events": [e.to_json() for e in decision.events],
    }


async def _view(
    db: AsyncSession,
    match: Match,
    seats: Sequence[MatchSeat],
    names: Mapping[int, str],
    viewer_seat: Seat | None,
    locale: str,
    *,
    turn: Turn | None = None,
    current: State | None = None,
    rows: Sequence[_logcache.LoggedRow] | None = None,
) -> MatchView:
    """The viewer's match (``names``: the seats' occupants).

    The move path passes the ``turn`` it has just made, the ``current`` state it reached (the
    committed state with the pending decisions applied) and the committed ``rows`` of its own
    transaction (not yet committed: never read into the log cache here).
    """
    acting = viewer_seat is not None and viewer_seat in match.to_act
    base: dict[str, Any] = {
        "id": match.id,
        "game": match.game,
        "status": cast(MatchStatusName, match.status),
        # Only the acting seat learns about its own pending decisions and undos.
        "version": match.version if acting else match.committed_version,
        "options": dict(match.options),
        "seats": seat_outs(seats, names),
        "viewer_seat": viewer_seat,
        "created_by": match.created_by,
        "waiting_since": match.turn_started_at if match.status == MatchStatus.ACTIVE else None,
        "outcome": results.outcome_out(match.result),
    }
    if match.state is None or match.seed is None:
        empty: dict[str, Any] = {
            "view": {},
            "to_act": [],
            "legal": [],
            "can_undo": False,
            "can_confirm": False,
        }
        return MatchView(**base, **empty, log=[])
    game = get_game(match.game)
    if turn is None:
        turn = _turn(game, match)
    own_pending = viewer_seat is not None and turn.pending_seat == viewer_seat
    if not own_pending:
        state: State = turn.committed
    elif current is not None:
        state = current
    else:
        state = current_state(game, turn, match.seed)
    running = match.status == MatchStatus.ACTIVE
    to_act = sorted(game.to_act(state)) if running else []
    legal = (
        [str(m) for m in game.legal_moves(state, viewer_seat)] if running and viewer_seat in to_act else []
    )
    if rows is None:
        rows = await _logcache.newest_rows(
            db, match.id, match.seed, last=LOG_MOVES_SHOWN, store=True, version=match.committed_version
        )
    log = _logcache.visible_entries(game, rows, viewer_seat, locale)
    if own_pending:
        next_seq = rows[-1].seq + 1 if rows else 1
        log += _pending_log(game, next_seq, turn.pending, viewer_seat, locale)
    return MatchView(
        **base,
        view=game.view(state, viewer_seat),
        to_act=to_act,
        legal=legal,
        can_undo=own_pending,
        can_confirm=str(CONFIRM) in legal,
        log=log,
    )


def _pending_log(
    game: Game, first_seq: int, pending: Sequence[Decision], viewer: Seat | None, locale: str
) -> list[LogEntry]:
    return [
        _entry(game, seq, decision.seat, event, locale, pending=True)
        for seq, decision in enumerate(pending, start=first_seq)
        for event in decision.events
        if event.is_visible_to(viewer)
    ]


def _entry(game: Game, seq: int, seat: Seat, event: Event, locale: str, *, pending: bool) -> LogEntry:
    """A log line; callers pass only events the viewer may see (a drawn hand: its owner)."""
    return LogEntry(
        seq=seq,
        seat=seat,
        text=game.describe(event, locale),
        pieces=list(event.pieces),
        pending=pending,
        kind=event.kind,
    )
