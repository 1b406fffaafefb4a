"""The route class of the move path's decisions: declared by FastAPI, solved by hand.

FastAPI's general request handler (content negotiation, a dependency graph solved per
request, each parameter validated on its own) costs about 0.3 ms a request here, an eighth of
a whole turn (``bench/appcpu.py --confirm in-move``, medians of nine alternating runs: 2.36 →
2.06 ms of app CPU a turn). Move, undo and confirm are the requests a match makes by the
hundred, and they all take the same few things: the match id, one JSON body, the session, the
logged-in user and the locale, behind the CSRF check. So their routes are declared, documented
(OpenAPI) and refused (422) as usual, and only their handler is this one, which calls the very
same dependency functions in the same order. A route that asks for anything else is refused
when it is made, so the two cannot drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any, get_type_hints

from fastapi import HTTPException
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel, TypeAdapter, ValidationError
from starlette.requests import Request
from starlette.responses import Response

from app.web import deps

_SOLVED = {
    (deps.verify_csrf, None),
    (deps.get_session, "db"),
    (deps.get_current_user, "user"),
    (deps.get_locale, "locale"),
}
"""The dependencies this handler solves, each with the endpoint parameter it fills (or none)."""

_ID = TypeAdapter(int)


class DecisionRoute(APIRoute):
    """An ``APIRoute`` for ``(match_id: int, body: <model>, db, user, locale) -> Response``."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        endpoint = self.endpoint
        dependant = self.dependant
        solved = {(d.call, d.name) for d in dependant.dependencies}
        params = {p.name for p in (*dependant.path_params, *dependant.body_params)}
        if (
            solved != _SOLVED
            or params != {"match_id", "body"}
            or dependant.query_params
            or dependant.header_params
            or dependant.cookie_params
        ):
            raise TypeError(f"{endpoint.__name__}: a DecisionRoute takes match_id, body, db, user, locale")
        body_model = get_type_hints(endpoint)["body"]
        assert issubclass(body_model, BaseModel)

        async def handle(request: Request) -> Response:
            body, body_errors = await _json_body(request, body_model)  # undecodable: refused now
            await deps.verify_csrf(request)
            async with deps.open_session(request) as db:
                user = await deps.get_current_user(await deps.get_optional_user(request, db))
                locale = await deps.get_locale(request, user)
                match_id, path_errors = _path_id(request)
                if path_errors or body_errors:
                    raise RequestValidationError([*path_errors, *body_errors])
                response: Response = await endpoint(
                    match_id=match_id, body=body, db=db, user=user, locale=locale
                )
                return response

        return handle


Errors = list[dict[str, Any]]


def _path_id(request: Request) -> tuple[int | None, Errors]:
    try:
        return _ID.validate_python(request.path_params["match_id"]), []
    except ValidationError as exc:
        return None, _located("path", exc, "match_id")


async def _json_body(request: Request, model: type[BaseModel]) -> tuple[BaseModel | None, Errors]:
    """The body as ``model``, or why not, as FastAPI has it: a body that does not decode is
    refused at once (before the dependencies), any other fault is reported after them together
    with the path's; only a JSON content type is decoded."""
    raw = await request.body()
    if not raw:
        return None, [{"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}]
    try:
        if not _is_json(request.headers.get("content-type", "")):
            return model.model_validate(raw, from_attributes=True), []  # refused: not an object
        return model.model_validate_json(raw), []
    except ValidationError as exc:
        if exc.errors()[0]["type"] == "json_invalid":
            _refuse_undecodable(raw)
        return None, _located("body", exc)


def _refuse_undecodable(raw: bytes) -> None:
    """FastAPI's refusal of a body that does not decode: where the JSON breaks, or not text."""
    try:
        json.loads(raw)
    except json.JSONDecodeError as exc:
        error = {"type": "json_invalid", "loc": ("body", exc.pos), "msg": "JSON decode error", "input": {}}
        raise RequestValidationError([{**error, "ctx": {"error": exc.msg}}]) from None
    except ValueError as exc:  # not UTF-8: the error handlers answer it as malformed JSON
        raise HTTPException(status_code=400, detail="There was an error parsing the body") from exc


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def _located(where: str, exc: ValidationError, *name: str) -> Errors:
    return [{**e, "loc": (where, *name, *e["loc"])} for e in exc.errors(include_url=False)]
