"""Match records and the analysis in Chromium: a record uploaded on the import page becomes a
marked match; the replay of a finished match shows the strong bot's analysis graph, and a click
on the graph jumps to that step; a running match's replay has no analysis, and its API refuses
one; axe finds nothing serious on the import page and the analysis."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.pages import DESKTOP, VIEWPORTS, api_client, log_in, register, register_apart
from tests.browser.test_accessibility import AXE, RUN_AXE, SERIOUS, _axe_missing
from tests.support.records import play_match, record_of
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000
ANALYSIS_SECONDS = 120
"""The background analysis of a 2-player Draco match (~100 steps) takes seconds; generous here."""


@pytest.fixture(scope="module")
def analysed(server: Server, browser: Any) -> Iterator[tuple[str, int]]:
    """A user and a finished (imported) Draco match whose analysis is done: one per module."""
    name = register_apart(browser, server.base_url)
    client, _ = api_client(server.base_url, name)
    try:
        text = record_of(play_match("draco", 2, {}, number=11))
        made = client.post("/api/records", content=text.encode(), headers={"Content-Type": "text/plain"})
        assert made.status_code == 201, made.text
        match_id = int(made.json()["id"])
        deadline = time.monotonic() + ANALYSIS_SECONDS
        first = client.get(f"/api/matches/{match_id}/analysis").json()
        assert first["state"] == "running" and first["done"] < first["steps"]
        while client.get(f"/api/matches/{match_id}/analysis").json()["state"] != "done":
            assert time.monotonic() < deadline, "the analysis did not finish"
            time.sleep(0.5)
    finally:
        client.close()
    yield name, match_id


def test_the_import_page_makes_a_marked_match(server: Server, browser: Any) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    context = browser.new_context(locale="en-US", viewport=DESKTOP)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        name = register(page, base)
        page.goto(f"{base}/matches")
        page.click("a[href='/records/import']")
        text = record_of(play_match("draco", 2, {}, number=2))
        page.set_input_files(
            "#record-file", {"name": "m.txt", "mimeType": "text/plain", "buffer": text.encode()}
        )
        page.click("#import-form button[type=submit]")
        page.wait_for_url(f"{base}/matches/*/replay")
        expect(page.locator("[data-imported]")).to_contain_text(name)
        # While the analysis runs, the page says how far it has got.
        expect(page.locator("[data-analysis]")).to_be_visible()
        # The record downloads from the replay, the same text that was uploaded.
        with page.expect_download() as download:
            page.click("[data-record-link]")
        assert download.value.suggested_filename.endswith(".txt")
        assert Path(download.value.path()).read_text(encoding="utf-8") == text
    finally:
        context.close()


@VIEWPORTS
def test_the_analysis_graph_jumps_to_a_step(
    server: Server, browser: Any, analysed: tuple[str, int], viewport: Any
) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    name, match_id = analysed
    context = browser.new_context(locale="en-US", viewport=viewport)
    try:
        log_in(context, base, name)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{base}/matches/{match_id}/replay?step=0")
        assert page.get_attribute("[data-analysis]", "data-analysis") == "done"
        graph = page.locator("svg.analysis-graph")
        expect(graph).to_be_visible()
        assert graph.locator("polyline").count() == 2
        # A click on the graph's right half jumps there, without a page load.
        page.evaluate("window.__same_page = true")
        graph.scroll_into_view_if_needed()
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


@pytest.mark.parametrize("locale", ["de-DE", "en-US"])
def test_the_import_page_and_the_analysis_pass_axe(
    server: Server, browser: Any, analysed: tuple[str, int], locale: str
) -> None:
    missing = _axe_missing()
    if missing:
        pytest.fail(missing) if os.environ.get("DRACHENHORT_REQUIRE_BROWSER") == "1" else pytest.skip(missing)
    base = server.base_url
    name, match_id = analysed
    context = browser.new_context(locale=locale, viewport=DESKTOP, bypass_csp=True)
    try:
        log_in(context, base, name, locale[:2])
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{base}/records/import")
        page.fill("#record-text", "% Drachenhort match record 1\n[Game draco]\n")
        page.click("#import-form button[type=submit]")
        page.wait_for_selector("#import-error")
        for path in (None, f"/matches/{match_id}/replay?step=20"):
            if path is not None:
                page.goto(f"{base}{path}")
                page.wait_for_selector("[data-analysis-step]")
            page.add_script_tag(path=str(AXE))
            found = [v for v in page.evaluate(RUN_AXE) if v["impact"] in SERIOUS]
            assert not found, "\n".join(f"{v['impact']} {v['id']}: {v['help']} {v['nodes']}" for v in found)
    finally:
        context.close()
