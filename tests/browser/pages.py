"""What every browser test does through the pages."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.client import PASSWORD, unique_name


def register(page: Any, base_url: str) -> str:
    """Register a fresh user with the form (the page lands in the lobby, logged in)."""
    name = unique_name("b")
    page.goto(f"{base_url}/register")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form[action='/register'] button[type=submit]")
    page.wait_for_url(f"{base_url}/")
    return name


def register_apart(browser: Any, base_url: str) -> str:
    """Register a fresh user in a context of its own (closed again): the other player of a test.

    Not ``clear_cookies()`` and a second registration on the same page: a request of the page
    before (the live stream reconnecting) may then get a visitor cookie of its own after the
    register form got one, and the form's CSRF token no longer matches (403, now and then)."""
    context = browser.new_context()
    try:
        return register(context.new_page(), base_url)
    finally:
        context.close()


class MatchPlayer:
    """One browser context on a match page, with its own JSON view of the match."""

    def __init__(self, page: Any, base: str, name: str = "") -> None:
        self.page = page
        self.base = base
        self.name = name
        self.match_id = 0

    def state(self) -> dict[str, Any]:
        """The match as this player's API sees it."""
        response = self.page.request.get(f"{self.base}/api/matches/{self.match_id}")
        assert response.ok, response.text()
        data: dict[str, Any] = response.json()
        return data

    def version(self) -> str:
        """The version the page shows."""
        return str(self.page.locator("#match-area").get_attribute("data-version"))

    def synced(self, version: int) -> None:
        """Wait until the page shows ``version`` (it arrives over SSE, no reload)."""
        self.page.wait_for_function(
            "v => document.getElementById('match-area')?.getAttribute('data-version') === v", arg=str(version)
        )

    def board_changed(self, before: str) -> None:
        """Wait until the page shows another version than ``before`` (a decision's answer)."""
        self.page.wait_for_function(
            "v => document.getElementById('match-area')?.getAttribute('data-version') !== v", arg=before
        )


def settled_box(page: Any, target: Any) -> dict[str, float] | None:
    """The target's box once the page has stopped moving, as a person aims: a live push may
    still swap the area (same version, a line more or less above the target) and a move
    animates for up to 400 ms. A control covered for good stays covered here."""
    box = target.bounding_box()
    for _ in range(20):
        page.wait_for_timeout(100)
        moving = page.evaluate(
            "() => document.getAnimations().some(a => a.playState === 'running'"
            " && a.effect?.getComputedTiming().iterations !== Infinity)"
        )
        again = target.bounding_box()
        if again == box and not moving:
            break
        box = again
    return box


def log_in(context: Any, base_url: str, name: str, locale: str = "en") -> None:
    """Log a browser context in over the JSON API (its cookies), in the given page language."""
    request = context.request
    csrf = request.get(f"{base_url}/api/auth/csrf").json()["csrf_token"]
    body = {"name": name, "password": PASSWORD}
    answer = request.post(f"{base_url}/api/auth/login", data=body, headers={"X-CSRF-Token": csrf})
    assert answer.ok, answer.text()
    csrf = answer.json()["csrf_token"]
    switched = request.post(f"{base_url}/locale", form={"locale": locale, "csrf_token": csrf, "next": "/"})
    assert switched.ok, switched.text()


DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
"""Run a page test at 1366 px and on a 390 x 844 phone."""


def api_client(base_url: str, name: str) -> tuple[httpx.Client, str]:
    """A JSON API client logged in as ``name`` and its CSRF token (set-up beside the pages)."""
    client = httpx.Client(base_url=base_url, timeout=10.0)
    csrf = client.get("/api/auth/csrf").json()["csrf_token"]
    answer = client.post(
        "/api/auth/login", json={"name": name, "password": PASSWORD}, headers={"X-CSRF-Token": csrf}
    )
    assert answer.status_code == 200, answer.text
    client.headers["X-CSRF-Token"] = answer.json()["csrf_token"]
    return client, client.headers["X-CSRF-Token"]


def start_toy_match(base_url: str, first: str, *others: str) -> int:
    """A running toy match of ``first`` and ``others`` in that seat order (``first`` moves first)."""
    creator, _ = api_client(base_url, first)
    try:
        body = {"game": "toy", "seats": 1 + len(others), "fixed_order": True}
        created = creator.post("/api/matches", json=body)
        assert created.status_code == 201, created.text
        match_id = int(created.json()["id"])
    finally:
        creator.close()
    for name in others:
        joiner, _ = api_client(base_url, name)
        try:
            joined = joiner.post(f"/api/matches/{match_id}/join", json={})
            assert joined.status_code == 204, joined.text
        finally:
            joiner.close()
    return match_id
