"""No NUL in a request's address reaches a route or the database; no control character names a page.

PostgreSQL cannot store a NUL in text, and no value of this server needs one: a query string
holding one is refused (422) before any route runs, whatever the route does with it. No page,
user or game has a control character (NUL, line feed, escape) in its name either, so a path
holding one names nothing (404). Other control characters in a query are the route's to judge
(a ``next`` target with a line break is simply not followed); the log escapes them all
(``app.log_records``).
"""

from __future__ import annotations

from urllib.parse import unquote_to_bytes

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.services._rows import has_control_characters
from app.web.errors import error_response

NOT_FOUND_REASON = "Not Found"
"""What the router answers for any other path that names nothing."""
QUERY_REASON = "the address contains control characters"


class AddressGuard:
    """Pure ASGI: refuses a path with control characters, and a query string with a NUL."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            if has_control_characters(scope["path"]):
                await error_response(Request(scope), 404, NOT_FOUND_REASON)(scope, receive, send)
                return
            query: bytes = scope.get("query_string", b"")
            if b"\x00" in unquote_to_bytes(query):
                await error_response(Request(scope), 422, QUERY_REASON)(scope, receive, send)
                return
        await self.app(scope, receive, send)
