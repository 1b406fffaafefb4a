"""Every redirect to a user-supplied target, over real HTTP (issue 11.1).

Only a path on this site is followed (after decoding: one leading ``/``, then no ``/`` or
``\\``, no control character or white space, no scheme); anything else goes to ``/``, and
no target makes the server fail (a line break in a header used to drop the connection).
"""

from __future__ import annotations

import re

import httpx
import pytest

from tests.support.client import PASSWORD, csrf_for, unique_name
from tests.support.server import Server
from tests.web.conftest import MakeApiUser

HOSTILE = [
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\nSet-Cookie: x=1",
    "/%09/evil.example",
    "/%0A/evil.example",
    "/%0d%0aSet-Cookie:%20x=1",
    "//evil.example",
    "/%2F/evil.example",
    "/\\evil.example",
    "/%5Cevil.example",
    "https://evil.example/",
    "javascript:alert(1)",
    "/\u3000/evil.example",
    "/\u202e/evil.example",
    "evil.example",
]
FOLLOWED = [
    ("/matches/3", "/matches/3"),
    ("/matches?order=recent", "/matches?order=recent"),
    ("/users/Jörg", "/users/J%C3%B6rg"),
]
CASES = [(target, "/") for target in HOSTILE] + FOLLOWED


def _csrf_in(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([0-9a-f]+)"', html)
    assert found, "no CSRF field in the page"
    return found.group(1)


@pytest.mark.parametrize("htmx", [False, True], ids=["form", "htmx"])
async def test_the_language_switch_follows_only_local_paths(server: Server, htmx: bool) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        csrf = await csrf_for(client)
        headers = {"HX-Request": "true"} if htmx else {}
        for target, expected in CASES:
            answer = await client.post(
                "/locale", data={"locale": "de", "next": target, "csrf_token": csrf}, headers=headers
            )
            assert answer.status_code == (204 if htmx else 303), (target, answer.status_code, answer.text)
            header = "hx-redirect" if htmx else "location"
            assert answer.headers[header] == expected, target


async def test_login_follows_only_local_paths_and_survives_line_breaks(
    server: Server, api_user: MakeApiUser
) -> None:
    user = await api_user()
    # Each login costs an argon2 check in the server: the targets that once went wrong.
    cases = [("/%09/evil.example", "/"), ("/%0A/evil.example", "/"), ("/\r\n/evil", "/"), FOLLOWED[0]]
    for target, expected in cases:
        async with httpx.AsyncClient(base_url=server.base_url) as client:
            csrf = await csrf_for(client)
            answer = await client.post(
                "/login", data={"name": user.name, "password": PASSWORD, "next": target, "csrf_token": csrf}
            )
            assert answer.status_code == 303, (target, answer.status_code)
            assert answer.headers["location"] == expected, target
            assert "drachenhort_session" in answer.cookies


async def test_registration_follows_only_local_paths(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        csrf = await csrf_for(client)
        data = {"name": unique_name(), "password": PASSWORD, "next": "/%0A/evil.example", "csrf_token": csrf}
        answer = await client.post("/register", data=data)
    assert answer.status_code == 303 and answer.headers["location"] == "/"


async def test_the_forms_carry_only_a_safe_next(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        for page in ("/login", "/register"):
            for target, expected in CASES:
                answer = await client.get(page, params={"next": target})
                assert answer.status_code == 200, (page, target)
                # The last one: the header's language switch comes first and returns to the page.
                shown = re.findall(r'name="next" value="([^"]*)"', answer.text)[-1]
                assert shown == expected.replace("&", "&amp;"), (page, target)
                _csrf_in(answer.text)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/notifications", "/login?next=/notifications"),
        ("/matches?order=recent", "/login?next=/matches%3Forder%3Drecent"),
        ("/notifications?x=%0d%0a", "/login?next=/"),
        ("/invite/%C3%A4", "/register?next=/invite/%25C3%25A4"),
    ],
)
async def test_pages_that_ask_for_a_login_send_back_only_here(
    server: Server, path: str, expected: str
) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        answer = await client.get(path)
        assert answer.status_code == 303, (path, answer.status_code, answer.text[:200])
        assert answer.headers["location"] == expected
        assert (await client.get(expected)).status_code == 200


async def test_a_path_with_a_line_break_names_nothing(server: Server) -> None:
    """No page is named with a control character: 404, before any login is asked for."""
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        answer = await client.get("/invite/a%0d%0ab")
    assert answer.status_code == 404 and "location" not in answer.headers
