"""Move, undo and confirm refuse bad requests exactly as FastAPI's own handler did.

Their handler is ``DecisionRoute``'s, not FastAPI's (the move path's cost): every refusal
here (order of checks, status, the fields named) was FastAPI's answer before, over real HTTP,
and the match stays as it was.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

import httpx
import pytest
from fastapi import APIRouter, Form, Request
from starlette.responses import Response

from app.web.decision_route import DecisionRoute, TurnIn
from app.web.deps import CsrfChecked, CurrentUser, Locale, SessionDep
from tests.support.client import csrf_for, request_id
from tests.web.conftest import ToyMatch, first_play

ROUTES = ("moves", "undo", "confirm")


def _refusal(response: httpx.Response) -> tuple[int, list[tuple[list[Any], str]]]:
    body = response.json()
    assert body["detail"], body
    assert "Traceback" not in response.text
    return response.status_code, [(e["loc"], e["type"]) for e in body.get("errors", [])]


@pytest.mark.parametrize("route", ROUTES)
async def test_bad_requests_get_the_same_refusals_and_leave_the_match_intact(
    toy_match: ToyMatch, route: str
) -> None:
    m = toy_match
    url = f"/api/matches/{m.id}/{route}"
    good: dict[str, Any] = {"expected_version": m.version, "request_id": request_id()}
    if route == "moves":
        good["move"] = first_play(m.view)
    json_header = {"Content-Type": "application/json"}

    # A body that is not JSON at all is refused first, then who asks (no CSRF token, then no
    # login with a visitor's valid token), then what is asked.
    broken = {"content": b"{", "headers": json_header}
    assert _refusal(await m.mover.client.post(url, **broken)) == (422, [(["body", 1], "json_invalid")])
    assert _refusal(await m.mover.client.post(url, json={"expected_version": -1})) == (403, [])
    assert _refusal(await m.mover.client.post(url, json=good)) == (403, [])
    async with httpx.AsyncClient(base_url=str(m.mover.client.base_url)) as visitor:
        token = await csrf_for(visitor)
        assert _refusal(await visitor.post(url, json=good, headers={"X-CSRF-Token": token})) == (401, [])

    # Then what is asked.
    assert _refusal(await m.mover.post(url, content=b'{"expected_version": ', headers=json_header)) == (
        422,
        [(["body", 21], "json_invalid")],
    )
    assert _refusal(await m.mover.post(url, content=b"", headers=json_header)) == (
        422,
        [(["body"], "missing")],
    )
    status, errors = _refusal(await m.mover.post(url, content=b"\xff\xfe", headers=json_header))
    assert status == 422 and errors[0][0][0] == "body"
    as_text = {"Content-Type": "text/plain"}
    assert _refusal(
        await m.mover.post(url, content=httpx.Response(200, json=good).content, headers=as_text)
    ) == (
        422,
        [(["body"], "model_attributes_type")],
    )
    wrong = {"expected_version": -1, "request_id": "?", "log_after": "x"}
    if route == "moves":
        wrong["move"] = 5
    expected = [
        (["body", "expected_version"], "greater_than_equal"),
        (["body", "request_id"], "string_too_short"),
        (["body", "log_after"], "int_parsing"),
    ]
    if route == "moves":
        expected.append((["body", "move"], "string_type"))
    assert _refusal(await m.mover.post(url, wrong)) == (422, expected)
    assert _refusal(await m.mover.post(f"/api/matches/x{m.id}/{route}", good)) == (
        422,
        [(["path", "match_id"], "int_parsing")],
    )
    both = await m.mover.post(f"/api/matches/x{m.id}/{route}", {**good, "expected_version": -1})
    assert _refusal(both) == (
        422,
        [(["path", "match_id"], "int_parsing"), (["body", "expected_version"], "greater_than_equal")],
    )
    assert _refusal(await m.mover.post(f"/api/matches/987654/{route}", good)) == (404, [])

    # Nothing changed: the view is the one from before, and the good request still works.
    assert (await m.mover.get(f"/api/matches/{m.id}")).json()["version"] == m.version
    answer = await m.mover.post(url, good)
    assert answer.status_code == (422 if route == "undo" else 200), answer.text  # nothing to undo yet


def _flash(response: httpx.Response) -> tuple[int, str]:
    """A page's refusal: its status and the reason the flash shows."""
    assert response.headers.get("HX-Retarget") == "#flash", response.text
    assert "Traceback" not in response.text
    return response.status_code, " ".join(re.sub(r"<[^>]+>", " ", response.text).split())


