"""Profiles, rankings, notifications, a user's settings and the forgotten-password pages."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Query, Request
from starlette.responses import Response

from app.i18n import LOCALES
from app.i18n.times import zone_names
from app.services import accounts, admin, friends, notify, profiles, ratings, stats
from app.services.errors import InvalidInput
from app.services.play_schemas import SettingsOut
from app.services.schemas import UserOut
from app.web.deps import CsrfChecked, CurrentUser, Locale, OptionalUser, SessionDep, SettingsDep
from app.web.pages.accounts import set_session_cookie
from app.web.pages.common import page, redirect, time_zone_of
from app.web.pages.matches import game_title_in
from app.web.templating import render

router = APIRouter(dependencies=[CsrfChecked], include_in_schema=False)


@router.get("/users/{name}")
async def profile_page(
    request: Request,
    db: SessionDep,
    user: OptionalUser,
    locale: Locale,
    name: str,
    game: str = "",
    opponent: str = "",
    running_page: Annotated[int, Query(ge=1, le=profiles.MAX_PAGE)] = 1,
    finished_page: Annotated[int, Query(ge=1, le=profiles.MAX_PAGE)] = 1,
) -> Response:
    profile = await profiles.get_profile(
        db,
        name=name,
        viewer_id=user.id if user else None,
        game=game or None,
        opponent=opponent or None,
        locale=locale,
        running_page=running_page,
        finished_page=finished_page,
    )
    histories = {
        r.game: await ratings.history(db, user_id=profile.user_id, game=r.game) for r in profile.ratings
    }
    player = await stats.player_stats(db, name=profile.name, locale=locale)
    relation = None
    if user is not None and user.id != profile.user_id and not player.bot:
        relation = (await friends.relation(db, user_id=user.id, name=profile.name)).relation
    return page(
        request,
        "play/profile.html",
        locale=locale,
        user=user,
        profile=profile,
        histories=histories,
        stats=player,
        relation=relation,
        game=game,
        opponent=opponent,
    )


@router.get("/rankings/{game}")
async def ranking_page(
    request: Request, db: SessionDep, user: OptionalUser, locale: Locale, game: str
) -> Response:
    rows = await ratings.ranking(db, game=game, locale=locale)
    # The game's title in the viewer's language, never its slug (also when nobody is rated yet).
    title = game_title_in(game, locale)
    return page(
        request, "play/ranking.html", locale=locale, user=user, game=game, game_title=title, rows=rows
    )


@router.get("/notifications")
async def notifications_page(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    locale: Locale,
    page_number: Annotated[int, Query(alias="page", ge=1, le=notify.MAX_PAGE)] = 1,
) -> Response:
    lines = await notify.list_notifications(db, user_id=user.id, locale=locale, page=page_number)
    return page(request, "play/notifications.html", locale=locale, user=user, lines=lines)


@router.post("/notifications/read")
async def mark_read(request: Request, db: SessionDep, user: CurrentUser) -> Response:
    await notify.mark_read(db, user_id=user.id)
    return redirect("/notifications", request)


@router.get("/me/unread")
async def unread_badge(db: SessionDep, user: CurrentUser, locale: Locale) -> Response:
    """The unread-notification count for the header (fetched again on every SSE nudge)."""
    badge = await notify.badge(db, user_id=user.id)
    return render(locale, "play/_unread.html", {"badge": badge})


@router.get("/settings")
async def settings_page(
    request: Request, db: SessionDep, settings: SettingsDep, user: CurrentUser, locale: Locale
) -> Response:
    mine = await admin.get_settings(db, settings, user_id=user.id)
    changed = request.query_params.get("password") == "changed"
    return _settings_page(request, user, locale, mine, password_changed=changed)


@router.post("/settings")
async def save_settings(
    request: Request,
    db: SessionDep,
    settings: SettingsDep,
    user: CurrentUser,
    locale: Locale,
    email: Annotated[str, Form(max_length=300)] = "",
    mail_opt_out: Annotated[str, Form(max_length=8)] = "",
    auto_confirm: Annotated[str, Form(max_length=8)] = "",
    time_zone: Annotated[str, Form(max_length=64)] = "",
    language: Annotated[str, Form(max_length=10)] = "",
) -> Response:
    mine = await admin.update_settings(
        db,
        settings,
        user_id=user.id,
        email=email,
        mail_opt_out=mail_opt_out in ("1", "on", "true"),
        auto_confirm=auto_confirm in ("1", "on", "true"),
        time_zone=time_zone,
    )
    if language and language != user.locale:
        user = await accounts.set_locale(db, user_id=user.id, locale=language)
        locale = user.locale
    user = user.model_copy(update={"time_zone": mine.time_zone, "auto_confirm": mine.auto_confirm})
    return _settings_page(request, user, locale, mine, saved=True)


@router.post("/settings/password")
async def change_password(
    request: Request,
    db: SessionDep,
    settings: SettingsDep,
    user: CurrentUser,
    current: Annotated[str, Form(max_length=1000)],
    new: Annotated[str, Form(max_length=1000)],
    repeated: Annotated[str, Form(max_length=1000)],
) -> Response:
    """A new password for who knows the current one: every other session ends, this browser
    gets a fresh one."""
    if new != repeated:
        raise InvalidInput("the new password and its repetition differ")
    token = await admin.change_password(db, user_id=user.id, current=current, new=new)
    # A redirect: the page's forms need the CSRF token of the new session.
    response = redirect("/settings?password=changed", request)
    set_session_cookie(response, request, settings.base_url, token)
    return response


def _settings_page(
    request: Request,
    user: UserOut,
    locale: str,
    mine: SettingsOut,
    *,
    saved: bool = False,
    password_changed: bool = False,
) -> Response:
    return page(
        request,
        "play/settings.html",
        locale=locale,
        user=user,
        mine=mine,
        saved=saved,
        password_changed=password_changed,
        zones=zone_names(),
        languages=LOCALES,
        browser_zone=time_zone_of(request, None),
    )


@router.get("/password/forgot")
async def forgot_page(
    request: Request, settings: SettingsDep, user: OptionalUser, locale: Locale
) -> Response:
    return page(
        request,
        "play/forgot.html",
        locale=locale,
        user=user,
        sent=False,
        mail_available=settings.smtp_enabled,
    )


@router.post("/password/forgot")
async def forgot(
    request: Request,
    db: SessionDep,
    settings: SettingsDep,
    user: OptionalUser,
    locale: Locale,
    name: Annotated[str, Form(max_length=60)],
) -> Response:
    await admin.request_password_reset(db, settings, name=name)
    return page(request, "play/forgot.html", locale=locale, user=user, sent=True, mail_available=True)


@router.get("/password/reset/{token}")
async def reset_page(request: Request, user: OptionalUser, locale: Locale, token: str) -> Response:
    return page(request, "play/reset.html", locale=locale, user=user, token=token)


@router.post("/password/reset/{token}")
async def reset(
    request: Request,
    db: SessionDep,
    token: str,
    password: Annotated[str, Form(max_length=300)],
) -> Response:
    await admin.reset_password_with_token(db, token=token, password=password)
    return redirect("/login", request)
