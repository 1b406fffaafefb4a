"""Matches over JSON: create, join, read, move, undo, confirm, replay, my matches."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import Response

from app.services import lobby, play, replays
from app.services.errors import StaleVersion
from app.services.schemas import LogEntry, MatchSummary, MatchView, MessageOut, MoveResult, ReplayView
from app.web.api.responses import StaleOut, errors, json_answer
from app.web.deps import CsrfChecked, CurrentUser, Locale, OptionalUser, SessionDep

router = APIRouter(tags=["matches"], dependencies=[CsrfChecked])

REQUEST_ID = Field(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")


class CreateMatchIn(BaseModel):
    game: str = Field(max_length=40)
    seats: int = Field(ge=1, le=10)
    options: dict[str, Any] = Field(default_factory=dict)
    invite: list[str] = Field(default_factory=list, max_length=9)
    fixed_order: bool = False
    bots: Literal["easy", "normal", "strong"] | None = Field(
        default=None, description="Give the seats nobody is invited to computer opponents of this level"
    )


class BotsIn(BaseModel):
    level: Literal["easy", "normal", "strong"]


class JoinIn(BaseModel):
    invite_token: str | None = Field(default=None, max_length=200)


LOG_AFTER = Field(
    default=None,
    ge=0,
    le=2**31 - 1,
    description="The newest log seq the client has: the answer's log holds only newer lines",
)


class TurnIn(BaseModel):
    expected_version: int = Field(ge=0)
    request_id: str = REQUEST_ID
    log_after: int | None = LOG_AFTER


class MoveIn(TurnIn):
    move: str = Field(min_length=1, max_length=200)
    confirm: bool = Field(
        default=False,
        description="Also confirm the turn when this move leaves nothing else to decide (one request a turn)",
    )


class LogPageOut(BaseModel):
    log: list[LogEntry]
    log_after: int = Field(description="The page starts after this seq (0: nothing earlier)")


class MessageIn(BaseModel):
    text: str = Field(min_length=1, max_length=500)


class MyMatchesOut(BaseModel):
    your_turn: list[MatchSummary]
    waiting: list[MatchSummary]
    finished: list[MatchSummary]


DECISION = errors(401, 403, 404, stale=True)
"""A decision on a match (move, undo, confirm): a stale version answers 409 with the fresh match."""


@router.post("/matches", status_code=201, responses=errors(401, 403))
async def create_match(body: CreateMatchIn, db: SessionDep, user: CurrentUser) -> MatchSummary:
    return await lobby.create_match(
        db,
        creator_id=user.id,
        game=body.game,
        seats=body.seats,
        options=body.options,
        invite=body.invite,
        fixed_order=body.fixed_order,
        bots=body.bots,
    )


@router.post("/matches/{match_id}/bots", responses=errors(401, 403, 404, 409, 422))
async def add_bots(match_id: int, body: BotsIn, db: SessionDep, user: CurrentUser) -> MatchSummary:
    """Give the table's open seats to computer opponents (its creator, before the start)."""
    return await lobby.add_bots(db, match_id=match_id, user_id=user.id, level=body.level)


@router.post("/matches/{match_id}/join", status_code=204, responses=errors(401, 403, 404, 409))
async def join_match(match_id: int, body: JoinIn, db: SessionDep, user: CurrentUser) -> None:
    await lobby.join_match(db, match_id=match_id, user_id=user.id, invite_token=body.invite_token)


@router.post("/matches/{match_id}/leave", status_code=204, responses=errors(401, 403, 404, 409))
async def leave_match(match_id: int, db: SessionDep, user: CurrentUser) -> None:
    """Give up your seat before the match starts."""
    await lobby.leave_match(db, match_id=match_id, user_id=user.id)


@router.post("/matches/{match_id}/cancel", status_code=204, responses=errors(401, 403, 404, 409))
async def cancel_match(match_id: int, db: SessionDep, user: CurrentUser) -> None:
    """Call the match off before it starts (its creator only)."""
    await lobby.cancel_match(db, match_id=match_id, user_id=user.id)


@router.get("/matches/{match_id}/messages", responses=errors(401, 403, 404))
async def list_messages(match_id: int, db: SessionDep, user: CurrentUser) -> list[MessageOut]:
    """The table's chat (players only)."""
    return await play.list_messages(db, match_id=match_id, user_id=user.id)


