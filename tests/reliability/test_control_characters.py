"""Control characters in any text a client sends never answer 5xx nor reach a log raw (issue 19.9).

PostgreSQL refuses NUL in text (``CharacterNotInRepertoireError``) and UTF-8 has no lone
surrogates, so every such text must be checked before it reaches the database. The sweep
takes every route of the app, pages too, and sends NUL and other control characters in each
of its text parameters (path, query, form field, JSON field, list item, object key) in turn,
the others valid; a route with a text parameter the sweep cannot fill fails the test.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any, get_args, get_origin
from urllib.parse import quote

from fastapi.routing import APIRoute
from pydantic import BaseModel

from app.config import Settings
from app.log_records import EscapedLogRecord
from app.main import create_app
from tests.reliability.support import Actor, start_match
from tests.support.server import Server

BAD_TEXTS = ("a\x00b", "\x00", "\x1b[2J\n", "\x7f\x85", "\ud800")
"""NUL (PostgreSQL refuses it), a terminal escape with a line feed, DEL and a C1 control, and a
lone surrogate (JSON only: UTF-8 cannot carry one in an address or a form)."""
CONTROL_BYTES = {chr(c) for c in (*range(0x20), 0x7F)} - {"\n"}

JSON_BODIES: dict[str, dict[str, Any]] = {
    "MoveIn": {"expected_version": 1, "request_id": "req-control-1", "move": "play 1"},
    "TurnIn": {"expected_version": 1, "request_id": "req-control-2"},
    "RegisterIn": {"name": "someone", "password": "a long enough password", "locale": "en"},
    "LoginIn": {"name": "someone", "password": "a long enough password"},
    "CreateMatchIn": {"game": "toy", "seats": 2, "options": {"x": "y"}, "invite": ["nobody-here"]},
    "JoinIn": {"invite_token": "token"},
    "MessageIn": {"text": "hello"},
    "CreateTournamentIn": {
        "name": "Cup",
        "game": "toy",
        "options": {"x": "y"},
        "table_size": 2,
        "format": "swiss",
        "rounds": 3,
        "places": 8,
    },
    "SignupIn": {"invite_token": "token"},
    "InviteIn": {"name": "someone"},
}
"""A valid body of each JSON model with text in it (the sweep puts the bad text in each in turn)."""
FORM_FIELDS = {
    "name": "someone",
    "next": "/",
    "locale": "en",
    "email": "a@b.org",
    "days": "3",
    "move": "play 1",
    "request_id": "req-control-3",
    "log_after": "0",
}
"""Form fields with a value of their own (any other text field gets ``x``, a number ``1``);
``expected_version`` is the match's, so a decision's text is read, not refused as late."""
PATH_TEXTS = {
    "name": "",
    "other": "",
    "game": "toy",
    "slug": "toy",
    "token": "x",
    "action": "disable",
    "answer": "accept",
}
"""The valid value of each text path parameter (``name``: the acting user's)."""
MANUAL_FORMS = {
    ("POST", "/matches"): ("game", "seats", "days", "policy"),
    ("GET", "/invite-names"): ("name", "invite"),
}
"""Routes that read their form or query themselves, with the fields they read."""


def _routes() -> Iterator[tuple[str, str, APIRoute]]:
    app = create_app(Settings(secret_key="x" * 32, database_url="sqlite:///unused.db"))
    for route in app.routes:
        contexts = getattr(route, "effective_route_contexts", None)
        pairs = (
            [(c.path, c.original_route) for c in contexts()]
            if contexts
            else [(getattr(route, "path", ""), route)]
        )
        for path, original in pairs:
            if isinstance(original, APIRoute):
                for method in sorted(original.methods - {"HEAD"}):
                    yield method, path, original


def _params(route: APIRoute) -> dict[str, list[tuple[str, Any]]]:
    found: dict[str, list[tuple[str, Any]]] = {"path": [], "query": [], "form": [], "json": []}
    pending = [route.dependant]
    while pending:
        dependant = pending.pop()
        pending += dependant.dependencies
        found["path"] += [(p.name, p.field_info.annotation) for p in dependant.path_params]
        found["query"] += [(p.name, p.field_info.annotation) for p in dependant.query_params]
        for p in dependant.body_params:
            kind = "form" if type(p.field_info).__name__ == "Form" else "json"
            found[kind].append((p.name, p.field_info.annotation))
    return found


def _is_text(annotation: Any) -> bool:
    return annotation is str or str in get_args(annotation)


def _json_variants(body: dict[str, Any], bad: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """``body`` with ``bad`` in one text place at a time: a value, a list item, an object's key or value."""
    for key, value in body.items():
        if isinstance(value, str):
            yield key, {**body, key: bad}
        elif isinstance(value, list):
            yield f"{key}[]", {**body, key: [bad]}
        elif isinstance(value, dict):
            yield f"{key}{{key}}", {**body, key: {bad: "y"}}
            yield f"{key}{{value}}", {**body, key: {"x": bad}}


class Sweep:
    def __init__(self, actor: Actor, match_id: int) -> None:
        self.actor = actor
        self.match_id = match_id
        self.faults: list[str] = []
        self.sent = 0

    def fill(self, path: str, bad_param: str | None = None, bad: str = "") -> str:
        values = {
            "match_id": str(self.match_id),
            "user_id": str(self.actor.id),
            "step": "1",
            "tournament_id": "1",
        }
        values |= {**PATH_TEXTS, "name": self.actor.name, "other": self.actor.name}
        for name in values:
            text = bad if name == bad_param else values[name]
            path = path.replace("{" + name + "}", quote(text, safe=""))
        assert "{" not in path, f"the sweep cannot fill {path}"
        return path

    async def send(self, method: str, url: str, label: str, **kwargs: Any) -> None:
        response = await self.actor.client.request(
            method,
            self.actor.url(url),
            headers={"X-CSRF-Token": self.actor.csrf, **kwargs.pop("headers", {})},
            **kwargs,
        )
        self.sent += 1
        if response.status_code >= 500 or "Traceback" in response.text:
            self.faults.append(f"{method} {url} {label}: {response.status_code} {response.text[:200]}")


async def test_no_text_parameter_of_any_route_answers_5xx_with_control_characters(
    actors: list[Actor], rel_server: Server
) -> None:
    alice = actors[0]
    view = await start_match(actors[:2], "toy")
    sweep = Sweep(alice, view["id"])
    version = {"expected_version": view["version"]}
    covered = 0
    for method, template, route in _routes():
        params = _params(route)
        manual = MANUAL_FORMS.get((method, template), ())
        texts = [n for kind in ("path", "query", "form") for n, a in params[kind] if _is_text(a)]
        if not texts and not params["json"] and not manual:
            continue
        covered += 1
        plain = sweep.fill(template)
        form = {n: FORM_FIELDS.get(n, "x" if _is_text(a) else "1") for n, a in params["form"]}
        form |= {n: "2" for n in manual} | ({"expected_version": str(view["version"])} if form else {})
        for bad in BAD_TEXTS:
            in_address = "\ud800" not in bad
            for name, annotation in params["path"]:
                if _is_text(annotation) and in_address:
                    await sweep.send(method, sweep.fill(template, name, bad), f"path {name}")
            query_names = [n for n, a in params["query"] if _is_text(a)]
            if method == "GET":
                query_names += list(manual)
            for name in query_names:
                if in_address:
                    await sweep.send(method, plain, f"query {name}", params={name: bad})
            form_names = [n for n, a in params["form"] if _is_text(a)] + (
                list(manual) if method == "POST" else []
            )
            for name in form_names:
                if in_address:
                    await sweep.send(method, plain, f"form {name}", data={**form, name: bad})
            for _, annotation in params["json"]:
                # An optional body (``SignupIn | None``) is its model.
                model = next(a for a in (*get_args(annotation), annotation) if isinstance(a, type))
                assert issubclass(model, BaseModel)
                if not any(
                    _is_text(f.annotation) or get_origin(f.annotation) in (list, dict)
                    for f in model.model_fields.values()
                ):
                    continue
                assert model.__name__ in JSON_BODIES, f"the sweep has no valid {model.__name__} body"
                valid = JSON_BODIES[model.__name__]
                valid = valid | version if "expected_version" in valid else valid
                for place, body in _json_variants(valid, bad):
                    content = json.dumps(body).encode()  # ASCII: a lone surrogate as an escape
                    headers = {"Content-Type": "application/json"}
                    await sweep.send(method, plain, f"json {place}", content=content, headers=headers)
    assert covered >= 40 and sweep.sent > 250, (covered, sweep.sent)
    assert not sweep.faults, "\n".join(sweep.faults)
    log = rel_server.log()
    raw = sorted({repr(c) for c in log if c in CONTROL_BYTES})
    assert not raw, f"raw control characters in the server log: {raw}"


def test_log_lines_escape_control_characters() -> None:
    """Whatever a message or an exception carries, a formatted record has one line per line of
    its traceback and no raw control character (``app.log_records``, installed by the app)."""
    try:
        raise ValueError("bad name 'a\x00b\x1b[2J'")
    except ValueError as error:
        record = EscapedLogRecord(
            "x",
            logging.ERROR,
            __file__,
            1,
            "user %s\nFAKE LINE",
            ("a\x00b",),
            (
                type(error),
                error,
                error.__traceback__,
            ),
        )
    text = logging.Formatter("%(levelname)s %(message)s").format(record)
    lines = text.split("\n")
    assert lines[0] == "ERROR user a\\x00b\\x0aFAKE LINE"
    assert (lines[1], lines[-1]) == (
        "Traceback (most recent call last):",
        "ValueError: bad name 'a\\x00b\\x1b[2J'",
    )
    assert not {c for c in text if c in CONTROL_BYTES}
