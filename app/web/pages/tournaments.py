"""Tournament pages: the list (signing up, running, finished), one tournament, the create form."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Form, Query, Request
from starlette.responses import Response

from app.engine.registry import all_games
from app.services.errors import Forbidden, InvalidInput
from app.services.tournaments import bracket, service
from app.web.deps import CsrfChecked, CurrentUser, Locale, OptionalUser, SessionDep
from app.web.pages.common import page, redirect, time_zone_of

router = APIRouter(dependencies=[CsrfChecked], include_in_schema=False)


@router.get("/tournaments")
async def list_page(
    request: Request,
    db: SessionDep,
    user: OptionalUser,
    locale: Locale,
    status: str = "signup",
    page_no: Annotated[int, Query(alias="page", ge=1, le=service.MAX_PAGE)] = 1,
) -> Response:
    if status not in service.LIST_STATES:
        raise InvalidInput(f"a list is one of {', '.join(service.LIST_STATES)}")
    listed = await service.list_tournaments(
        db, viewer_id=user.id if user else None, status=status, page=page_no, locale=locale
    )
    return page(
        request,
        "tournaments/list.html",
        locale=locale,
        user=user,
        listed=listed,
        status=status,
        may_create=await service.may_create(db, user_id=user.id if user else None),
        admins_only=await service.admins_only(db) if user and user.is_admin else None,
    )


@router.post("/tournaments/policy")
async def set_policy(
    request: Request, db: SessionDep, user: CurrentUser, creators: Annotated[str, Form(max_length=8)]
) -> Response:
    """The administrator's setting, from the list page: ``anyone`` or ``admins``."""
    if creators not in ("anyone", "admins"):
        raise InvalidInput("tournaments are created by anyone or by administrators")
    await service.set_admins_only(db, admin_id=user.id, admins_only=creators == "admins")
    return redirect("/tournaments", request)


@router.get("/tournaments/new")
async def new_page(request: Request, db: SessionDep, user: CurrentUser, locale: Locale) -> Response:
    if not await service.may_create(db, user_id=user.id):
        raise Forbidden(service.ADMINS_ONLY)
    games = [g for g in all_games() if g.info.max_players >= 2]
    return page(request, "tournaments/new.html", locale=locale, user=user, games=games)


@router.post("/tournaments/new")
async def create(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    name: Annotated[str, Form(max_length=80)],
    game: Annotated[str, Form(max_length=40)],
    format: Annotated[str, Form(max_length=16)],
    table_size: Annotated[int, Form(ge=2, le=10)] = 2,
    places: Annotated[int, Form(ge=2, le=service.MAX_PLACES)] = 8,
    rounds: Annotated[int | None, Form(ge=1, le=service.MAX_ROUNDS)] = None,
    advance: Annotated[int, Form(ge=1, le=9)] = 1,
    group_size: Annotated[int | None, Form(ge=2, le=64)] = None,
    final_per_group: Annotated[int | None, Form(ge=1, le=service.MAX_FINAL_PER_GROUP)] = None,
    days_per_move: Annotated[int, Form(ge=1, le=14)] = 3,
    timeout_action: Annotated[str, Form(max_length=16)] = "forfeit",
    signup_until: Annotated[str, Form(max_length=20)] = "",
    public: Annotated[str, Form(max_length=4)] = "",
) -> Response:
    deadline = None
    if signup_until:
        try:
            local = datetime.fromisoformat(signup_until)
        except ValueError:
            raise InvalidInput("the sign-up deadline is a date and time") from None
        deadline = local.replace(tzinfo=ZoneInfo(time_zone_of(request, user))).astimezone(UTC)
    tournament_id = await service.create_tournament(
        db,
        creator_id=user.id,
        name=name,
        game=game,
        options={},
        table_size=table_size,
        format=format,
        rounds=rounds,
        places=places,
        advance=advance,
        group_size=group_size,
        final_per_group=final_per_group,
        signup_until=deadline,
        start_when_full=deadline is None,
        days_per_move=days_per_move,
        timeout_action=timeout_action,
        public=bool(public),
    )
    return redirect(f"/tournaments/{tournament_id}", request)


@router.get("/tournaments/{tournament_id}")
async def tournament_page(
    request: Request,
    db: SessionDep,
    user: OptionalUser,
    locale: Locale,
    tournament_id: int,
    invite: Annotated[str | None, Query(max_length=200)] = None,
) -> Response:
    t = await service.get_tournament(
        db, tournament_id=tournament_id, viewer_id=user.id if user else None, locale=locale
    )
    drawn = None
    if t.format == "knockout":
        drawn = bracket.layout(t.rounds, t.advance)
    elif t.final_per_group:  # the round robin's final stage is a bracket (its winners go on)
        drawn = bracket.layout(t.rounds[t.group_rounds :], 1)
    return page(
        request,
        "tournaments/one.html",
        locale=locale,
        user=user,
        t=t,
        bracket=drawn,
        box_width=bracket.BOX_W,
        line_height=bracket.LINE_H,
        invite=invite,
    )


@router.post("/tournaments/{tournament_id}/signup")
async def sign_up(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    tournament_id: int,
    invite: Annotated[str | None, Form(max_length=200)] = None,
) -> Response:
    await service.sign_up(db, tournament_id=tournament_id, user_id=user.id, invite_token=invite or None)
    return redirect(f"/tournaments/{tournament_id}", request)


@router.post("/tournaments/{tournament_id}/leave")
async def leave(request: Request, db: SessionDep, user: CurrentUser, tournament_id: int) -> Response:
    await service.leave(db, tournament_id=tournament_id, user_id=user.id)
    return redirect(f"/tournaments/{tournament_id}", request)


@router.post("/tournaments/{tournament_id}/remove")
async def remove(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    tournament_id: int,
    name: Annotated[str, Form(min_length=1, max_length=40)],
) -> Response:
    """The creator removes a sign-up before the start."""
    await service.leave(db, tournament_id=tournament_id, user_id=user.id, name=name)
    return redirect(f"/tournaments/{tournament_id}", request)


@router.post("/tournaments/{tournament_id}/invite")
async def invite(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    tournament_id: int,
    name: Annotated[str, Form(min_length=1, max_length=40)],
) -> Response:
    """The creator invites a player by name."""
    await service.invite(db, tournament_id=tournament_id, user_id=user.id, name=name)
    return redirect(f"/tournaments/{tournament_id}", request)


@router.post("/tournaments/{tournament_id}/start")
async def start(request: Request, db: SessionDep, user: CurrentUser, tournament_id: int) -> Response:
    await service.start_now(db, tournament_id=tournament_id, user_id=user.id)
    return redirect(f"/tournaments/{tournament_id}", request)


@router.post("/tournaments/{tournament_id}/withdraw")
async def withdraw(request: Request, db: SessionDep, user: CurrentUser, tournament_id: int) -> Response:
    await service.withdraw(db, tournament_id=tournament_id, user_id=user.id)
    return redirect(f"/tournaments/{tournament_id}", request)
