"""Issue 19.5 in the browser: a chat line over the limit is refused with a message the writer
sees on the page, in their language."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.pages import VIEWPORTS, log_in, register_apart, start_toy_match
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000


@pytest.fixture(scope="module")
def chatty_server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    env = {"DRACHENHORT_CHAT_LINES_PER_MINUTE": "2"}
    with Server(database_url, tmp_path_factory.mktemp("chat-limit"), env=env) as running:
        yield running


@VIEWPORTS
def test_a_chat_line_over_the_limit_shows_why_in_german(
    chatty_server: Server, browser: Any, viewport: Any
) -> None:
    from playwright.sync_api import expect

    base = chatty_server.base_url
    alice, bob = register_apart(browser, base), register_apart(browser, base)
    match_id = start_toy_match(base, alice, bob)
    context = browser.new_context(locale="de-DE", viewport=viewport)
    try:
        log_in(context, base, alice, locale="de")
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{base}/matches/{match_id}")
        field, send = page.locator("#chat-text"), page.locator(".chat-form button[type=submit]")
        for n in range(2):
            field.fill(f"Zeile {n}")
            send.click()
            expect(page.locator("#chat .chat-list")).to_contain_text(f"Zeile {n}")
        field.fill("eine zu viel")
        send.click()
        expect(page.locator("#flash")).to_contain_text("Du schreibst zu schnell")
        expect(page.locator("#flash")).to_be_in_viewport()
        expect(page.locator("#chat .chat-list")).not_to_contain_text("eine zu viel")
    finally:
        context.close()
