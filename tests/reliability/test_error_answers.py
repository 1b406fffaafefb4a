"""Error answers over real HTTP (issue 7, "Faults" and "Bad input").

- the database out of reach (nothing listening; PostgreSQL stopped under a warm pool): every
  page, fragment and API call answers 503 with Retry-After and a reason, the server logs one
  line per request and no traceback, and it serves again by itself once the database is back;
- an unsupported method, OPTIONS included, answers 405 with an ``Allow`` header that lists
  every method the path has (across all its routes), never a 500.
"""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
from pathlib import Path

import httpx
import pytest

from app.config import Settings
from app.db.migrate import upgrade_to_head
from app.main import create_app
from app.web.security import SESSION_COOKIE, csrf_token
from tests.reliability.pgcluster import PrivateCluster, pg_bin_dir
from tests.reliability.support import Actor, new_actor, start_match
from tests.reliability.test_hardening import TRACE_MARKERS, _walk
from tests.support.db import uses_postgres
from tests.support.server import SECRET_KEY, Server, free_port

SERVER_TRACES = ("Traceback", "Exception in ASGI application", 'File "/')


def _assert_unavailable(response: httpx.Response, what: str) -> None:
    assert response.status_code == 503, (what, response.status_code, response.text[:300])
    assert response.headers["retry-after"].isdigit(), what
    if response.headers["content-type"].startswith("application/json"):
        assert "retry" in response.json()["detail"], what
    else:
        assert "database" in response.text or "Datenbank" in response.text, what
    for marker in TRACE_MARKERS:
        assert marker not in response.text, (what, marker)


def _assert_quiet_log(server: Server, requests: int) -> None:
    log = server.log()
    for marker in SERVER_TRACES:
        assert marker not in log, log[-3000:]
    outage_lines = [line for line in log.splitlines() if "database unavailable" in line]
    assert len(outage_lines) <= requests, "\n".join(outage_lines)


async def _outage_requests(client: httpx.AsyncClient, base_url: str, csrf: str) -> dict[str, httpx.Response]:
    """Pages, an htmx fragment and API calls that all need the database."""
    post = {"X-CSRF-Token": csrf}
    return {
        "lobby page": await client.get(f"{base_url}/"),
        "match page": await client.get(f"{base_url}/matches/1"),
        "htmx fragment": await client.get(f"{base_url}/matches/1/area", headers={"HX-Request": "true"}),
        "german page": await client.get(f"{base_url}/", headers={"Accept-Language": "de"}),
        "api match": await client.get(f"{base_url}/api/matches/1"),
        "api my matches": await client.get(f"{base_url}/api/me/matches"),
        "api badge": await client.get(f"{base_url}/api/me/badge"),
        "api notifications": await client.get(f"{base_url}/api/me/notifications"),
        "api ranking": await client.get(f"{base_url}/api/rankings/toy"),
        "api clock": await client.get(f"{base_url}/api/matches/1/clock"),
        "api create": await client.post(
            f"{base_url}/api/matches", json={"game": "toy", "seats": 2}, headers=post
        ),
        "api move": await client.post(
            f"{base_url}/api/matches/1/moves",
            json={"move": "play:0", "expected_version": 0, "request_id": "abcdefgh12"},
            headers=post,
        ),
    }


async def test_nothing_listening_on_the_database_port_answers_503(tmp_path: Path) -> None:
    """PostgreSQL not reachable at all (connection refused), from the start; any test database."""
    nowhere = f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/postgres"
    with Server(nowhere, tmp_path) as server:
        async with httpx.AsyncClient(timeout=30) as client:
            token = "a-session-token-the-database-would-know"
            client.cookies.set(SESSION_COOKIE, token)
            csrf = csrf_token(SECRET_KEY, f"s:{token}")
            answers = await _outage_requests(client, server.base_url, csrf)
        for what, response in answers.items():
            _assert_unavailable(response, what)
        assert "Datenbank" in answers["german page"].text
        _assert_quiet_log(server, len(answers))


