"""Security over real HTTP: CSRF on every state change, headers on every response, cookies."""

from __future__ import annotations

import httpx
import pytest
from fastapi.routing import APIRoute

from app.config import Settings
from app.main import create_app
from app.web.deps import verify_csrf
from tests.support.client import PASSWORD, csrf_for, unique_name
from tests.support.server import Server
from tests.web.conftest import MakeApiUser


async def test_api_post_without_csrf_token_is_403(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        await client.get("/api/auth/csrf")
        response = await client.post("/api/auth/register", json={"name": unique_name(), "password": PASSWORD})
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]


async def test_api_post_with_a_token_of_another_visitor_is_403(server: Server) -> None:
    async with (
        httpx.AsyncClient(base_url=server.base_url) as mallory,
        httpx.AsyncClient(base_url=server.base_url) as victim,
    ):
        token = await csrf_for(mallory)
        await victim.get("/api/auth/csrf")
        response = await victim.post(
            "/api/auth/register",
            json={"name": unique_name(), "password": PASSWORD},
            headers={"X-CSRF-Token": token},
        )
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]


async def test_form_post_without_csrf_field_is_403_with_reason(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        await client.get("/login")
        response = await client.post("/login", data={"name": "someone", "password": PASSWORD})
    assert response.status_code == 403
    assert "CSRF" in response.text
    assert "Traceback" not in response.text


async def test_logged_in_token_from_before_login_no_longer_works(api_user: MakeApiUser) -> None:
    alice = await api_user()
    stale = alice.csrf
    alice.csrf = "0" * 64
    assert (await alice.post("/api/matches", {"game": "toy", "seats": 2})).status_code == 403
    alice.csrf = stale
    assert (await alice.post("/api/matches", {"game": "toy", "seats": 2})).status_code == 201


def test_every_state_changing_route_checks_csrf() -> None:
    from app.web import sse
    from app.web.api import auth, games, matches
    from app.web.pages import accounts, lobby
    from app.web.pages import matches as match_pages

    unchecked = []
    for router in (
        auth.router,
        games.router,
        matches.router,
        accounts.router,
        lobby.router,
        match_pages.router,
        sse.router,
    ):
        router_deps = {d.dependency for d in router.dependencies}
        for route in router.routes:
            if isinstance(route, APIRoute) and route.methods - {"GET", "HEAD", "OPTIONS"}:
                deps = router_deps | {d.dependency for d in route.dependencies}
                if verify_csrf not in deps:
                    unchecked.append(route.path)
    assert unchecked == []


@pytest.mark.parametrize("path", ["/", "/login", "/api/games", "/api/matches/999999", "/static/css/app.css"])
async def test_security_headers_on_every_response(server: Server, path: str) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        response = await client.get(path)
    csp = response.headers["content-security-policy"]
    assert "default-src 'self'" in csp
    assert "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["referrer-policy"] == "same-origin"
    assert "strict-transport-security" not in response.headers  # plain http here


async def test_hsts_and_secure_cookies_behind_https() -> None:
    app = create_app(
        Settings(secret_key="x" * 32, base_url="https://games.example", database_url="sqlite:///u.db")
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://games.example") as client:
        response = await client.get("/healthz")
    assert response.headers["strict-transport-security"].startswith("max-age=")
    visitor = response.headers["set-cookie"]
    assert "Secure" in visitor and "HttpOnly" in visitor and "SameSite=Lax" in visitor


async def test_session_cookie_is_httponly_and_lax(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        token = await csrf_for(client)
        response = await client.post(
            "/api/auth/register",
            json={"name": unique_name(), "password": PASSWORD},
            headers={"X-CSRF-Token": token},
        )
    assert response.status_code == 201
    cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith("drachenhort_session="))
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie.replace("Lax", "lax")
    assert "Secure" not in cookie  # http://127.0.0.1 is not https


async def test_pages_carry_no_inline_script_or_style(server: Server, api_user: MakeApiUser) -> None:
    alice = await api_user()
    response = await alice.get("/")
    assert response.status_code == 200
    html = response.text
    assert "<script>" not in html and "<style" not in html and " style=" not in html
    assert 'src="/static/vendor/htmx/htmx.min.js"' in html


async def test_vendored_htmx_is_served_with_its_licence(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        for path in (
            "/static/vendor/htmx/htmx.min.js",
            "/static/vendor/htmx/LICENSE",
            "/static/js/board.js",
            "/static/js/live.js",
            "/static/js/live-worker.js",
        ):
            assert (await client.get(path)).status_code == 200, path


async def test_database_down_is_503_with_retry_after() -> None:
    from app.db.session import dispose, make_engine, make_sessionmaker

    settings = Settings(secret_key="x" * 32, database_url="postgresql://postgres@127.0.0.1:9/nowhere")
    app = create_app(settings)
    engine = make_engine(settings.database_url)
    app.state.engine, app.state.sessionmaker = engine, make_sessionmaker(engine)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            client.cookies.set("drachenhort_session", "some-token")
            api = await client.get("/api/me/matches")
            page = await client.get("/", headers={"Accept-Language": "de"})
    finally:
        await dispose(engine)
    assert api.status_code == 503 and api.headers["retry-after"]
    assert "retry" in api.json()["detail"]
    assert page.status_code == 503 and "Traceback" not in page.text
