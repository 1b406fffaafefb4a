"""Issue 13.9: the replay steps without page loads (buttons, the slider keeps its focus, keys,
autoplay), each step reads as the log reads, a confirm belongs to the turn it ends, the address
is a link to the step; no key hint on a phone, where the board can be enlarged."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from app.services.play.views import LOG_PAGE
from tests.browser.pages import PHONE, VIEWPORTS, api_client, register, register_apart
from tests.support.client import request_id
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000
DECISIONS = 14


def _draco_match(base: str, alice: str, bob: str) -> tuple[int, int]:
    """A two-player Draco match a few turns in (first cards played, turns confirmed), and the
    number of its decisions that are not confirms."""
    counted = 0
    players = {alice: api_client(base, alice)[0], bob: api_client(base, bob)[0]}
    try:
        created = players[alice].post(
            "/api/matches", json={"game": "draco", "seats": 2, "invite": [bob], "fixed_order": True}
        )
        assert created.status_code == 201, created.text
        match_id = int(created.json()["id"])
        assert players[bob].post(f"/api/matches/{match_id}/join", json={}).status_code == 204
        for _ in range(DECISIONS):
            for client in players.values():
                view = client.get(f"/api/matches/{match_id}").json()
                if not view["legal"]:
                    continue
                plays = [m for m in view["legal"] if m != "confirm"]
                move = (
                    "confirm" if "confirm" in view["legal"] and (view["can_undo"] or not plays) else plays[0]
                )
                path, body = ("confirm", {}) if move == "confirm" else ("moves", {"move": move})
                counted += move != "confirm"
                answer = client.post(
                    f"/api/matches/{match_id}/{path}",
                    json={**body, "expected_version": view["version"], "request_id": request_id()},
                )
                assert answer.status_code == 200, answer.text
        for client in players.values():  # a turn left pending is finished: its decisions count
            for _ in range(5):
                view = client.get(f"/api/matches/{match_id}").json()
                if not view["can_undo"]:
                    break
                body = {"expected_version": view["version"], "request_id": request_id()}
                if "confirm" in view["legal"]:
                    answer = client.post(f"/api/matches/{match_id}/confirm", json=body)
                else:  # a choice first (Draco's keep or take)
                    answer = client.post(
                        f"/api/matches/{match_id}/moves", json={**body, "move": view["legal"][0]}
                    )
                    counted += 1
                assert answer.status_code == 200, answer.text
        return match_id, counted
    finally:
        for client in players.values():
            client.close()


@VIEWPORTS
def test_the_replay_steps_without_page_loads(server: Server, browser: Any, viewport: Any) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    context = browser.new_context(locale="en-US", viewport=viewport)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        bob = register_apart(browser, base)
        alice = register(page, base)
        match_id, counted = _draco_match(base, alice, bob)
        steps = page.request.get(f"{base}/api/matches/{match_id}/replay/0").json()["steps"]
        assert steps >= 6
        # A confirm belongs to the turn it ends: one step per decision that is not a confirm.
        assert steps == counted, (steps, counted)

        # A link to a step shows that step.
        page.goto(f"{base}/matches/{match_id}/replay?step=2")
        count = page.locator("[data-replay-count]")
        expect(count).to_have_text(f"Step 2 of {steps}")
        # The step reads as the log reads: the player's name and words, no move notation.
        heading = page.locator("#step-heading")
        expect(heading).to_contain_text(re.compile(f"Step 2: ({alice}|{bob})"))
        lines = page.locator(".step-lines").inner_text()
        assert (alice in lines or bob in lines) and not re.search(r"\b(play|mount|discard|confirm):", lines)
        assert "confirm" not in page.locator(".replay-step").inner_text()

        page.evaluate("window.__notReloaded = true")
        page.locator("[data-replay=next]").click()
        expect(count).to_have_text(f"Step 3 of {steps}")
        expect(page).to_have_url(re.compile(rf"/matches/{match_id}/replay\?step=3$"))

        # The slider steps with the arrow keys and keeps the focus.
        slider = page.locator("#replay-step")
        slider.focus()
        page.keyboard.press("ArrowRight")
        expect(count).to_have_text(f"Step 4 of {steps}")
        expect(slider).to_be_focused()
        expect(slider).to_have_value("4")
        expect(page).to_have_url(re.compile(r"\?step=4$"))

        # Keys pressed faster than the frames arrive each count: Home and three quick presses
        # of the right arrow show step 3, not step 1.
        page.evaluate("document.activeElement.blur()")
        page.keyboard.press("Home")
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        expect(count).to_have_text(f"Step 3 of {steps}")
        expect(page).to_have_url(re.compile(r"\?step=3$"))

        # Autoplay at the fastest speed runs on to the end by itself.
        page.locator("[data-replay-speed]").select_option("0.5")
        page.locator("[data-replay-play]").click()
        expect(count).to_have_text(f"Step {steps} of {steps}", timeout=steps * 2_000)
        expect(page.locator("[data-replay-play]")).to_have_attribute("aria-pressed", "false")
        assert page.evaluate("window.__notReloaded === true")  # all of it without a page load

        if viewport == PHONE:
            # The board can be enlarged here too, and stays so from step to step.
            svg = page.locator("#board [data-zoom] > svg").first
            before = svg.bounding_box()["width"]
            page.locator("[data-board-zoom]").click()
            assert svg.bounding_box()["width"] >= 1.9 * before
            page.locator("[data-replay=prev]").click()
            expect(count).to_have_text(f"Step {steps - 1} of {steps}")
            expect(page.locator("[data-board-zoom]")).to_have_attribute("aria-pressed", "true")
            assert page.locator("#board [data-zoom] > svg").first.bounding_box()["width"] >= 1.9 * before
            page.locator("[data-board-zoom]").click()
            page.locator("[data-replay=next]").click()
            expect(page).to_have_url(re.compile(rf"\?step={steps}$"))

        # The address now links to the last step; the keys hint is for keyboards, not phones.
        page.reload()
        expect(count).to_have_text(f"Step {steps} of {steps}")
        expect(page.locator(".replay-keys")).to_be_hidden() if viewport == PHONE else expect(
            page.locator(".replay-keys")
        ).to_be_visible()
    finally:
        context.close()


def _long_drachenland_match(base: str, alice: str, bob: str, decisions: int) -> int:
    """A two-player Drachenland match ``decisions`` random decisions in (more than a log page)."""
    chooser = random.Random("replay-log-pages")
    players = {alice: api_client(base, alice)[0], bob: api_client(base, bob)[0]}
    try:
        created = players[alice].post(
            "/api/matches", json={"game": "drachenland", "seats": 2, "invite": [bob], "fixed_order": True}
        )
        assert created.status_code == 201, created.text
        match_id = int(created.json()["id"])
        assert players[bob].post(f"/api/matches/{match_id}/join", json={}).status_code == 204
        made = 0
        while made < decisions:
            for client in players.values():
                view = client.get(f"/api/matches/{match_id}").json()
                assert view["status"] == "active"
                if not view["legal"]:
                    continue
                move = chooser.choice(view["legal"])
                path, body = ("confirm", {}) if move == "confirm" else ("moves", {"move": move})
                answer = client.post(
                    f"/api/matches/{match_id}/{path}",
                    json={**body, "expected_version": view["version"], "request_id": request_id()},
                )
                assert answer.status_code == 200, answer.text
                made += 1
        return match_id
    finally:
        for client in players.values():
            client.close()


def test_a_step_shows_the_newest_log_page_and_earlier_ones_on_request(server: Server, browser: Any) -> None:
    """Issue 19.4: a step's frame carries one page of its log, not the whole log up to it (which
    made every autoplay step cost more than the one before); "Show earlier moves" adds the rest."""
    from playwright.sync_api import expect

    base = server.base_url
    context = browser.new_context(locale="en-US", viewport={"width": 1366, "height": 768})
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        bob = register_apart(browser, base)
        alice = register(page, base)
        match_id = _long_drachenland_match(base, alice, bob, 2 * LOG_PAGE + 10)
        page.goto(f"{base}/matches/{match_id}/replay")
        lines = page.locator("[data-replay-log] li")
        # A decision's first line carries its number; the lines it goes on with carry none.
        numbered = "(items) => items.filter((li) => li.hasAttribute('value')).map((li) => li.value)"
        shown = lines.count()
        first_page = [int(v) for v in lines.evaluate_all(numbered)]
        assert min(first_page) > LOG_PAGE  # only the newest page of decisions

        earlier = page.locator("[data-replay-earlier]")
        for _ in range(5):
            if earlier.count() == 0:
                break
            earlier.click()  # a real click where the button is (it moves down as lines come)
            expect(lines).not_to_have_count(shown)
            shown = lines.count()
        expect(earlier).to_have_count(0)
        values = [int(v) for v in lines.evaluate_all(numbered)]
        assert values == sorted(values, reverse=True)  # newest first, no page twice or out of order
        assert values[-1] == 1 and set(first_page) <= set(values)

        # Stepping swaps the frame: the log is one page again, for the step shown.
        page.locator("[data-replay=prev]").click()
        expect(page.locator("[data-replay-earlier]")).to_have_count(1)
        assert max(int(v) for v in lines.evaluate_all(numbered)) <= max(values)
    finally:
        context.close()
