"""The error answers of the JSON API, as they go into ``/api/openapi.json``.

Every error is ``{"detail": <reason in plain words>}`` (``app.web.errors`` builds them); a
refused request body adds ``errors`` (the fields at fault), a stale version adds the fresh
match (``StaleOut``). Routes declare the statuses they can answer with ``errors(...)``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from starlette.responses import Response

from app.services.schemas import MatchView


class ErrorOut(BaseModel):
    detail: str = Field(description="Why the request was refused, in plain words")


class FieldError(BaseModel):
    loc: list[str | int] = Field(description="Where the bad value is: body, path, query … and the field")
    msg: str
    type: str


class ValidationErrorOut(ErrorOut):
    errors: list[FieldError] = Field(
        default_factory=list, description="The fields at fault, when the request itself was malformed"
    )


class StaleOut(ErrorOut):
    """The decision was made against an older version: here is the fresh match."""

    current_version: int
    match: MatchView


RETRY_AFTER: dict[str, Any] = {
    "Retry-After": {
        "description": "Seconds to wait before retrying",
        "schema": {"type": "integer", "minimum": 0},
    }
}

_DESCRIBED: dict[int, tuple[str, type[BaseModel] | Any]] = {
    401: ("Not logged in, or the name and password do not match", ErrorOut),
    403: ("The CSRF token is missing or wrong, or this user may not do this", ErrorOut),
    404: ("No such match, user, game or step", ErrorOut),
    409: ("The match (or name) is not in a state that allows this", ErrorOut),
    422: ("Invalid input: the reason, and for a malformed request the fields at fault", ValidationErrorOut),
    429: ("Too many attempts: wait a little", ErrorOut),
    503: ("The database cannot be reached just now: retry after Retry-After seconds", ErrorOut),
}
STALE_OR_CONFLICT = StaleOut | ErrorOut


def errors(*statuses: int, takes_input: bool = True, stale: bool = False) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route: the given error statuses and 503, documented.

    ``takes_input``: the route has parameters or a body, so 422 too (FastAPI's own 422 schema
    does not describe our answer); ``stale``: a 409 may carry the fresh match (``StaleOut``).
    """
    always = {503, *((422,) if takes_input else ()), *((409,) if stale else ())}
    out: dict[int | str, dict[str, Any]] = {}
    for status in sorted({*statuses, *always}):
        description, model = _DESCRIBED[status]
        out[status] = {"model": model, "description": description}
    if stale:
        out[409] = {
            "model": STALE_OR_CONFLICT,
            "description": "Stale version (the fresh match is included), or the match does not allow this",
        }
    out[503]["headers"] = RETRY_AFTER
    return out


def json_answer(body: BaseModel, *, status_code: int = 200) -> Response:
    """``body`` serialised by pydantic-core straight to bytes.

    For the hot routes (views and decisions): the services build their models without
    validation (``model_construct``), and FastAPI's response handling would validate and
    encode them again; the route still declares ``response_model`` for the documentation.
    """
    return Response(body.model_dump_json(), status_code=status_code, media_type="application/json")
