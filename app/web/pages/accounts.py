"""Register, log in, log out and the language switch."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from starlette.responses import Response

from app.i18n import normalise
from app.services import accounts
from app.services.errors import DomainError
from app.web.deps import CsrfChecked, Locale, OptionalUser, SessionDep, SettingsDep, client_address
from app.web.pages.common import page, redirect
from app.web.reasons import translate_reason
from app.web.redirects import safe_next
from app.web.security import LOCALE_COOKIE, SESSION_COOKIE, is_https

router = APIRouter(dependencies=[CsrfChecked], include_in_schema=False)

SESSION_MAX_AGE = 30 * 86400
LOCALE_MAX_AGE = 365 * 86400


@router.get("/login")
async def login_form(request: Request, user: OptionalUser, locale: Locale, next: str = "/") -> Response:
    return page(request, "accounts/login.html", locale=locale, user=user, next=safe_next(next), name="")


@router.post("/login")
async def login(
    request: Request,
    db: SessionDep,
    settings: SettingsDep,
    locale: Locale,
    name: Annotated[str, Form(max_length=100)],
    password: Annotated[str, Form(max_length=1000)],
    next: Annotated[str, Form()] = "/",
) -> Response:
    try:
        _user, token = await accounts.log_in(
            db,
            name=name,
            password=password,
            client=client_address(request),
            failed_logins_per_address=settings.failed_logins_per_address,
        )
    except DomainError as exc:
        return page(
            request,
            "accounts/login.html",
            locale=locale,
            user=None,
            status_code=exc.status,
            error=translate_reason(locale, exc.reason),
            next=safe_next(next),
            name=name,
        )
    response = redirect(safe_next(next), request)
    set_session_cookie(response, request, settings.base_url, token)
    return response


@router.get("/register")
async def register_form(request: Request, user: OptionalUser, locale: Locale, next: str = "/") -> Response:
    return page(request, "accounts/register.html", locale=locale, user=user, next=safe_next(next), name="")


@router.post("/register")
async def register(
    request: Request,
    db: SessionDep,
    settings: SettingsDep,
    locale: Locale,
    name: Annotated[str, Form(max_length=100)],
    password: Annotated[str, Form(max_length=1000)],
    next: Annotated[str, Form()] = "/",
) -> Response:
    try:
        client = client_address(request)
        await accounts.register(
            db,
            name=name,
            password=password,
            locale=locale,
            client=client,
            registrations_per_hour=settings.registrations_per_hour,
        )
        _user, token = await accounts.log_in(
            db,
            name=name,
            password=password,
            client=client,
            failed_logins_per_address=settings.failed_logins_per_address,
        )
    except DomainError as exc:
        return page(
            request,
            "accounts/register.html",
            locale=locale,
            user=None,
            status_code=exc.status,
            error=translate_reason(locale, exc.reason),
            next=safe_next(next),
            name=name,
        )
    response = redirect(safe_next(next), request)
    set_session_cookie(response, request, settings.base_url, token)
    return response


@router.post("/logout")
async def logout(request: Request, db: SessionDep, settings: SettingsDep) -> Response:
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        await accounts.log_out(db, token=token)
    response = redirect("/", request)
    response.delete_cookie(
        SESSION_COOKIE, path="/", secure=is_https(request, settings.base_url), httponly=True
    )
    return response


@router.post("/locale")
async def switch_locale(
    request: Request,
    db: SessionDep,
    settings: SettingsDep,
    user: OptionalUser,
    locale: Annotated[str, Form(max_length=10)],
    next: Annotated[str, Form()] = "/",
) -> Response:
    chosen = normalise(locale) or "en"
    if user is not None:
        await accounts.set_locale(db, user_id=user.id, locale=chosen)
    response = redirect(safe_next(next), request)
    response.set_cookie(
        LOCALE_COOKIE,
        chosen,
        max_age=LOCALE_MAX_AGE,
        path="/",
        httponly=True,
        samesite="lax",
        secure=is_https(request, settings.base_url),
    )
    return response


def set_session_cookie(response: Response, request: Request, base_url: str, token: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=SESSION_MAX_AGE,
        path="/",
        httponly=True,
        samesite="lax",
        secure=is_https(request, base_url),
    )
