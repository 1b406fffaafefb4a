"""Asynchronous play over JSON: clocks, resign, draw, vote, rematch, notifications, ratings,
profiles. The same services as the pages."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response
from pydantic import BaseModel, Field

from app.services import clocks, conclusions, notify, profiles, ratings, stand_ins
from app.services.play_schemas import BadgeOut, ClockOut, NotificationOut, ProfileOut, RankingRow, RatingPoint
from app.services.schemas import MatchSummary
from app.web.api.responses import errors
from app.web.deps import CsrfChecked, CurrentUser, LimitsDep, Locale, OptionalUser, SessionDep

ProfilePage = Annotated[int, Query(ge=1, le=profiles.MAX_PAGE)]

router = APIRouter(tags=["asynchronous play"], dependencies=[CsrfChecked])


class TimeControlIn(BaseModel):
    days_per_move: int | None = Field(default=None, ge=1, le=14)
    policy: Literal["timeout_move", "bot", "vote", "abort"] = "timeout_move"


class DrawIn(BaseModel):
    action: Literal["offer", "accept", "decline"]


@router.get("/matches/{match_id}/clock", responses=errors(404))
async def get_clock(db: SessionDep, match_id: int) -> ClockOut:
    """The time control, deadline, late seats, votes, resignations, draw offer, rematch."""
    return await conclusions.get_clock(db, match_id=match_id)


@router.put("/matches/{match_id}/clock", responses=errors(401, 403, 404, 409))
async def set_time_control(db: SessionDep, user: CurrentUser, match_id: int, body: TimeControlIn) -> ClockOut:
    """Choose the clock before the match starts (its creator only)."""
    return await clocks.set_time_control(
        db, match_id=match_id, user_id=user.id, days_per_move=body.days_per_move, policy=body.policy
    )


@router.post("/matches/{match_id}/take-back", status_code=204, responses=errors(401, 403, 404, 409))
async def take_back(db: SessionDep, user: CurrentUser, match_id: int) -> None:
    """Play your seat yourself again after a stand-in bot played it for you."""
    await stand_ins.take_back(db, match_id=match_id, user_id=user.id)


@router.post("/matches/{match_id}/resign", responses=errors(401, 403, 404, 409))
async def resign(db: SessionDep, user: CurrentUser, match_id: int) -> ClockOut:
    return await conclusions.resign(db, match_id=match_id, user_id=user.id)


@router.post("/matches/{match_id}/draw", responses=errors(401, 403, 404, 409))
async def draw(db: SessionDep, user: CurrentUser, match_id: int, body: DrawIn) -> ClockOut:
    if body.action == "offer":
        return await conclusions.offer_draw(db, match_id=match_id, user_id=user.id)
    return await conclusions.answer_draw(
        db, match_id=match_id, user_id=user.id, accept=body.action == "accept"
    )


@router.post("/matches/{match_id}/vote-end", responses=errors(401, 403, 404, 409))
async def vote_end(db: SessionDep, user: CurrentUser, match_id: int) -> ClockOut:
    return await conclusions.vote_end(db, match_id=match_id, user_id=user.id)


@router.post("/matches/{match_id}/rematch", status_code=201, responses=errors(401, 403, 404, 409, 429))
async def rematch(db: SessionDep, user: CurrentUser, limits: LimitsDep, match_id: int) -> MatchSummary:
    return await conclusions.rematch(db, match_id=match_id, user_id=user.id, limits=limits)


@router.get("/me/notifications", responses=errors(401))
async def my_notifications(
    db: SessionDep,
    user: CurrentUser,
    locale: Locale,
    page: Annotated[int, Query(ge=1, le=notify.MAX_PAGE)] = 1,
) -> list[NotificationOut]:
    """One page of the notification lines, the newest first; an empty page after the last."""
    return (await notify.list_notifications(db, user_id=user.id, locale=locale, page=page)).items


@router.get("/me/badge", responses=errors(401, takes_input=False))
async def my_badge(db: SessionDep, user: CurrentUser) -> BadgeOut:
    return await notify.badge(db, user_id=user.id)


@router.post("/me/notifications/read", status_code=204, responses=errors(401, 403, takes_input=False))
async def read_all(db: SessionDep, user: CurrentUser) -> Response:
    await notify.mark_read(db, user_id=user.id)
    return Response(status_code=204)


@router.get("/rankings/{game}", responses=errors(404))
async def ranking(db: SessionDep, locale: Locale, game: str) -> list[RankingRow]:
    return await ratings.ranking(db, game=game, locale=locale)


@router.get("/users/{name}", responses=errors(404))
async def profile(
    db: SessionDep,
    user: OptionalUser,
    locale: Locale,
    name: str,
    game: str = "",
    opponent: str = "",
    running_page: ProfilePage = 1,
    finished_page: ProfilePage = 1,
) -> ProfileOut:
    """A player's (or a bot's) profile: running and finished matches a page each."""
    return await profiles.get_profile(
        db,
        name=name,
        viewer_id=user.id if user else None,
        game=game or None,
        opponent=opponent or None,
        locale=locale,
        running_page=running_page,
        finished_page=finished_page,
    )


@router.get("/users/{name}/ratings/{game}", responses=errors(404))
async def rating_history(
    db: SessionDep, locale: Locale, name: str, game: str, page: ProfilePage = 1
) -> list[RatingPoint]:
    """The rating after each rated match, oldest first: page 1 is the newest ones."""
    found = await profiles.get_profile(db, name=name, viewer_id=None, locale=locale)
    return await ratings.history(db, user_id=found.user_id, game=game, page=page)