@router.post("/matches/{match_id}/messages", status_code=201, responses=errors(401, 403, 404, 409))
async def post_message(match_id: int, body: MessageIn, db: SessionDep, user: CurrentUser) -> MessageOut:
    return await play.post_message(db, match_id=match_id, user_id=user.id, text=body.text)


@router.get("/matches/{match_id}", response_model=MatchView, responses=errors(403, 404))
async def get_match(
    match_id: int,
    db: SessionDep,
    user: OptionalUser,
    locale: Locale,
    log_after: Annotated[int | None, Query(ge=0, le=2**31 - 1)] = None,
) -> Response:
    """The match as you may see it; its log holds the lines after ``log_after`` (or the newest)."""
    view = await play.get_match(
        db, match_id=match_id, viewer_id=user.id if user else None, locale=locale, log_after=log_after
    )
    return json_answer(view)


@router.get("/matches/{match_id}/log", responses=errors(403, 404))
async def log_page(
    match_id: int,
    db: SessionDep,
    user: OptionalUser,
    locale: Locale,
    before: Annotated[int, Query(ge=0, le=2**31 - 1)],
) -> LogPageOut:
    """The log lines of the decisions just before seq ``before`` (the log's earlier pages)."""
    lines, after = await play.log_page(
        db, match_id=match_id, viewer_id=user.id if user else None, before=before, locale=locale
    )
    return LogPageOut(log=lines, log_after=after)


@router.post("/matches/{match_id}/moves", response_model=MoveResult, responses=DECISION)
async def submit_move(
    match_id: int, body: MoveIn, db: SessionDep, user: CurrentUser, locale: Locale
) -> Response:
    decision = play.submit_move(
        db,
        match_id=match_id,
        user_id=user.id,
        move=body.move,
        expected_version=body.expected_version,
        request_id=body.request_id,
        locale=locale,
        log_after=body.log_after,
        then_confirm=body.confirm,
    )
    return await _answer(decision, db, match_id, user.id, locale, body.log_after)


@router.post("/matches/{match_id}/undo", response_model=MoveResult, responses=DECISION)
async def undo(match_id: int, body: TurnIn, db: SessionDep, user: CurrentUser, locale: Locale) -> Response:
    decision = play.undo_move(
        db,
        match_id=match_id,
        user_id=user.id,
        expected_version=body.expected_version,
        request_id=body.request_id,
        locale=locale,
        log_after=body.log_after,
    )
    return await _answer(decision, db, match_id, user.id, locale, body.log_after)


@router.post("/matches/{match_id}/confirm", response_model=MoveResult, responses=DECISION)
async def confirm(match_id: int, body: TurnIn, db: SessionDep, user: CurrentUser, locale: Locale) -> Response:
    decision = play.confirm_turn(
        db,
        match_id=match_id,
        user_id=user.id,
        expected_version=body.expected_version,
        request_id=body.request_id,
        locale=locale,
        log_after=body.log_after,
    )
    return await _answer(decision, db, match_id, user.id, locale, body.log_after)


@router.get("/matches/{match_id}/replay/{step}", responses=errors(403, 404))
async def replay(match_id: int, step: int, db: SessionDep, user: OptionalUser, locale: Locale) -> ReplayView:
    return await replays.replay(
        db, match_id=match_id, viewer_id=user.id if user else None, step=step, locale=locale
    )


@router.get("/me/matches", responses=errors(401))
async def my_matches(
    db: SessionDep, user: CurrentUser, order: Literal["oldest", "recent"] = "oldest"
) -> MyMatchesOut:
    groups = await lobby.my_matches(db, user_id=user.id, order=order)
    return MyMatchesOut(your_turn=groups["your_turn"], waiting=groups["waiting"], finished=groups["finished"])


async def _answer(
    decision: Awaitable[MoveResult],
    db: AsyncSession,
    match_id: int,
    user_id: int,
    locale: str,
    log_after: int | None,
) -> Response:
    """A decision's result; a stale version answers 409 with the fresh match."""
    try:
        return json_answer(await decision)
    except StaleVersion as exc:
        fresh = await play.get_match(
            db, match_id=match_id, viewer_id=user_id, locale=locale, log_after=log_after
        )
        body = StaleOut.model_construct(detail=exc.reason, current_version=fresh.version, match=fresh)
        return json_answer(body, status_code=409)
