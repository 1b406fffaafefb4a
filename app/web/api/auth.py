"""Accounts over JSON: register, log in, log out, and the CSRF token for API clients."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from app.services import accounts
from app.services.schemas import UserOut
from app.web.api.responses import errors
from app.web.deps import (
    CsrfChecked,
    Locale,
    OptionalUser,
    SessionDep,
    SettingsDep,
    client_address,
    current_csrf_token,
)
from app.web.pages.accounts import set_session_cookie
from app.web.security import SESSION_COOKIE, csrf_token, is_https

router = APIRouter(prefix="/auth", tags=["auth"], dependencies=[CsrfChecked])


class RegisterIn(BaseModel):
    name: str = Field(max_length=100)
    password: str = Field(max_length=1000)
    locale: str | None = Field(default=None, max_length=10)


class LoginIn(BaseModel):
    name: str = Field(max_length=100)
    password: str = Field(max_length=1000)


class SessionOut(BaseModel):
    user: UserOut
    csrf_token: str
    """The token for the new session: send it as X-CSRF-Token from now on."""


class CsrfOut(BaseModel):
    csrf_token: str
    user: UserOut | None


@router.get("/csrf", responses=errors(takes_input=False))
async def get_csrf(request: Request, user: OptionalUser) -> CsrfOut:
    """The CSRF token bound to this session (or, before login, to this visitor cookie)."""
    return CsrfOut(csrf_token=current_csrf_token(request), user=user)


@router.post("/register", status_code=201, responses=errors(403, 409, 429))
async def register(
    body: RegisterIn,
    request: Request,
    response: Response,
    db: SessionDep,
    settings: SettingsDep,
    locale: Locale,
) -> SessionOut:
    """Create an account and log it in."""
    client = client_address(request)
    await accounts.register(
        db,
        name=body.name,
        password=body.password,
        locale=body.locale or locale,
        client=client,
        registrations_per_hour=settings.registrations_per_hour,
    )
    user, token = await accounts.log_in(
        db,
        name=body.name,
        password=body.password,
        client=client,
        failed_logins_per_address=settings.failed_logins_per_address,
    )
    set_session_cookie(response, request, settings.base_url, token)
    return SessionOut(user=user, csrf_token=csrf_token(settings.secret_key, f"s:{token}"))


@router.post("/login", responses=errors(401, 403, 429))
async def login(
    body: LoginIn, request: Request, response: Response, db: SessionDep, settings: SettingsDep
) -> SessionOut:
    user, token = await accounts.log_in(
        db,
        name=body.name,
        password=body.password,
        client=client_address(request),
        failed_logins_per_address=settings.failed_logins_per_address,
    )
    set_session_cookie(response, request, settings.base_url, token)
    return SessionOut(user=user, csrf_token=csrf_token(settings.secret_key, f"s:{token}"))


@router.post("/logout", status_code=204, responses=errors(403, takes_input=False))
async def logout(request: Request, response: Response, db: SessionDep, settings: SettingsDep) -> None:
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        await accounts.log_out(db, token=token)
    response.delete_cookie(
        SESSION_COOKIE, path="/", secure=is_https(request, settings.base_url), httponly=True
    )
