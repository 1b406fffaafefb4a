"""The administrator's page: abort matches, disable accounts, reset passwords."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.services import admin
from app.services.errors import NotFound
from app.web.deps import CsrfChecked, CurrentUser, Locale, SessionDep
from app.web.pages.common import page, redirect

router = APIRouter(prefix="/admin", dependencies=[CsrfChecked], include_in_schema=False)


@router.get("")
async def admin_page(request: Request, db: SessionDep, user: CurrentUser, locale: Locale) -> Response:
    users = await admin.list_users(db, admin_id=user.id)
    matches = await admin.running_matches(db, admin_id=user.id)
    return page(
        request, "play/admin.html", locale=locale, user=user, users=users, matches=matches, password=None
    )


@router.post("/matches/{match_id}/abort")
async def abort_match(request: Request, db: SessionDep, user: CurrentUser, match_id: int) -> Response:
    await admin.abort_match(db, admin_id=user.id, match_id=match_id)
    return redirect("/admin", request)


@router.post("/users/{user_id}/{action}")
async def user_action(
    request: Request, db: SessionDep, user: CurrentUser, locale: Locale, user_id: int, action: str
) -> Response:
    """``disable``, ``enable`` or ``reset-password`` (the new password is shown once)."""
    if action == "reset-password":
        password = await admin.reset_password(db, admin_id=user.id, user_id=user_id)
        users = await admin.list_users(db, admin_id=user.id)
        matches = await admin.running_matches(db, admin_id=user.id)
        return page(
            request,
            "play/admin.html",
            locale=locale,
            user=user,
            users=users,
            matches=matches,
            password=password,
        )
    if action not in ("disable", "enable"):
        raise NotFound("unknown action")
    await admin.set_disabled(db, admin_id=user.id, user_id=user_id, disabled=action == "disable")
    return redirect("/admin", request)
