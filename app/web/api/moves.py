"""The move path over JSON: a match's view and log, and its decisions (move, undo, confirm).

Kept apart from the lobby's routes and included first: these are the requests a match makes
by the hundred, and a route is found by trying the routes in order.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field, StrictBool
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import Response

from app.services import play
from app.services.errors import StaleVersion
from app.services.schemas import LogEntry, MatchView, MoveResult
from app.web.api.responses import StaleOut, errors, json_answer
from app.web.decision_route import DecisionRoute, MoveBody, TurnIn
from app.web.deps import CsrfChecked, CurrentUser, Locale, OptionalUser, SessionDep

router = APIRouter(tags=["matches"], dependencies=[CsrfChecked])
decisions = APIRouter(tags=["matches"], dependencies=[CsrfChecked], route_class=DecisionRoute)
"""Move, undo and confirm: declared as usual, their requests solved by ``DecisionRoute``."""


class MoveIn(MoveBody):
    confirm: StrictBool = Field(
        default=False,
        description="Also confirm the turn when this move leaves nothing else to decide (one request a turn)",
    )


class LogPageOut(BaseModel):
    log: list[LogEntry]
    log_after: int = Field(description="The page starts after this seq (0: nothing earlier)")


DECISION = errors(401, 403, 404, stale=True)
"""A decision on a match (move, undo, confirm): a stale version answers 409 with the fresh match."""


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


@decisions.post("/matches/{match_id}/moves", response_model=MoveResult, responses=DECISION)
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


@decisions.post("/matches/{match_id}/undo", response_model=MoveResult, responses=DECISION)
async def undo(match_id: int, body: TurnIn, db: SessionDep, user: CurrentUser, locale: Locale) -> Response:
    return await _turn_step(play.undo_move, match_id, body, db, user.id, locale)


@decisions.post("/matches/{match_id}/confirm", response_model=MoveResult, responses=DECISION)
async def confirm(match_id: int, body: TurnIn, db: SessionDep, user: CurrentUser, locale: Locale) -> Response:
    return await _turn_step(play.confirm_turn, match_id, body, db, user.id, locale)


async def _turn_step(
    step: Callable[..., Awaitable[MoveResult]],
    match_id: int,
    body: TurnIn,
    db: AsyncSession,
    user_id: int,
    locale: str,
) -> Response:
    """Undo or confirm: the same request, the same answer."""
    decision = step(
        db,
        match_id=match_id,
        user_id=user_id,
        expected_version=body.expected_version,
        request_id=body.request_id,
        locale=locale,
        log_after=body.log_after,
    )
    return await _answer(decision, db, match_id, user_id, locale, body.log_after)


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
        result = await decision
    except StaleVersion as exc:
        fresh = await play.get_match(
            db, match_id=match_id, viewer_id=user_id, locale=locale, log_after=log_after
        )
        body = StaleOut.model_construct(detail=exc.reason, current_version=fresh.version, match=fresh)
        return json_answer(body, status_code=409)
    return Response(result.answer_json(), media_type="application/json")
