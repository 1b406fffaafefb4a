"""The administrator's page: abort matches, disable accounts, reset passwords."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from app.i18n import translations
from app.services import admin
from app.services._rows import game_title
from app.services.errors import NotFound
from app.services.schemas import UserOut
from app.web.deps import CsrfChecked, CurrentUser, Locale, SessionDep
from app.web.pages.common import page, redirect
from app.web.pages.confirm import CONFIRMED, Confirmed, Question, ask

router = APIRouter(prefix="/admin", dependencies=[CsrfChecked], include_in_schema=False)


@router.get("")
async def admin_page(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    locale: Locale,
    name: Annotated[str, Query(max_length=40)] = "",
) -> Response:
    """The accounts (the first page by name, or those whose name starts with ``name``)."""
    return await _admin_page(request, db, user, locale, name=name)


@router.get("/matches/{match_id}/abort")
async def abort_question(
    request: Request, db: SessionDep, user: CurrentUser, locale: Locale, match_id: int
) -> Response:
    return ask(request, locale, user, await _abort_question(db, user, locale, match_id))


@router.post("/matches/{match_id}/abort")
async def abort_match(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    locale: Locale,
    match_id: int,
    confirmed: Confirmed = "",
) -> Response:
    if confirmed != CONFIRMED:
        return ask(request, locale, user, await _abort_question(db, user, locale, match_id))
    await admin.abort_match(db, admin_id=user.id, match_id=match_id)
    return redirect("/admin", request)


async def _abort_question(db: SessionDep, user: UserOut, locale: str, match_id: int) -> Question:
    m = await admin.check_abort(db, admin_id=user.id, match_id=match_id)
    tr = translations(locale)
    players = ", ".join(s.name for s in m.seats if s.name)
    return Question(
        title=tr.gettext("Abort %(game)s #%(id)s?") % {"game": game_title(m.game, locale), "id": m.id},
        consequences=[
            tr.gettext("The match ends without a result and is not rated."),
            tr.gettext("Its players (%(names)s) are told that it was aborted.") % {"names": players},
            tr.gettext("This cannot be undone."),
        ],
        action=f"/admin/matches/{m.id}/abort",
        button=tr.gettext("Yes, abort the match"),
        back="/admin",
    )


@router.post("/users/{user_id}/{action}")
async def user_action(
    request: Request, db: SessionDep, user: CurrentUser, locale: Locale, user_id: int, action: str
) -> Response:
    """``disable``, ``enable`` or ``reset-password`` (the new password is shown once)."""
    if action == "reset-password":
        password = await admin.reset_password(db, admin_id=user.id, user_id=user_id)
        return await _admin_page(request, db, user, locale, password=password)
    if action not in ("disable", "enable"):
        raise NotFound("unknown action")
    await admin.set_disabled(db, admin_id=user.id, user_id=user_id, disabled=action == "disable")
    return redirect("/admin", request)


async def _admin_page(
    request: Request,
    db: SessionDep,
    user: UserOut,
    locale: str,
    *,
    name: str = "",
    password: str | None = None,
) -> Response:
    """The page itself; ``password`` is a just reset one, shown once."""
    users = await admin.list_users(db, admin_id=user.id, starting=name)
    matches = await admin.running_matches(db, admin_id=user.id)
    return page(
        request,
        "play/admin.html",
        locale=locale,
        user=user,
        users=users,
        matches=matches,
        password=password,
        name=name,
    )
