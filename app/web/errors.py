"""One place that turns errors into responses: JSON under /api, a message in the page otherwise.

Domain errors carry their HTTP status and a reason; nothing ever answers with a traceback.
A database that cannot be reached answers 503 with Retry-After (and logs one line, no traceback);
a 405 lists in ``Allow`` every method the path has, across all routes on it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import asyncpg  # type: ignore[import-untyped]
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Match, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.services._db import is_outage
from app.services.errors import DomainError, RateLimited, Unavailable
from app.web.deps import LoginRequired, locale_for
from app.web.reasons import translate_reason
from app.web.redirects import with_next
from app.web.templating import render, render_string

log = logging.getLogger(__name__)
RETRY_AFTER_SECONDS = "5"
OUTAGE_REASON = "the database is not reachable: please retry"
SERVER_ERROR_REASON = "something went wrong on the server"
_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
# What asyncpg raises on its own (outside SQLAlchemy) while PostgreSQL is down or restarting.
_DRIVER_OUTAGES: tuple[type[BaseException], ...] = (
    asyncpg.PostgresConnectionError,
    asyncpg.OperatorInterventionError,
    asyncpg.TooManyConnectionsError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
)


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
    """Register the exception handlers on ``app``, and the guard for whatever escapes them."""

    async def domain_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, DomainError)
        if (
            isinstance(exc, LoginRequired)
            and request.method == "GET"
            and not (is_api(request) or is_htmx(request))
        ):
            target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            return RedirectResponse(with_next("/login", target), status_code=303)
        if isinstance(exc, Unavailable):  # the service has logged it already
            return _outage_response(request)
        headers = {"Retry-After": RETRY_AFTER_SECONDS} if exc.status == 503 else None
        if isinstance(exc, RateLimited) and exc.retry_after is not None:
            headers = {"Retry-After": str(exc.retry_after)}
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
        if exc.status_code == 400 and isinstance(exc.__cause__, ValueError):
            # FastAPI could not decode the body (not UTF-8 …): refused like malformed JSON.
            reason = f"body: the request body is not valid JSON ({type(exc.__cause__).__name__})"
            errors = [{"loc": ["body"], "msg": "the body could not be decoded", "type": "json_invalid"}]
            return error_response(request, 422, reason, errors=errors)
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            # Starlette names only the methods of the first route on the path; list them all.
            allowed = allowed_methods(request.app, request.scope)
            if allowed:
                headers["Allow"] = ", ".join(allowed)
        return error_response(request, exc.status_code, str(exc.detail), headers or None)

    async def unexpected(request: Request, exc: Exception) -> Response:
        # Last resort for errors outside the guard (Starlette re-raises after this, so the
        # server logs the traceback once).
        if is_unavailable(exc):
            return database_down(request, exc)
        log.error("unhandled error on %s %s: %s", request.method, request.url.path, type(exc).__name__)
        return error_response(request, 500, SERVER_ERROR_REASON)

    app.add_exception_handler(DomainError, domain_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(Exception, unexpected)
    app.add_middleware(ErrorGuard)


def database_down(request: Request, exc: BaseException) -> Response:
    """503 with Retry-After, and one line in the log (no traceback: it is not a bug here)."""
    log.warning(
        "database unavailable on %s %s: %s", request.method, request.url.path, _one_line(_root_cause(exc))
    )
    return _outage_response(request)


def _outage_response(request: Request) -> Response:
    return error_response(request, 503, OUTAGE_REASON, {"Retry-After": RETRY_AFTER_SECONDS})


class ErrorGuard:
    """Pure ASGI, inside the security headers: what no handler took becomes an answer here.

    A database outage becomes 503 with Retry-After and one warning line; a client that left
    while sending its request gets nothing; anything else a 500 with the traceback logged
    once. Nothing is re-raised (Starlette's handler for ``Exception`` re-raises, so the server
    would log a traceback per request). When the answer has already gone out (a clean-up after
    the response failed) an outage is only logged.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except ClientDisconnect:
            # The client went away before its request had arrived (a proxy restarted, a phone
            # lost its signal): nothing was done and nobody is left to answer.
            return
        except Exception as exc:
            request = Request(scope)
            if is_unavailable(exc):
                response = database_down(request, exc)
            elif started:
                raise
            else:
                log.exception("unhandled error on %s %s", request.method, request.url.path)
                response = error_response(request, 500, SERVER_ERROR_REASON)
            if not started:
                await response(scope, receive, send)


def is_unavailable(exc: BaseException) -> bool:
    """True when ``exc`` (or what caused it) means the database cannot be reached just now."""
    if isinstance(exc, BaseExceptionGroup):
        return bool(exc.exceptions) and all(is_unavailable(e) for e in exc.exceptions)
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, (PoolTimeout, *_DRIVER_OUTAGES)) or is_outage(current):
            return True
        seen.add(id(current))
        current = current.__cause__
    return False


def allowed_methods(app: ASGIApp, scope: Scope) -> list[str]:
    """Every method some route answers on this path (for ``Allow``), in a stable order."""
    router = getattr(app, "router", None)
    allowed = set()
    for method in _METHODS:
        probe: Scope = {
            "type": "http",
            "method": method,
            "path": scope["path"],
            "root_path": scope.get("root_path", ""),
            "headers": [],
            "query_string": b"",
        }
        for route in getattr(router, "routes", ()):
            if isinstance(route, Mount):
                if route.matches(probe)[0] != Match.NONE:
                    allowed |= {"GET", "HEAD"}  # static files: read only
                    break
                continue
            if route.matches(probe)[0] == Match.FULL:
                allowed.add(method)
                break
    return [m for m in _METHODS if m in allowed]


def _root_cause(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        return exc.orig
    return exc.__cause__ or exc


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:200]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _locale(request: Request) -> str:
    known = getattr(request.state, "locale", None)
    if isinstance(known, str):
        return known
    # A route that needs no Locale of its own (a form post) still answers in the language of
    # the user it has looked up.
    return locale_for(request, getattr(request.state, "user", None))


def _page_context(request: Request, context: dict[str, Any]) -> dict[str, Any]:
    from app.web.pages.common import page_context_without_db

    return page_context_without_db(request, context)
