"""Cookies, CSRF tokens and security headers.

CSRF: every state change carries a token that is an HMAC (with the secret key) of the
session cookie, or before login of a random visitor cookie. It arrives as the form field
``csrf_token`` or the header ``X-CSRF-Token`` (htmx sends it from ``hx-headers`` on
``<body>``). A cross-site page can neither read our cookies nor compute the HMAC.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SESSION_COOKIE = "drachenhort_session"
VISITOR_COOKIE = "drachenhort_visitor"
LOCALE_COOKIE = "drachenhort_locale"
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

_CSP = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
# FastAPI's Swagger page loads its bundle from a CDN and starts it with an inline script;
# only that one page gets a policy that allows it.
_DOCS_CSP = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net",
        "style-src 'self' https://cdn.jsdelivr.net",
        "img-src 'self' data: https://fastapi.tiangolo.com",
        "object-src 'none'",
        "frame-ancestors 'none'",
    )
)
DOCS_PATHS = frozenset({"/api/docs", "/api/docs/oauth2-redirect"})


def csrf_token(secret_key: str, binding: str) -> str:
    """The CSRF token for a session or visitor cookie value."""
    return hmac.new(secret_key.encode(), f"csrf|{binding}".encode(), hashlib.sha256).hexdigest()


def csrf_matches(secret_key: str, binding: str | None, given: str | None) -> bool:
    if not binding or not given:
        return False
    return hmac.compare_digest(csrf_token(secret_key, binding), given)


def csrf_binding(conn: HTTPConnection) -> str | None:
    """What the token is bound to: the session cookie, else the visitor cookie."""
    session = conn.cookies.get(SESSION_COOKIE)
    if session:
        return f"s:{session}"
    visitor: str | None = getattr(conn.state, "visitor", None) or conn.cookies.get(VISITOR_COOKIE)
    return f"v:{visitor}" if visitor else None


def is_https(conn: HTTPConnection, base_url: str) -> bool:
    # The scope's scheme, not ``conn.url``: building the whole URL cost 2 % of a move.
    return conn.scope.get("scheme") == "https" or base_url.startswith("https://")


class SecurityMiddleware:
    """Pure ASGI: gives every visitor a visitor cookie and every response the security headers."""

    def __init__(self, app: ASGIApp, *, base_url: str) -> None:
        self.app = app
        self.base_url = base_url

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        conn = HTTPConnection(scope)
        https = is_https(conn, self.base_url)
        new_visitor = None
        if not conn.cookies.get(VISITOR_COOKIE):
            new_visitor = secrets.token_urlsafe(24)
            scope.setdefault("state", {})["visitor"] = new_visitor
        docs = scope["path"] in DOCS_PATHS

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = _DOCS_CSP if docs else _CSP
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "same-origin"
                headers["X-Frame-Options"] = "DENY"
                headers["Cross-Origin-Opener-Policy"] = "same-origin"
                headers["Permissions-Policy"] = "camera=(), microphone=(), geolocation=()"
                if https:
                    headers["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains"
                if new_visitor is not None:
                    headers.append(
                        "Set-Cookie",
                        cookie_header(VISITOR_COOKIE, new_visitor, https=https, max_age=365 * 86400),
                    )
            await send(message)

        await self.app(scope, receive, send_with_headers)


def cookie_header(name: str, value: str, *, https: bool, max_age: int | None) -> str:
    parts = [f"{name}={value}", "Path=/", "HttpOnly", "SameSite=Lax"]
    if max_age is not None:
        parts.append(f"Max-Age={max_age}")
    if https:
        parts.append("Secure")
    return "; ".join(parts)
