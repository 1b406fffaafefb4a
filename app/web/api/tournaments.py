"""Tournaments over JSON: create, sign up and leave, start, withdraw, one tournament, the list."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field, StrictBool

from app.services.tournaments import service
from app.services.tournaments.schemas import TournamentOut, TournamentPage
from app.web.api.responses import errors
from app.web.deps import CsrfChecked, CurrentUser, Locale, OptionalUser, SessionDep

router = APIRouter(tags=["tournaments"], dependencies=[CsrfChecked])
TournamentId = Annotated[int, Path(ge=1, le=2**31 - 1)]


class CreateTournamentIn(BaseModel):
    name: str = Field(min_length=1, max_length=80)
    game: str = Field(max_length=40)
    options: dict[str, Any] = Field(default_factory=dict)
    table_size: int = Field(ge=2, le=10)
    format: Literal["round_robin", "swiss", "knockout"]
    rounds: int | None = Field(default=None, ge=1, le=service.MAX_ROUNDS)
    places: int = Field(ge=2, le=service.MAX_PLACES)
    advance: int = Field(
        default=1, ge=1, le=9, description="Multi-player knockout: the best N of a table go on"
    )
    group_size: int | None = Field(default=None, ge=2, le=64, description="Round robin: players per group")
    final_per_group: int | None = Field(
        default=None,
        ge=1,
        le=service.MAX_FINAL_PER_GROUP,
        description="Round robin: the best N of each group go on to a knockout final stage",
    )
    signup_until: datetime | None = None
    start_when_full: StrictBool = True
    days_per_move: int = Field(default=3, ge=1, le=14)
    timeout_action: Literal["forfeit", "withdraw"] = "forfeit"
    public: StrictBool = True


class CreatedOut(BaseModel):
    id: int


class SignupIn(BaseModel):
    invite_token: str | None = Field(default=None, max_length=200)


@router.post("/tournaments", status_code=201, responses=errors(401, 403, 422, 429))
async def create_tournament(body: CreateTournamentIn, db: SessionDep, user: CurrentUser) -> CreatedOut:
    tournament_id = await service.create_tournament(
        db,
        creator_id=user.id,
        name=body.name,
        game=body.game,
        options=body.options,
        table_size=body.table_size,
        format=body.format,
        rounds=body.rounds,
        places=body.places,
        advance=body.advance,
        group_size=body.group_size,
        final_per_group=body.final_per_group,
        signup_until=body.signup_until,
        start_when_full=body.start_when_full,
        days_per_move=body.days_per_move,
        timeout_action=body.timeout_action,
        public=body.public,
    )
    return CreatedOut(id=tournament_id)


class PolicyIn(BaseModel):
    admins_only: StrictBool
    """A JSON true or false (a 0 or "no" is refused, not read as false)."""


class PolicyOut(BaseModel):
    admins_only: bool
    """The administrator's setting: only administrators create tournaments."""
    may_create: bool
    """Whether you may create one."""


@router.get("/tournaments/policy")
async def get_policy(db: SessionDep, user: OptionalUser) -> PolicyOut:
    """Who may create tournaments on this server."""
    return PolicyOut(
        admins_only=await service.admins_only(db),
        may_create=await service.may_create(db, user_id=user.id if user else None),
    )


@router.put("/tournaments/policy", responses=errors(401, 403))
async def set_policy(body: PolicyIn, db: SessionDep, user: CurrentUser) -> PolicyOut:
    """The administrator sets who may create tournaments (anyone, or only administrators)."""
    await service.set_admins_only(db, admin_id=user.id, admins_only=body.admins_only)
    return await get_policy(db, user)


@router.get("/tournaments", responses=errors(422))
async def list_tournaments(
    db: SessionDep,
    user: OptionalUser,
    locale: Locale,
    status: Literal["signup", "running", "finished"] = "signup",
    page: Annotated[int, Query(ge=1, le=service.MAX_PAGE)] = 1,
) -> TournamentPage:
    """Public tournaments (and yours) in one state, newest first, 20 a page."""
    return await service.list_tournaments(
        db, viewer_id=user.id if user else None, status=status, page=page, locale=locale
    )


@router.get("/tournaments/{tournament_id}", responses=errors(404))
async def get_tournament(
    tournament_id: TournamentId, db: SessionDep, user: OptionalUser, locale: Locale
) -> TournamentOut:
    """State, players, rounds with their match ids, standings with tie-breaks."""
    return await service.get_tournament(
        db, tournament_id=tournament_id, viewer_id=user.id if user else None, locale=locale
    )


@router.post("/tournaments/{tournament_id}/signup", status_code=204, responses=errors(401, 403, 404, 409))
async def sign_up(
    tournament_id: TournamentId, db: SessionDep, user: CurrentUser, body: SignupIn | None = None
) -> None:
    await service.sign_up(
        db, tournament_id=tournament_id, user_id=user.id, invite_token=body.invite_token if body else None
    )


@router.delete("/tournaments/{tournament_id}/signup", status_code=204, responses=errors(401, 403, 404, 409))
async def leave(
    tournament_id: TournamentId,
    db: SessionDep,
    user: CurrentUser,
    name: Annotated[str | None, Query(max_length=40, description="The creator removes this player")] = None,
) -> None:
    await service.leave(db, tournament_id=tournament_id, user_id=user.id, name=name)


class InviteIn(BaseModel):
    name: str = Field(min_length=1, max_length=40)


@router.post(
    "/tournaments/{tournament_id}/invites", status_code=204, responses=errors(401, 403, 404, 409, 429)
)
async def invite(tournament_id: TournamentId, body: InviteIn, db: SessionDep, user: CurrentUser) -> None:
    """The creator invites a player by name (who may then sign up without the link)."""
    await service.invite(db, tournament_id=tournament_id, user_id=user.id, name=body.name)


@router.post("/tournaments/{tournament_id}/start", status_code=204, responses=errors(401, 403, 404, 409))
async def start(tournament_id: TournamentId, db: SessionDep, user: CurrentUser) -> None:
    """The creator starts it before the sign-up deadline."""
    await service.start_now(db, tournament_id=tournament_id, user_id=user.id)


@router.post("/tournaments/{tournament_id}/withdraw", status_code=204, responses=errors(401, 404, 409))
async def withdraw(tournament_id: TournamentId, db: SessionDep, user: CurrentUser) -> None:
    """Resign the tournament: your running match of it is resigned, no further pairings."""
    await service.withdraw(db, tournament_id=tournament_id, user_id=user.id)
