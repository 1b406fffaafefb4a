"""One place that turns errors into responses: JSON under /api, a message in the page otherwise.

Domain errors carry their HTTP status and a reason; nothing ever answers with a traceback.
A database that cannot be reached answers 503 with Retry-After.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, RedirectResponse, Response

from app.i18n import negotiate, normalise
from app.services.errors import DomainError
from app.web.deps import LoginRequired
from app.web.reasons import translate_reason
from app.web.security import LOCALE_COOKIE
from app.web.templating import render, render_string

log = logging.getLogger(__name__)
RETRY_AFTER_SECONDS = "5"


def is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/") or request.url.path.startswith("/sse/")


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


def error_response(
    request: Request, status: int, reason: str, headers: Mapping[str, str] | None = None, **extra: Any
) -> Response:
    """The answer for an error: JSON for the API, a fragment for htmx, a page otherwise."""
    if is_api(request):
        return JSONResponse({"detail": reason, **extra}, status_code=status, headers=headers)
    locale = _locale(request)
    reason = translate_reason(locale, reason)
    if is_htmx(request):
        html = render_string(locale, "_flash.html", {"message": reason, "kind": "error"})
        all_headers = {"HX-Retarget": "#flash", "HX-Reswap": "innerHTML", **(headers or {})}
        return Response(html, status_code=status, headers=all_headers, media_type="text/html")
    context = {"request": request, "status": status, "reason": reason, "page_locale": locale}
    return render(locale, "error.html", _page_context(request, context), status_code=status, headers=headers)


def install(app: FastAPI) -> None:
    """Register the exception handlers on ``app``."""

    async def domain_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, DomainError)
        if (
            isinstance(exc, LoginRequired)
            and request.method == "GET"
            and not (is_api(request) or is_htmx(request))
        ):
            return RedirectResponse(f"/login?next={request.url.path}", status_code=303)
        headers = {"Retry-After": RETRY_AFTER_SECONDS} if exc.status == 503 else None
        return error_response(request, exc.status, exc.reason, headers)

    async def validation_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        errors = [
            {"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
            for e in exc.errors()
        ]
        reason = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors) or "invalid input"
        return error_response(request, 422, reason, errors=errors)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return error_response(request, exc.status_code, str(exc.detail), exc.headers)

    async def database_down(request: Request, exc: Exception) -> Response:
        log.warning("database unavailable: %s", type(exc).__name__)
        return error_response(
            request, 503, "the database is not reachable: please retry", {"Retry-After": RETRY_AFTER_SECONDS}
        )

    async def unexpected(request: Request, exc: Exception) -> Response:
        if _is_connection_error(exc):
            return await database_down(request, exc)
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(request, 500, "something went wrong on the server")

    app.add_exception_handler(DomainError, domain_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(OperationalError, database_down)
    app.add_exception_handler(PoolTimeout, database_down)
    app.add_exception_handler(ConnectionError, database_down)
    app.add_exception_handler(Exception, unexpected)


def _is_connection_error(exc: BaseException) -> bool:
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    return isinstance(exc, (ConnectionError, OSError)) or type(exc).__module__.startswith("asyncpg")


def _locale(request: Request) -> str:
    known = getattr(request.state, "locale", None)
    if isinstance(known, str):
        return known
    return normalise(request.cookies.get(LOCALE_COOKIE)) or negotiate(request.headers.get("accept-language"))


def _page_context(request: Request, context: dict[str, Any]) -> dict[str, Any]:
    from app.web.pages.common import page_context_without_db

    return page_context_without_db(request, context)
