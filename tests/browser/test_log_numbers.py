"""Issue 13.4: log numbers keep all their digits (entries 256, 432 and 1472 showed as "56.",
"32.", "72.": the markers stood in a padding too narrow for them and the scrolling list clipped
them). Issue 13.11: the page shows the newest part of a long log and loads earlier parts on demand;
a click's answer at decision 1,500 is as small as at decision 10 (the page keeps its log and an
answer brings only the lines it lacks)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.pages import VIEWPORTS, api_client, log_in, register, start_toy_match
from tests.support.client import request_id
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 20_000
LINES = 1_500
"""Fifteen hundred numbered lines: four-digit numbers, and a long match."""

# The widest marker of the list as Chromium lays it out, against the room the list leaves for
# markers on its left (the list scrolls, so whatever sticks out further is cut off).
MARKER_ROOM = """(list) => {
    const items = list.querySelectorAll(":scope > li");
    // Each item is numbered with its decision's seq (its value); the widest number is the largest.
    const number = Math.max(...Array.from(items, (item) => item.value));
    const marker = getComputedStyle(items[0], "::marker");
    const ctx = document.createElement("canvas").getContext("2d");
    ctx.font = `${marker.fontStyle} ${marker.fontWeight} ${marker.fontSize} ${marker.fontFamily}`;
    return {
        number,
        width: ctx.measureText(`${number}. `).width,
        room: items[0].getBoundingClientRect().left - list.getBoundingClientRect().left,
    };
}"""


def _pass(base_url: str, names: tuple[str, str], match_id: int, rounds: int) -> None:
    """Both players confirm (pass) ``rounds`` times over the API: each confirm logs one line.
    Each answer carries the match's next version: one request per confirm, no look in between."""
    players = [api_client(base_url, name)[0] for name in names]
    try:
        version = players[0].get(f"/api/matches/{match_id}").json()["version"]
        for _ in range(rounds):
            for client in players:
                answer = client.post(
                    f"/api/matches/{match_id}/confirm",
                    json={"expected_version": version, "request_id": request_id()},
                )
                assert answer.status_code == 200, answer.text
                version = answer.json()["match"]["version"]
    finally:
        for client in players:
            client.close()


@pytest.fixture(scope="module")
def long_match(server: Server, browser: Any) -> Iterator[tuple[str, int]]:
    """A toy match whose players have passed (confirmed) hundreds of times: a log of 1,000+ lines."""
    context = browser.new_context()
    page = context.new_page()
    alice, bob = register(page, server.base_url), register(page, server.base_url)
    context.close()
    match_id = start_toy_match(server.base_url, alice, bob)
    _pass(server.base_url, (alice, bob), match_id, LINES // 2 + 1)
    yield alice, match_id


@VIEWPORTS
def test_four_digit_log_numbers_show_whole(
    server: Server, browser: Any, long_match: tuple[str, int], viewport: Any
) -> None:
    from playwright.sync_api import expect

    alice, match_id = long_match
    context = browser.new_context(locale="en-US", viewport=viewport)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server.base_url}/login")
        page.fill("input[name=name]", alice)
        page.fill("input[name=password]", "correct horse battery")
        page.click("form[action='/login'] button[type=submit]")
        page.wait_for_url(f"{server.base_url}/")
        page.goto(f"{server.base_url}/matches/{match_id}")
        page.locator("#match-area .log-list li").first.wait_for()
        # Looked up and measured in one go: the live area may be swapped in at any moment.
        measured = page.evaluate(f"({MARKER_ROOM})(document.querySelector('#match-area .log-list'))")
        assert measured["number"] >= 1000
        assert measured["width"] <= measured["room"], measured

        # Issue 13.11: the page shows the newest part of the log; earlier parts come on demand.
        entries = page.locator("#match-area .log-list > li[value]")  # each decision's numbered line
        shown = entries.count()
        assert 0 < shown < LINES, shown
        oldest = int(str(entries.last.get_attribute("value")))
        assert oldest > 1
        page.get_by_role("button", name="Show earlier moves").click()
        expect(entries).not_to_have_count(shown)
        assert int(str(entries.last.get_attribute("value"))) < oldest, (
            "the earlier lines come after the shown ones"
        )
        assert page.evaluate("() => performance.getEntriesByType('navigation').length") == 1  # no page load
    finally:
        context.close()


def _click_answer_bytes(page: Any) -> int:
    """Play a card on the page (a pending decision) and undo it; the size of the card's answer."""
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/moves")) as played:
        page.locator("#match-area [data-move]").first.click()
    size = len(played.value.body())
    page.locator(".log-entry.pending").first.wait_for()
    page.locator("[data-match-action=undo]").click()
    page.wait_for_selector(".log-entry.pending", state="detached")
    return size


def test_a_click_at_decision_1500_answers_as_little_as_at_decision_10(
    server: Server, browser: Any, long_match: tuple[str, int]
) -> None:
    alice, long_id = long_match
    bob_context = browser.new_context()
    bob = register(bob_context.new_page(), server.base_url)
    bob_context.close()
    short_id = start_toy_match(server.base_url, alice, bob)
    _pass(server.base_url, (alice, bob), short_id, 5)  # ten decisions
    context = browser.new_context(locale="en-US")
    log_in(context, server.base_url, alice)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        sizes = {}
        for match_id in (short_id, long_id):
            page.goto(f"{server.base_url}/matches/{match_id}")
            page.locator("#match-area [data-move]").first.wait_for()
            sizes[match_id] = _click_answer_bytes(page)
        assert sizes[long_id] <= 2 * sizes[short_id], sizes
    finally:
        context.close()
