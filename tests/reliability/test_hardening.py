"""Web hardening over real HTTP (issue 7, "Web hardening").

- CSRF: every state-changing route the app has (enumerated from the app, so a route added
  later is covered without touching this test) refuses a logged-in request without the token,
  and with another session's token;
- user text (chat, names echoed in errors, reflected input) is escaped on every page;
- a strict Content-Security-Policy and the usual security headers on every kind of response;
- cookies HttpOnly + SameSite, and Secure (with HSTS) behind an https proxy;
- no stack trace ever reaches a client, whatever the input.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute
from starlette.routing import Route

from app.config import Settings
from app.main import create_app
from tests.reliability.support import Actor, new_actor, read_match, start_match
from tests.support.client import PASSWORD, unique_name
from tests.support.server import Server

SAFE = {"GET", "HEAD", "OPTIONS"}
XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>"\'&'
ESCAPED_MARKERS = ("<script>alert", "<img src=x")
STRICT_CSP = {
    "default-src 'self'",
    "script-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
    "form-action 'self'",
}
TRACE_MARKERS = ("Traceback", 'File "/', "sqlalchemy.", "asyncpg.", "aiosqlite", ", line ")


def state_changing_routes() -> list[tuple[str, str]]:
    """Every (method, path) of the app that is not GET/HEAD/OPTIONS, included routers too."""
    app = create_app(Settings(secret_key="x" * 32, database_url="sqlite:///unused.db"))
    out = []
    for route in _walk(app.routes):
        methods = getattr(route, "methods", None) or set()
        out += [(method, route.path) for method in sorted(methods - SAFE)]
    return sorted(set(out))


def _walk(routes: Sequence[Any]) -> Iterator[Any]:
    """Routes with their full paths (FastAPI may keep included routers lazily, as contexts)."""
    for route in routes:
        contexts = getattr(route, "effective_route_contexts", None)
        if contexts is not None:
            for context in contexts():
                yield SimpleNamespace(
                    path=context.path, methods=getattr(context.original_route, "methods", None)
                )
        elif isinstance(route, APIRoute | Route):
            yield route


def _fill(path: str, match_id: int) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(match_id) if m.group(1).endswith("_id") else "x", path)


def test_the_route_list_covers_the_known_state_changes() -> None:
    routes = set(state_changing_routes())
    for expected in [
        ("POST", "/api/matches/{match_id}/moves"),
        ("POST", "/api/auth/login"),
        ("POST", "/matches/{match_id}/chat"),
        ("POST", "/logout"),
    ]:
        assert expected in routes


async def test_every_state_change_refuses_a_missing_or_foreign_csrf_token(
    actors: list[Actor], database_url: str
) -> None:
    owner, other = actors[0], actors[1]
    match_id = (await start_match(actors[:2], "toy"))["id"]
    version = (await read_match(database_url, match_id)).version
    attempts = [
        {"json": {"expected_version": 0, "request_id": "abcdefgh12"}},
        {"data": {"text": "x", "name": owner.name, "password": PASSWORD}},
        {"data": {"csrf_token": other.csrf, "text": "x"}},
        {"json": {}, "headers": {"X-CSRF-Token": other.csrf}},
    ]
    routes = state_changing_routes()
    unprotected = []
    for method, path in routes:
        url = f"{owner.base_url}{_fill(path, match_id)}"
        for kwargs in attempts:
            response = await owner.client.request(method, url, follow_redirects=False, **kwargs)
            if response.status_code != 403 or "CSRF" not in response.text:
                unprotected.append((method, path, response.status_code))
    assert unprotected == []
    assert len(routes) >= 15
    stored = await read_match(database_url, match_id)
    assert (stored.version, stored.log, stored.pending) == (version, [], []), "a refused request changed it"


async def test_user_text_is_escaped_on_every_page(actors: list[Actor]) -> None:
    alice, bob = actors[0], actors[1]
    match_id = (await start_match([alice, bob], "toy"))["id"]
    posted = await alice.client.post(
        f"{alice.base_url}/matches/{match_id}/chat", data={"text": XSS}, headers={"X-CSRF-Token": alice.csrf}
    )
    assert posted.status_code == 303
    fragment = await alice.client.post(
        f"{alice.base_url}/matches/{match_id}/chat",
        data={"text": XSS},
        headers={"X-CSRF-Token": alice.csrf, "HX-Request": "true"},
    )
    pages = [
        fragment,
        await bob.get(f"/matches/{match_id}"),
        await bob.get(f"/matches/{match_id}/chat"),
        await bob.get(f"/matches/{match_id}/chat", headers={"HX-Request": "true"}),
    ]
    # Reflected input: a name that cannot exist, echoed by the lobby's error message.
    pages.append(
        await alice.client.post(
            f"{alice.base_url}/matches",
            data={"game": "toy", "seats": "2", "invite": XSS},
            headers={"X-CSRF-Token": alice.csrf},
        )
    )
    pages.append(await alice.get("/login", params={"next": XSS}))
    pages.append(await alice.get("/matches/x" + "%3Cscript%3E"))
    for response in pages:
        assert response.headers["content-type"].startswith("text/html"), response.request.url
        for marker in ESCAPED_MARKERS:
            assert marker not in response.text, f"unescaped user text on {response.request.url}"
    assert "&lt;script&gt;alert(" in pages[1].text


async def _sse_headers(base_url: str, client: httpx.AsyncClient, match_id: int) -> httpx.Headers:
    async with client.stream("GET", f"{base_url}/api/live?match={match_id}") as response:
        return response.headers


async def test_strict_csp_and_security_headers_on_every_kind_of_response(actors: list[Actor]) -> None:
    alice = actors[0]
    match_id = (await start_match(actors[:2], "toy"))["id"]
    responses = {
        "page": await alice.get("/"),
        "match page": await alice.get(f"/matches/{match_id}"),
        "htmx fragment": await alice.get(f"/matches/{match_id}/area", headers={"HX-Request": "true"}),
        "redirect": await alice.client.get(f"{alice.base_url}/matches/next", follow_redirects=False),
        "json": await alice.get("/api/games"),
        "json 404": await alice.get("/api/matches/987654321"),
        "json 422": await alice.get("/api/matches/not-a-number"),
        "json 403": await alice.post("/api/matches", {}, headers={"X-CSRF-Token": "wrong"}),
        "html 404": await alice.get("/no/such/page"),
        "html 405": await alice.client.delete(f"{alice.base_url}/"),
        "htmx error": await alice.client.post(
            f"{alice.base_url}/matches/{match_id}/moves",
            data={"move": "play:0", "expected_version": "0", "request_id": "abcdefgh12"},
            headers={"X-CSRF-Token": alice.csrf, "HX-Request": "true"},
        ),
        "static": await alice.get("/static/css/app.css"),
        "openapi": await alice.get("/api/openapi.json"),
        "healthz": await alice.get("/healthz"),
    }
    sse = await _sse_headers(alice.base_url, alice.client, match_id)
    for kind, headers in [*((k, r.headers) for k, r in responses.items()), ("sse", sse)]:
        csp = {part.strip() for part in headers.get("content-security-policy", "").split(";")}
        assert csp >= STRICT_CSP, f"{kind}: CSP {csp}"
        assert not [p for p in csp if "unsafe" in p or "*" in p], f"{kind}: CSP {csp}"
        assert headers["x-content-type-options"] == "nosniff", kind
        assert headers["x-frame-options"] == "DENY", kind
        assert headers["referrer-policy"] in (
            "same-origin",
            "no-referrer",
            "strict-origin-when-cross-origin",
        ), kind
        assert "server" not in headers or "python" not in headers["server"].lower(), kind
    assert 400 <= responses["htmx error"].status_code < 500
    assert responses["html 404"].status_code == 404


async def test_cookies_are_httponly_samesite_and_secure_behind_an_https_proxy(rel_server: Server) -> None:
    # uvicorn trusts X-Forwarded-Proto from 127.0.0.1: this is what a TLS-terminating proxy sends.
    proxied = {"X-Forwarded-Proto": "https"}
    async with httpx.AsyncClient(base_url=rel_server.base_url, headers=proxied, timeout=30.0) as client:
        first = await client.get("/api/auth/csrf")
        # httpx keeps Secure cookies for https only; the proxy would pass them on: send by hand.
        visitor = first.headers["set-cookie"].split(";")[0]
        csrf = first.json()["csrf_token"]
        registered = await client.post(
            "/api/auth/register",
            json={"name": unique_name("c"), "password": PASSWORD},
            headers={"X-CSRF-Token": csrf, "Cookie": visitor},
        )
        assert registered.status_code == 201, registered.text
        assert first.headers["strict-transport-security"].startswith("max-age=")
        cookies = [*first.headers.get_list("set-cookie"), *registered.headers.get_list("set-cookie")]
    assert any(c.startswith("drachenhort_session=") for c in cookies)
    for cookie in cookies:
        attributes = {a.strip().lower() for a in cookie.split(";")[1:]}
        assert {"httponly", "secure"} <= attributes, cookie
        assert "samesite=lax" in attributes or "samesite=strict" in attributes, cookie


NASTY = [
    ("GET", "/api/matches/99999999999999999999999", None),
    ("GET", "/api/matches/-1", None),
    ("GET", "/api/matches/1/replay/99999999999999999999", None),
    ("GET", "/api/matches/1/replay/-5", None),
    ("GET", "/matches/99999999999999999999999", None),
    ("GET", "/matches/1/replay?step=99999999999999999999", None),
    ("POST", "/api/matches", {"game": "toy", "seats": 99999999999999999999}),
    ("POST", "/api/matches", {"game": "\u0000", "seats": 2, "options": {"short": [1, {"x": None}]}}),
    ("POST", "/api/matches", {"game": "toy", "seats": 2, "invite": ["\u0000", "x" * 5000]}),
    ("POST", "/api/matches/1/moves", {"move": "\u0000", "expected_version": 0, "request_id": "abcdefgh12"}),
    (
        "POST",
        "/api/matches/99999999999999999999/moves",
        {"move": "a", "expected_version": 0, "request_id": "x" * 8},
    ),
    ("POST", "/api/matches/1/moves", {"move": "a", "expected_version": 2**70, "request_id": "abcdefgh12"}),
    ("POST", "/api/auth/login", {"name": "\u0000" * 50, "password": "\u202e\ufeff"}),
    ("POST", "/api/auth/register", {"name": "a" * 100, "password": "x" * 1000, "locale": "\u0000"}),
]


CASES = [pytest.param(m, p, b, id=f"{m} {p[:45]}") for m, p, b in NASTY]


@pytest.mark.parametrize(("method", "path", "body"), CASES)
async def test_no_stack_trace_and_no_500_whatever_the_input(
    method: str, path: str, body: object, actors: list[Actor]
) -> None:
    alice = actors[0]
    headers = {"X-CSRF-Token": alice.csrf, "Content-Type": "application/json"}
    content = None if body is None else httpx.Request("POST", "/", json=body).content
    response = await alice.client.request(method, f"{alice.base_url}{path}", content=content, headers=headers)
    assert response.status_code < 500, (response.status_code, response.text[:300])
    for marker in TRACE_MARKERS:
        assert marker not in response.text, f"{marker!r} in {response.text[:300]}"


async def test_a_nul_character_in_chat_is_refused_or_kept_never_500(actors: list[Actor]) -> None:
    alice = actors[0]
    match_id = (await start_match(actors[:2], "toy"))["id"]
    response = await alice.client.post(
        f"{alice.base_url}/matches/{match_id}/chat",
        data={"text": "a\x00b"},
        headers={"X-CSRF-Token": alice.csrf},
    )
    assert response.status_code < 500, response.status_code
    assert "Traceback" not in response.text


async def test_a_malformed_body_gets_a_reason_not_a_trace(actors: list[Actor]) -> None:
    alice = actors[0]
    for content in (b"{", b"\xff\xfe", b"[]" * 10000, b'{"game": "toy", "seats": 2' + b" " * 100000):
        response = await alice.client.post(
            f"{alice.base_url}/api/matches",
            content=content,
            headers={"X-CSRF-Token": alice.csrf, "Content-Type": "application/json"},
        )
        too_large = len(content) > 64 * 1024  # refused before it is read (test_body_limits.py)
        assert response.status_code == (413 if too_large else 422), response.status_code
        assert "detail" in response.json()
        assert "Traceback" not in response.text


async def test_new_actor_helper_logs_in(rel_server: Server, database_url: str) -> None:
    """The helper the suite builds on: a session made in-process works on the server."""
    actor = await new_actor(rel_server.base_url, database_url)
    try:
        me = (await actor.get("/api/auth/csrf")).json()
        assert me["user"]["name"] == actor.name
    finally:
        await actor.aclose()
