"""Match records and the analysis in Chromium: a record uploaded on the import page becomes a
marked match whose replay shows the strong bot's analysis graph; a click on the graph jumps to
that step. A running match's replay has no analysis, and its API refuses one."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from tests.browser.pages import VIEWPORTS, api_client, register, register_apart
from tests.support.records import play_match, record_of
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000
ANALYSIS_SECONDS = 90
"""The background analysis of a 2-player Draco match (~100 steps) takes seconds; generous here."""


def wait_for_analysis(page: Any, url: str) -> None:
    """Load ``url`` again until its analysis is done (the page says how far it has got meanwhile)."""
    deadline = time.monotonic() + ANALYSIS_SECONDS
    while True:
        page.goto(url)
        state = page.get_attribute("[data-analysis]", "data-analysis")
        if state == "done":
            return
        assert state == "running", state
        assert page.locator("[data-analysis-progress]").is_visible()
        assert time.monotonic() < deadline, "the analysis did not finish"
        time.sleep(1.0)


@VIEWPORTS
def test_an_imported_record_replays_with_the_analysis_graph(
    server: Server, browser: Any, viewport: Any
) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    text = record_of(play_match("draco", 2, {}, number=11))
    context = browser.new_context(locale="en-US", viewport=viewport)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        name = register(page, base)
        page.goto(f"{base}/records/import")
        page.set_input_files(
            "#record-file", {"name": "match.txt", "mimeType": "text/plain", "buffer": text.encode()}
        )
        page.click("#import-form button[type=submit]")
        page.wait_for_url(f"{base}/matches/*/replay")
        expect(page.locator("[data-imported]")).to_contain_text(name)
        replay = page.url.split("?")[0]
        wait_for_analysis(page, replay + "?step=0")
        graph = page.locator("svg.analysis-graph")
        expect(graph).to_be_visible()
        assert graph.locator("polyline").count() == 2
        # A click on the graph's right half jumps there, without a page load.
        page.evaluate("window.__same_page = true")
        box = graph.bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2)
        expect(page).to_have_url(re.compile(r"step=[1-9]"))
        assert page.evaluate("window.__same_page") is True
        step = int(page.url.split("step=")[1])
        assert step > 20
        expect(page.locator("#step-heading")).to_contain_text(f"Step {step}")
        expect(page.locator("[data-analysis-step]")).to_be_visible()
        expect(page.locator("svg.analysis-graph a.current")).to_have_attribute("data-graph-step", str(step))
        # The record downloads from the replay.
        with page.expect_download() as download:
            page.click("[data-record-link]")
        assert download.value.suggested_filename.endswith(".txt")
    finally:
        context.close()


def test_a_running_match_has_no_analysis(server: Server, browser: Any) -> None:
    base = server.base_url
    context = browser.new_context(locale="en-US")
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        alice = register(page, base)
        bob = register_apart(browser, base)
        creator, _ = api_client(base, alice)
        try:
            created = creator.post("/api/matches", json={"game": "draco", "seats": 2, "invite": [bob]})
            match_id = int(created.json()["id"])
        finally:
            creator.close()
        joiner, _ = api_client(base, bob)
        try:
            assert joiner.post(f"/api/matches/{match_id}/join", json={}).status_code == 204
        finally:
            joiner.close()
        page.goto(f"{base}/matches/{match_id}/replay")
        assert page.locator("[data-analysis]").count() == 0
        assert page.locator("[data-record-link]").count() == 0
        assert page.request.get(f"{base}/api/matches/{match_id}/analysis").status == 403
        assert page.request.get(f"{base}/api/matches/{match_id}/record").status == 403
    finally:
        context.close()