@pytest.mark.postgres_only
@pytest.mark.skipif(not uses_postgres(), reason="stops a PostgreSQL server: set TEST_DATABASE_URL")
@pytest.mark.skipif(pg_bin_dir() is None, reason="needs the PostgreSQL server binaries (initdb, pg_ctl)")
async def test_postgres_stopped_under_a_warm_pool_answers_503_and_recovers(tmp_path: Path) -> None:
    """The pool holds live connections when PostgreSQL goes away: 503s, then service again."""
    with PrivateCluster() as cluster:
        await asyncio.to_thread(upgrade_to_head, cluster.url)
        with Server(cluster.url, tmp_path / "server") as server:
            actors = [await new_actor(server.base_url, cluster.url) for _ in range(2)]
            alice = actors[0]
            try:
                match_id = (await start_match(actors, "toy"))["id"]
                for _ in range(3):  # several pooled connections
                    await asyncio.gather(*(a.get(f"/api/matches/{match_id}") for a in actors))
                await asyncio.to_thread(cluster.pause)
                answers = await _outage_requests(alice.client, server.base_url, alice.csrf)
                for what, response in answers.items():
                    _assert_unavailable(response, what)
                await asyncio.to_thread(cluster.resume)
                back = await alice.get(f"/api/matches/{match_id}")
                for _ in range(20):  # the first request after the start may still meet a dead connection
                    if back.status_code == 200:
                        break
                    await asyncio.sleep(0.2)
                    back = await alice.get(f"/api/matches/{match_id}")
                assert back.status_code == 200, back.text
                assert (await alice.get("/")).status_code == 200
            finally:
                for actor in actors:
                    await actor.aclose()
            _assert_quiet_log(server, len(answers) + 21)


def _routes_by_path() -> dict[str, set[str]]:
    """Every routed path of the app (included routers too) with all the methods it has."""
    app = create_app(Settings(secret_key="x" * 32, database_url="sqlite:///unused.db"))
    methods: dict[str, set[str]] = defaultdict(set)
    for route in _walk(app.routes):
        if getattr(route, "methods", None):
            methods[route.path] |= set(route.methods)
    return methods


def _concrete(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "1", path)


def _expected_allow(concrete: str, routes: dict[str, set[str]]) -> set[str]:
    """The methods of every route whose template matches ``concrete``."""
    allowed: set[str] = set()
    for template, methods in routes.items():
        pattern = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, concrete):
            allowed |= methods
    return allowed


async def test_options_and_unsupported_methods_answer_405_with_every_allowed_method(
    actors: list[Actor],
) -> None:
    alice = actors[0]
    routes = _routes_by_path()
    assert {"GET", "POST"} <= routes["/api/matches/{match_id}/messages"]
    assert {"GET", "PUT"} <= routes["/api/matches/{match_id}/clock"]
    wrong = []
    for template in sorted(routes):
        concrete = _concrete(template)
        expected = _expected_allow(concrete, routes)
        for method in sorted({"OPTIONS", "PATCH", "DELETE", "PUT", "POST"} - expected):
            response = await alice.client.request(
                method, alice.url(concrete), headers={"X-CSRF-Token": alice.csrf}, follow_redirects=False
            )
            allow = {m.strip() for m in response.headers.get("allow", "").split(",") if m.strip()}
            if response.status_code != 405 or allow != expected:
                wrong.append((method, concrete, response.status_code, sorted(allow), sorted(expected)))
            for marker in TRACE_MARKERS:
                assert marker not in response.text, (method, concrete, marker)
    assert wrong == []


async def test_options_on_static_files_and_unknown_paths(actors: list[Actor]) -> None:
    alice = actors[0]
    static = await alice.client.options(alice.url("/static/css/app.css"))
    assert static.status_code == 405
    assert {m.strip() for m in static.headers["allow"].split(",")} == {"GET", "HEAD"}
    unknown = await alice.client.options(alice.url("/api/no/such/thing"))
    assert unknown.status_code == 404
    assert unknown.json()["detail"]
    page = await alice.client.options(alice.url("/"))
    assert page.status_code == 405 and page.headers["allow"] == "GET"
    assert page.headers["content-type"].startswith("text/html")
