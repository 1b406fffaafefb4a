"""Matches over JSON: create, join, leave, cancel, bots, chat, replay, my matches (the move
path's own routes are in ``moves``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field, StrictBool

from app.services import lobby, play, replays
from app.services.schemas import MatchSummary, MessageOut, ReplayView
from app.web.api.responses import errors
from app.web.deps import CsrfChecked, CurrentUser, LimitsDep, Locale, OptionalUser, SessionDep

router = APIRouter(tags=["matches"], dependencies=[CsrfChecked])


class CreateMatchIn(BaseModel):
    game: str = Field(max_length=40)
    seats: int = Field(ge=1, le=10)
    options: dict[str, Any] = Field(default_factory=dict)
    invite: list[str] = Field(default_factory=list, max_length=9)
    fixed_order: StrictBool = False
    bots: Literal["easy", "normal", "strong"] | None = Field(
        default=None, description="Give the seats nobody is invited to computer opponents of this level"
    )
    days_per_move: int | None = Field(default=None, ge=1, le=14, description="The clock; none by default")
    policy: Literal["timeout_move", "bot", "vote", "abort"] = "timeout_move"


class BotsIn(BaseModel):
    level: Literal["easy", "normal", "strong"]


class JoinIn(BaseModel):
    invite_token: str | None = Field(default=None, max_length=200)


class MessageIn(BaseModel):
    text: str = Field(min_length=1, max_length=500)


class MyMatchesOut(BaseModel):
    your_turn: list[MatchSummary]
    waiting: list[MatchSummary]
    finished: list[MatchSummary]
    """One page of the finished matches (``finished_page``, newest first)."""
    finished_page: int
    finished_more: bool


@router.post("/matches", status_code=201, responses=errors(401, 403, 429))
async def create_match(
    body: CreateMatchIn, db: SessionDep, user: CurrentUser, limits: LimitsDep
) -> MatchSummary:
    return await lobby.create_match(
        db,
        creator_id=user.id,
        game=body.game,
        seats=body.seats,
        options=body.options,
        invite=body.invite,
        fixed_order=body.fixed_order,
        bots=body.bots,
        limits=limits,
        days_per_move=body.days_per_move,
        policy=body.policy,
    )


@router.post("/matches/{match_id}/bots", responses=errors(401, 403, 404, 409, 422, 429))
async def add_bots(
    match_id: int, body: BotsIn, db: SessionDep, user: CurrentUser, limits: LimitsDep
) -> MatchSummary:
    """Give the table's open seats to computer opponents (its creator, before the start)."""
    return await lobby.add_bots(db, match_id=match_id, user_id=user.id, level=body.level, limits=limits)


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
async def list_messages(
    match_id: int,
    db: SessionDep,
    user: CurrentUser,
    before: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
) -> list[MessageOut]:
    """The table's chat (players only), oldest first: its newest page of messages, or the page
    just before the message ``before`` (the first id of a page: "earlier")."""
    return await play.list_messages(db, match_id=match_id, user_id=user.id, before=before)


@router.post("/matches/{match_id}/messages", status_code=201, responses=errors(401, 403, 404, 409, 429))
async def post_message(
    match_id: int, body: MessageIn, db: SessionDep, user: CurrentUser, limits: LimitsDep
) -> MessageOut:
    return await play.post_message(db, match_id=match_id, user_id=user.id, text=body.text, limits=limits)


@router.get("/matches/{match_id}/replay/{step}", responses=errors(403, 404, 409))
async def replay(
    match_id: int, step: Annotated[int, Path(ge=0)], db: SessionDep, user: OptionalUser, locale: Locale
) -> ReplayView:
    """The match after ``step`` steps (0 = the setup); 409 before its start or beyond its last step."""
    return await replays.replay(
        db, match_id=match_id, viewer_id=user.id if user else None, step=step, locale=locale
    )


@router.get("/me/matches", responses=errors(401))
async def my_matches(
    db: SessionDep,
    user: CurrentUser,
    order: Literal["oldest", "recent"] = "oldest",
    finished_page: Annotated[int, Query(ge=1, le=lobby.MAX_PAGE)] = 1,
) -> MyMatchesOut:
    running = await lobby.running_matches(db, user_id=user.id, order=order)
    finished = await lobby.finished_matches(db, user_id=user.id, page=finished_page)
    return MyMatchesOut(
        your_turn=running.your_turn,
        waiting=running.waiting,
        finished=finished.matches,
        finished_page=finished.page,
        finished_more=finished.more,
    )
