"""The move path's decisions (move, undo, confirm): their common fields, and the route class
that answers them, declared by FastAPI and solved by hand.

FastAPI's general request handler (content negotiation, a dependency graph solved per
request, each parameter validated on its own) costs about 0.3 ms a request here, an eighth of
a whole turn (``bench/appcpu.py --confirm in-move``, medians of nine alternating runs: 2.36 →
2.06 ms of app CPU a turn). Move, undo and confirm are the requests a match makes by the
hundred, over JSON (the API) and as forms (a click on a page), and they all take the same few
things: the match id, one body, the session, the logged-in user and the locale (and the
request, for a page), behind the CSRF check. So their routes are declared, documented
(OpenAPI) and refused (422) as usual, and only their handler is this one, which calls the very
same dependency functions in the same order. A route that asks for anything else is refused
when it is made, so the two cannot drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any, get_type_hints

from fastapi import HTTPException, params
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field, TypeAdapter, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
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
_UNFILLED = (
    "websocket_param_name",
    "http_connection_param_name",
    "response_param_name",
    "background_tasks_param_name",
    "security_scopes_param_name",
)
"""What FastAPI could pass an endpoint and this handler never does."""

REQUEST_ID = Field(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")

LOG_AFTER = Field(
    default=None,
    ge=0,
    le=2**31 - 1,
    description="The newest log seq the client has: the answer's log holds only newer lines",
)


class TurnIn(BaseModel):
    """What every decision sends: the version it was decided on, its request id (a retry
    with the same id is answered, not applied twice), and the log the client has."""

    expected_version: int = Field(ge=0)
    request_id: str = REQUEST_ID
    log_after: int | None = LOG_AFTER


class MoveBody(TurnIn):
    """What a move sends: the move beside what every decision sends (a page's form as it is;
    the API's ``MoveIn`` adds its confirm)."""

    move: str = Field(min_length=1, max_length=200)


class DecisionRoute(APIRoute):
    """An ``APIRoute`` for ``(match_id: int, body: <model>, db, user, locale[, request]) ->
    Response``; the body is JSON, or a form when declared ``Annotated[<model>, Form()]``."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        endpoint = self.endpoint
        dependant = self.dependant
        solved = {(d.call, d.name) for d in dependant.dependencies}
        declared = {p.name for p in (*dependant.path_params, *dependant.body_params)}
        if (
            solved != _SOLVED
            or declared != {"match_id", "body"}
            or dependant.query_params
            or dependant.header_params
            or dependant.cookie_params
            or dependant.request_param_name not in (None, "request")
            or any(getattr(dependant, name) is not None for name in _UNFILLED)
        ):
            raise TypeError(
                f"{endpoint.__name__}: a DecisionRoute takes match_id, body, db, user, locale (and request)"
            )
        body_model = get_type_hints(endpoint)["body"]
        assert issubclass(body_model, BaseModel)
        read_body = _form_body if isinstance(dependant.body_params[0].field_info, params.Form) else _json_body
        passes_request = dependant.request_param_name is not None

        async def handle(request: Request) -> Response:
            body, body_errors = await read_body(request, body_model)  # undecodable: refused now
            await deps.verify_csrf(request)
            async with deps.open_session(request) as db:
                user = await deps.get_current_user(await deps.get_optional_user(request, db))
                locale = await deps.get_locale(request, user)
                match_id, path_errors = _path_id(request)
                if path_errors or body_errors:
                    raise RequestValidationError([*path_errors, *body_errors])
                given = {"request": request} if passes_request else {}
                response: Response = await endpoint(
                    match_id=match_id, body=body, db=db, user=user, locale=locale, **given
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


async def _form_body(request: Request, model: type[BaseModel]) -> tuple[BaseModel | None, Errors]:
    """The form as ``model``, or why not, as FastAPI has a form model: an empty field is an
    absent one (its default, or "missing"), and a form that does not parse is refused now."""
    try:
        form = await request.form()
    except StarletteHTTPException:
        raise  # the body limits' 408 and 413, Starlette's refusal of too many fields
    except Exception as exc:
        raise HTTPException(status_code=400, detail="There was an error parsing the body") from exc
    try:
        return model.model_validate({name: value for name, value in form.items() if value != ""}), []
    except ValidationError as exc:
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
