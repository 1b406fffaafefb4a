"""Issue 13.3: without DRACHENHORT_BASE_URL, invite links follow the address the site is served
on (``make run PORT=8130`` showed links to port 8000); a friend follows one and takes the seat."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.pages import VIEWPORTS, register
from tests.support.client import PASSWORD, unique_name
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000


@pytest.fixture(scope="module")
def unconfigured(server: Server, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A second server on another free port, started without DRACHENHORT_BASE_URL."""
    with Server(server.database_url, Path(tmp_path_factory.mktemp("plain")), set_base_url=False) as plain:
        yield plain


@VIEWPORTS
def test_invite_links_point_to_the_port_the_site_is_served_on(
    unconfigured: Server, browser: Any, viewport: Any
) -> None:
    from playwright.sync_api import expect

    base = unconfigured.base_url
    host_ctx = browser.new_context(locale="en-US", viewport=viewport)
    friend_ctx = browser.new_context(locale="en-US", viewport=viewport)
    try:
        host, friend = host_ctx.new_page(), friend_ctx.new_page()
        for page in (host, friend):
            page.set_default_timeout(TIMEOUT_MS)
        register(host, base)
        host.goto(f"{base}/")
        card = host.locator("#game-toy")
        card.locator("summary").click()
        card.locator("button[type=submit]").click()
        host.wait_for_url(re.compile(r"/matches/\d+$"))
        match_url = host.url

        link = host.locator("#invite-link")
        expect(link).to_have_value(re.compile(rf"^{re.escape(base)}/invite/[A-Za-z0-9_-]+$"))
        invite = link.input_value()

        # The friend follows the link, registers on the way, and takes the seat.
        friend.goto(invite)
        friend.wait_for_url(re.compile(r"/register\?next=/invite/"))
        friend_name = unique_name("f")
        friend.fill("input[name=name]", friend_name)
        friend.fill("input[name=password]", PASSWORD)
        friend.click("form[action='/register'] button[type=submit]")
        friend.wait_for_url(invite)
        expect(friend.locator(".table-facts")).to_contain_text("Toy cards")
        friend.get_by_role("button", name="Take a seat").click()
        friend.wait_for_url(match_url)
        expect(host.locator(".players")).to_contain_text(friend_name)  # live, on the host's page
    finally:
        host_ctx.close()
        friend_ctx.close()
