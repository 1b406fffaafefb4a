"""What every page template gets: the user, the locale, the time zone, the CSRF token."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from starlette.responses import Response

from app.i18n.times import zone_names
from app.services.schemas import UserOut
from app.web.deps import current_csrf_token
from app.web.templating import TemplateResponse, render


def page_context_without_db(request: Request, context: dict[str, Any]) -> dict[str, Any]:
    """The shared context when no user lookup is possible (error pages)."""
    user = getattr(request.state, "user", None)
    locale = getattr(request.state, "locale", None) or context.get("page_locale") or "en"
    return {
        "request": request,
        "user": user,
        "page_locale": locale,
        "csrf_token": current_csrf_token(request),
        "path": request.url.path,
        **context,
    }


def page(
    request: Request,
    template: str,
    *,
    locale: str,
    user: UserOut | None,
    status_code: int = 200,
    **context: Any,
) -> TemplateResponse:
    """Render a full page or a partial with the shared context."""
    full = {
        "request": request,
        "user": user,
        "page_locale": locale,
        "time_zone": time_zone_of(request, user),
        "csrf_token": current_csrf_token(request),
        "path": request.url.path,
        **context,
    }
    return render(locale, template, full, status_code=status_code)


TIME_ZONE_COOKIE = "tz"
"""The browser's own zone, written by static/js/times.js (read only, never trusted as more)."""


def time_zone_of(request: Request, user: UserOut | None) -> str:
    """The zone chosen in the settings, else the browser's, else UTC."""
    chosen = user.time_zone if user else None
    browser = request.cookies.get(TIME_ZONE_COOKIE)
    for name in (chosen, browser):
        if name and name in zone_names():
            return name
    return "UTC"


def redirect(url: str, request: Request) -> Response:
    """See-other redirect; htmx follows ``HX-Redirect`` instead of swapping the target page."""
    if request.headers.get("hx-request") == "true":
        return Response(status_code=204, headers={"HX-Redirect": url})
    return Response(status_code=303, headers={"Location": url})


def public_url(request: Request, base_url: str) -> str:
    """The site's address for links a user passes on: ``base_url`` if set, else the one
    this request came to (behind a proxy, its Host and X-Forwarded-Proto)."""
    return base_url or str(request.base_url).rstrip("/")
