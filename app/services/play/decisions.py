"""Decisions: submit a move, undo, confirm. The move path.

A decision is checked against the match as the process holds it (``loaded``, perhaps without
reading it again: the write checks the version and the state it was decided on), decided by the
pure engine (``app.engine.turn``) and written as ONE atomic ``DecisionWrite``: the versioned
update of the match row, the committed decisions' log rows, the answer under the request id,
and the notifications. Only once it has committed does the live news go out (the broker, in
the background) and the seat get its answer, so an answer always means "durable".

Who may learn what: membership is checked before anything else (an outsider learns nothing,
not even whether a request id was used); a waiting seat is refused before the version is
compared (a 409 would tell it the acting seat's private version); a resigned seat decides
nothing any more (the server plays its turns); a pending decision or an undo publishes nothing
and leaves every timestamp as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

import orjson
from pydantic import TypeAdapter
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.matches import VERSION_SPAN, public_version
from app.db.models import MatchStatus
from app.db.store import store_of
from app.db.store.records import (
    MATCH_ENDED,
    YOUR_TURN,
    Answered,
    Applied,
    Commit,
    DecisionWrite,
    MatchRow,
    Moved,
    WriteOutcome,
)
from app.db.types import utcnow
from app.engine.protocol import CONFIRM, Game, IllegalMove, InvalidMove, Move, Seat, State
from app.engine.registry import get_game
from app.engine.turn import Decision, Turn, current_state, decide, undo
from app.engine.turn import NotYourTurn as EngineNotYourTurn
from app.services import bot_turns, live, ratings, results
from app.services._db import use_case
from app.services._rows import is_token
from app.services.errors import (
    Conflict,
    DomainError,
    IllegalMoveError,
    InvalidInput,
    NotYourTurn,
    StaleVersion,
)
from app.services.live import Nudge
from app.services.play import loaded as kept
from app.services.play import pushes
from app.services.play.loaded import LoadedMatch, pending_json
from app.services.play.log import LoggedRow, logged, visible
from app.services.play.standings import RESIGNED, resigned_last
from app.services.play.views import match_view, seat_or_forbidden
from app.services.schemas import LogEntry, MoveResult
from app.services.tournaments import hooks as tournament_hooks

Action = Literal["move", "undo", "confirm"]
_LOG = TypeAdapter(list[LogEntry])


class ServerRequestId(str):
    """A request id the server makes for its own decisions (a bot's): ``<kind>:<part>:...``.

    A client's request id is a token (letters, digits, '-' and '_'), so no id a client can
    send ever equals one of these, however well it guesses them: a player who used a bot's
    next id first would freeze the bot's seat (issue 19). Only server code makes one; what a
    client sends is a plain ``str`` and is checked as a token.
    """

    __slots__ = ()

    @classmethod
    def of(cls, kind: str, *parts: int | str) -> ServerRequestId:
        return cls(":".join([kind, *map(str, parts)]))


@dataclass(frozen=True, slots=True)
class _Request:
    """One decision as a seat sent it."""

    user_id: int
    action: Action
    move: str | None
    expected_version: int
    request_id: str
    locale: str
    log_after: int | None
    then_confirm: bool = False


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
    log_after: int | None = None,
    then_confirm: bool = False,
) -> MoveResult:
    """Take one decision; it stays pending (undoable) unless it is an undo barrier.

    ``then_confirm``: when the decision leaves the seat nothing to do but confirm, confirm the
    turn in the same write (Board Game Arena's "no confirmation" preference). Both decisions
    are logged as if sent one after the other; the answer is the confirmed turn's.
    """
    request = _Request(user_id, "move", move, expected_version, request_id, locale, log_after, then_confirm)
    return await _decide(db, match_id, request)


@use_case
async def undo_move(
    db: AsyncSession,
    *,
    match_id: int,
    user_id: int,
    expected_version: int,
    request_id: str,
    locale: str,
    log_after: int | None = None,
) -> MoveResult:
    """Drop the seat's last pending decision."""
    return await _decide(
        db, match_id, _Request(user_id, "undo", None, expected_version, request_id, locale, log_after)
    )


@use_case
async def confirm_turn(
    db: AsyncSession,
    *,
    match_id: int,
    user_id: int,
    expected_version: int,
    request_id: str,
    locale: str,
    log_after: int | None = None,
) -> MoveResult:
    """Commit everything pending and end the turn (submits ``confirm``)."""
    request = _Request(user_id, "confirm", str(CONFIRM), expected_version, request_id, locale, log_after)
    return await _decide(db, match_id, request)


async def _decide(db: AsyncSession, match_id: int, request: _Request) -> MoveResult:
    if not (isinstance(request.request_id, ServerRequestId) or is_token(request.request_id)):
        raise InvalidInput("a request id has 1 to 64 letters, digits, '-' or '_'")
    store = store_of(db)
    loaded = kept.cached(db, match_id, request.expected_version)
    optimistic = loaded is not None
    if loaded is None:
        loaded = await kept.load(db, match_id)
    while True:
        outcome: WriteOutcome | None = None
        try:
            planned = await _planned(db, loaded, request)
            if isinstance(planned, MoveResult):
                return planned
            plan = planned
            outcome = await store.write(plan.write)
        except DomainError:
            if not optimistic:
                raise  # perhaps only the kept copy said no: then the database is asked below
        if isinstance(outcome, Applied):
            kept.remember(store, plan.after)
            live.current_broker().publish_many(plan.nudges)
            bot_turns.after_commit(plan.after)
            if plan.after.row.status == MatchStatus.FINISHED:
                # Ratings are their own transaction: the clock round rates any match a crash
                # left unrated (rating is idempotent).
                await ratings.rate_finished(db, match_id=match_id)
                await tournament_hooks.match_ended(db, match_id)
            return plan.answer
        if isinstance(outcome, Answered):
            return await _stored_answer(db, outcome, request.user_id)
        if not optimistic:
            assert isinstance(outcome, Moved)
            raise StaleVersion(
                "the match has moved on: look at the board again", current_version=outcome.version
            )
        # The kept copy was out of date (another process wrote): decide on the fresh one.
        optimistic = False
        loaded = await kept.load(db, match_id)


async def _planned(db: AsyncSession, loaded: LoadedMatch, request: _Request) -> _Plan | MoveResult:
    """The plan of this decision, or the stored answer of a repeated request; else the refusal."""
    seat = seat_or_forbidden(loaded, request.user_id)
    refused = _refusal(loaded, seat, request.action, request.expected_version)
    if refused is not None:
        # A repeated request whose first copy moved the match on gets its first answer.
        used = await store_of(db).answer(loaded.id, request.request_id)
        if used is not None:
            return await _stored_answer(db, used, request.user_id)
        raise refused
    return _plan(loaded, seat, request, _engine_step(loaded, seat, request))


def _refusal(loaded: LoadedMatch, seat: Seat, action: Action, expected_version: int) -> DomainError | None:
    """Why ``seat`` may not decide now, or None. The order matters (module doc)."""
    row = loaded.row
    if row.status != MatchStatus.ACTIVE or loaded.turn is None:
        return Conflict("this match is not running")
    if seat in row.resigned:
        return Conflict(RESIGNED)  # public knowledge: said before anything about the turn
    if seat not in row.to_act:
        if action == "undo":
            return IllegalMoveError("there is nothing to undo: committed decisions are final")
        return NotYourTurn("it is not your turn")
    if row.version != expected_version:
        return StaleVersion(
            f"the match has moved on (version {row.version}, you saw {expected_version})",
            current_version=row.version,
        )
    return None


@dataclass(frozen=True, slots=True)
class _Step:
    turn: Turn
    committed: tuple[Decision, ...]
    """The decisions this step committed (empty while they stay pending)."""
    current: State | None
    """The seat's state after the step, when known without a refold."""


def _engine_step(loaded: LoadedMatch, seat: Seat, request: _Request) -> _Step:
    game, turn, seed = loaded.game, loaded.turn, loaded.row.seed
    assert game is not None and turn is not None and seed is not None
    try:
        if request.action == "undo":
            # Refolded here, where a kept copy that does not add up is an illegal move (and a
            # fresh read decides again), not an error while the answer is built.
            earlier = undo(turn, seat)
            return _Step(earlier, (), current_state(game, earlier, seed))
        state = loaded.current() if turn.pending else turn.committed
        step = decide(game, turn, seat, _parse_move(request.move), seed, state)
        committed = step.committed
        if request.then_confirm and game.legal_moves(step.state, seat) == [CONFIRM]:
            step = decide(game, step.turn, seat, CONFIRM, seed, step.state)
            committed += step.committed
    except EngineNotYourTurn as error:
        raise NotYourTurn(error.reason) from None
    except IllegalMove as error:
        raise IllegalMoveError(error.reason) from None
    return _Step(step.turn, committed, step.state)


def _parse_move(text: str | None) -> Move:
    try:
        return Move.parse(text or "")
    except InvalidMove as error:
        raise IllegalMoveError(str(error)) from None


@dataclass(frozen=True, slots=True)
class _Plan:
    write: DecisionWrite
    after: LoadedMatch
    """The match as it is once ``write`` is applied."""
    answer: MoveResult
    nudges: list[Nudge]


def _plan(loaded: LoadedMatch, seat: Seat, request: _Request, step: _Step) -> _Plan:
    """The write of one decision, the match as it will be after it, and the news it makes."""
    game = loaded.game
    assert game is not None
    new_turn, committed = step.turn, step.committed
    row, now = loaded.row, utcnow()
    pending = pending_json(new_turn.pending)
    new_rows: list[LoggedRow] = []
    commit: Commit | None = None
    nudges: list[Nudge] = []
    if committed:
        public = row.committed_version + 1
        new_rows = logged(loaded.last_seq + 1, committed)
        commit = _commit(game, row, new_turn, new_rows, now)
        new_row = replace(
            row,
            version=public_version(public),
            pending=pending,
            committed_version=public,
            state=commit.state,
            rng_counter=commit.rng_counter,
            to_act=commit.to_act,
            status=commit.status,
            result=commit.result,
            turn_started_at=commit.turn_started_at or row.turn_started_at,
            seats=_with_standings(row, commit),
        )
        nudges.append(Nudge("match", row.id, public, loaded.last_seq))
        turn_moved = commit.to_act != row.to_act
        players = {s.user_id for s in row.seats if s.user_id is not None} if turn_moved else {request.user_id}
        nudges += [Nudge("user", u, cause=row.id) for u in sorted(players)]
    else:
        if row.version % VERSION_SPAN == VERSION_SPAN - 1:
            raise InvalidInput("too many decisions and undos in one turn: confirm or undo first")
        new_row = replace(row, version=row.version + 1, pending=pending)
    after = kept.advanced(loaded, new_row, new_turn, step.current, new_rows)
    view = match_view(after, seat, request.locale, log_after=request.log_after)
    answer = MoveResult.model_construct(version=view.version, committed=bool(committed), match=view)
    stored, match_json = _serialised(answer, after, request.locale)
    if committed:
        # The mover's own stream pushes this very view of the new version: made once.
        pushes.keep_view(after, seat, request.locale, request.log_after, view, match_json)
    write = DecisionWrite(
        match_id=row.id,
        seen=row.version,
        seen_state=row.state or "",
        request_id=request.request_id,
        user_id=request.user_id,
        now=now,
        pending=pending,
        answer=stored,
        commit=commit,
    )
    return _Plan(write, after, answer, nudges)


def _commit(game: Game, row: MatchRow, new_turn: Turn, new_rows: list[LoggedRow], now: Any) -> Commit:
    state = new_turn.committed
    to_act = tuple(sorted(game.to_act(state)))
    outcome = game.outcome(state)
    status, result, finished_at = MatchStatus.ACTIVE, None, None
    standings: tuple[tuple[int, float, int], ...] = ()
    users = {s.seat: s.user_id for s in row.seats if s.user_id is not None}
    if outcome is not None:
        to_act, status, finished_at = (), MatchStatus.FINISHED, now
        ranks = resigned_last(list(outcome.ranks), row.resigned)
        result = {**results.stored(outcome), "ranks": ranks}
        if row.resigned:
            result["resigned"] = list(row.resigned)
        standings = tuple((s.seat, float(outcome.scores[s.seat]), ranks[s.seat]) for s in row.seats)
    turn_started_at = now if to_act != row.to_act and outcome is None else None
    if outcome is not None:
        notices = tuple((u, MATCH_ENDED, now) for u in sorted(users.values()))
    elif turn_started_at is not None:
        notices = tuple((users[s], YOUR_TURN, now) for s in to_act if s in users)
    else:
        notices = ()
    return Commit(
        state=game.format_position(state),
        rng_counter=new_turn.rng_counter,
        to_act=to_act,
        status=status,
        result=result,
        turn_started_at=turn_started_at,
        finished_at=finished_at,
        log=tuple(r.to_row() for r in new_rows),
        standings=standings,
        notices=notices,
    )


def _with_standings(row: MatchRow, commit: Commit) -> Any:
    if not commit.standings:
        return row.seats
    final = {seat: (score, rank) for seat, score, rank in commit.standings}
    return tuple(replace(s, score=final[s.seat][0], rank=final[s.seat][1]) for s in row.seats)


# --- answers under request ids ---------------------------------------------------------


def _serialised(answer: MoveResult, after: LoadedMatch, locale: str) -> tuple[str, str]:
    """The answer as stored under its request id, and its match as the API sends it (JSON).

    Stored, the committed log lines are kept by reference: logged rows never change and their
    lines depend only on the viewer and the locale, so the seq range shown (and the pending
    lines, which are not logged) rebuilds the very same answer; storing the lines would make
    the stored answers grow with the match. The match is serialised once, without its log, for
    both: the API's answer (``MoveResult.answer_json``) is that text with the log put back in
    its place (before ``log_after``, the field after it), byte for byte what pydantic makes
    of the whole answer.
    """
    view = answer.match
    shown = {
        "locale": locale,
        "first": view.log_after + 1,
        "last": after.last_seq,
        "pending": [e.model_dump(mode="json") for e in view.log if e.pending],
    }
    # Serialised by pydantic-core straight to text, then joined: no dicts in between.
    match = view.model_dump_json(exclude={"log"})
    committed = "true" if answer.committed else "false"
    head = f'{{"version":{answer.version},"committed":{committed},"match":'
    stored = f'{head}{match},"log":{orjson.dumps(shown).decode()}}}'
    # The fields after log_after (outcome, created_by, waiting_since) hold no user text.
    at = match.rindex(',"log_after":')
    whole = f'{match[:at]},"log":{_LOG.dump_json(view.log).decode()}{match[at:]}'
    answer._json = f"{head}{whole}}}"
    return stored, whole


async def _stored_answer(db: AsyncSession, used: Answered, user_id: int) -> MoveResult:
    """The answer given to a request id before (``_stored_form`` back into a ``MoveResult``)."""
    if used.user_id != user_id:
        raise Conflict("this request id was already used")
    answer = used.answer
    shown = answer.get("log")
    if shown is None:  # stored whole (before the log was kept by reference)
        return MoveResult.model_validate(answer)
    match = answer["match"]
    log: list[LogEntry] = []
    first, last = shown["first"], shown["last"]
    if last >= first:
        rows = await store_of(db).log_before(match["id"], before=last + 1, limit=last - first + 1)
        lines = [LoggedRow.from_row(r) for r in rows]
        log = visible(get_game(match["game"]), lines, match["viewer_seat"], shown["locale"])
    log += [LogEntry.model_validate(entry) for entry in shown["pending"]]
    return MoveResult.model_validate(
        {"version": answer["version"], "committed": answer["committed"], "match": {**match, "log": log}}
    )