@pytest.mark.parametrize("route", ROUTES)
async def test_page_decisions_refuse_bad_forms_as_fastapi_did(toy_match: ToyMatch, route: str) -> None:
    """The same for the pages' form POSTs (what a click sends): who asks first, then what is
    asked, every bad field named; an empty field is an absent one."""
    m = toy_match
    url = f"/matches/{m.id}/{route}"
    htmx = {"HX-Request": "true"}
    good = {"expected_version": str(m.version), "request_id": request_id()}
    if route == "moves":
        good["move"] = first_play(m.view)

    status, reason = _flash(await m.mover.client.post(url, data=good, headers=htmx))
    assert status == 403 and "CSRF" in reason
    async with httpx.AsyncClient(base_url=str(m.mover.client.base_url)) as visitor:
        token = await csrf_for(visitor)
        refused = await visitor.post(url, data={**good, "csrf_token": token}, headers=htmx)
        assert _flash(refused)[0] == 401

    wrong = {"expected_version": "-1", "request_id": "?", "log_after": "x", "move": ""}
    status, reason = _flash(await m.mover.post(url, data=wrong, headers=htmx))
    named = {"body.expected_version", "body.request_id", "body.log_after"}
    if route == "moves":
        named.add("body.move: Field required")
    assert status == 422 and {n for n in named if n in reason} == named
    status, reason = _flash(await m.mover.post(f"/matches/x{m.id}/{route}", data=good, headers=htmx))
    assert status == 422 and reason.startswith("path.match_id")
    assert _flash(await m.mover.post(f"/matches/987654/{route}", data=good, headers=htmx))[0] == 404

    assert (await m.mover.get(f"/api/matches/{m.id}")).json()["version"] == m.version
    answer = await m.mover.post(url, data={**good, "log_after": ""}, headers=htmx)
    assert answer.status_code == (422 if route == "undo" else 200), answer.text
    if route == "undo":
        assert "log_after" not in _flash(answer)[1]


def test_a_decision_route_refuses_a_parameter_its_handler_would_not_fill() -> None:
    """The hand-solved handler fills exactly what FastAPI would: anything more fails at once."""
    decisions = APIRouter(dependencies=[CsrfChecked], route_class=DecisionRoute)

    async def with_query(
        match_id: int, body: TurnIn, db: SessionDep, user: CurrentUser, locale: Locale, page: int = 0
    ) -> Response:
        raise AssertionError

    async def without_csrf(
        match_id: int, body: TurnIn, db: SessionDep, user: CurrentUser, locale: Locale
    ) -> Response:
        raise AssertionError

    async def renamed(
        match_id: int, body: TurnIn, session: SessionDep, user: CurrentUser, locale: Locale
    ) -> Response:
        raise AssertionError

    async def with_response(
        request: Request,
        match_id: int,
        body: Annotated[TurnIn, Form()],
        db: SessionDep,
        user: CurrentUser,
        locale: Locale,
        response: Response,
    ) -> Response:
        raise AssertionError

    with pytest.raises(TypeError, match="DecisionRoute takes"):
        decisions.post("/matches/{match_id}/x")(with_query)
    with pytest.raises(TypeError, match="DecisionRoute takes"):
        decisions.post("/matches/{match_id}/w")(with_response)
    with pytest.raises(TypeError, match="DecisionRoute takes"):
        decisions.post("/matches/{match_id}/z")(renamed)
    with pytest.raises(TypeError, match="DecisionRoute takes"):
        APIRouter(route_class=DecisionRoute).post("/matches/{match_id}/y")(without_csrf)
