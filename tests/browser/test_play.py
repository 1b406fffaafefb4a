"""Two people in two browsers play a turn of the toy game; a German browser gets German."""

from __future__ import annotations

import re
import secrets
from typing import Any

import pytest

from tests.browser.pages import api_client, register, settled_box, start_toy_match
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000


def test_two_players_play_a_turn_with_undo_and_confirm_and_see_each_other_live(
    browser: Any, server: Server
) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    alice_ctx = browser.new_context(locale="en-US")
    bob_ctx = browser.new_context(locale="en-US")
    try:
        alice, bob = alice_ctx.new_page(), bob_ctx.new_page()
        for page in (alice, bob):
            page.set_default_timeout(TIMEOUT_MS)
        errors: list[str] = []
        for page in (alice, bob):
            page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        register(alice, base)
        register(bob, base)

        # Alice opens a two-player toy match with a fixed order: she sits first and moves first.
        alice.goto(f"{base}/")
        card = alice.locator("#game-toy")
        card.locator("summary").click()
        card.locator("select[name=seats]").select_option("2")
        card.locator("input[name=fixed_order]").check()
        card.locator("button[type=submit]").click()
        alice.wait_for_url(re.compile(r"/matches/\d+$"))
        match_url = alice.url

        # Bob joins from the lobby; Alice's page learns over SSE that the match started.
        bob.goto(f"{base}/")
        bob.locator(f"#open-matches a[href='{match_url[len(base) :]}']").locator("..").locator(
            "button", has_text="Join"
        ).click()
        bob.wait_for_url(match_url)
        expect(bob.locator(".turn-status")).to_contain_text("Waiting for")
        expect(alice.locator(".turn-status")).to_contain_text("Your turn!")

        # A board answer older than the board shown (a refresh overtaken by the answer to the
        # next decision) is not swapped in; a newer one is.
        old_area = alice.locator("#match-live").inner_html()

        # A click plays a card (pending), Undo takes it back.
        moves = alice.locator("#match-area [data-move]")
        expect(moves.first).to_be_visible()
        hand_before = moves.count()
        moves.first.click()
        expect(alice.locator(".log-entry.pending")).to_have_count(1)
        alice.locator("[data-match-action=undo]").click()
        expect(alice.locator(".log-entry.pending")).to_have_count(0)
        expect(alice.locator("#match-area [data-move]")).to_have_count(hand_before)
        swapped = alice.evaluate(
            """(html) => [
                window.Drachenhort.applyArea(html),
                window.Drachenhort.applyArea(document.getElementById("match-live").innerHTML),
            ]""",
            old_area,
        )
        assert swapped == [False, True]

        # A double click takes one decision, not two.
        alice.locator("#match-area [data-move]").first.dblclick()
        expect(alice.locator(".log-entry.pending")).to_have_count(1)
        alice.wait_for_timeout(600)
        expect(alice.locator(".log-entry.pending")).to_have_count(1)
        alice.locator("[data-match-action=undo]").click()
        expect(alice.locator(".log-entry.pending")).to_have_count(0)

        # The keyboard plays a card: focus it and press Enter.
        alice.locator("#match-area [data-move]").first.focus()
        alice.keyboard.press("Enter")
        expect(alice.locator(".log-entry.pending")).to_have_count(1)
        # A pending decision is only Alice's: Bob still sees an empty log.
        expect(bob.locator(".log-entry")).to_have_count(0)

        # Hovering the log line highlights nothing missing; the line names its pieces.
        entry = alice.locator(".log-entry.pending")
        assert (entry.get_attribute("data-pieces") or "").startswith("card-")

        alice.locator("[data-match-action=confirm]").click()
        expect(alice.locator(".turn-status")).to_contain_text("Waiting for")
        # Bob's page updates live: it is his turn now and the played card is in his log.
        expect(bob.locator(".turn-status")).to_contain_text("Your turn!")
        expect(bob.locator("#match-area [data-move]").first).to_be_visible()
        expect(bob.locator(".log-entry").first).to_be_visible()
        expect(bob.locator("#turn-badge")).to_contain_text("Your turn: 1")
        # Chat reaches the other player's open page live (not only by the minute's poll).
        alice.fill("#chat-text", "gut gespielt <b>!</b>")
        alice.locator(".chat-form button[type=submit]").click()
        expect(bob.locator("#chat")).to_contain_text("gut gespielt <b>!</b>", timeout=5_000)
        # A reloaded page with nothing new to learn fetches its board once (the page itself), not
        # again when the live stream opens.
        area_requests: list[str] = []
        alice.on("request", lambda r: area_requests.append(r.url) if "/area" in r.url else None)
        alice.reload()
        expect(alice.locator(".turn-status")).to_contain_text("Waiting for")
        alice.wait_for_timeout(1_500)
        assert area_requests == []
        csp_errors = [e for e in errors if "Content Security Policy" in e]
        assert csp_errors == []
    finally:
        alice_ctx.close()
        bob_ctx.close()


def test_a_german_browser_gets_german(browser: Any, server: Server) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(locale="de-DE")
    try:
        page = context.new_page()
        page.goto(f"{server.base_url}/")
        expect(page.locator("html")).to_have_attribute("lang", "de")
        expect(page.locator("#open-heading")).to_have_text("Offene Partien")
        expect(page.locator("header")).to_contain_text("Anmelden")
    finally:
        context.close()


def test_the_last_card_played_with_the_mouse_ends_the_match_and_its_rematch_button_works(
    browser: Any, server: Server
) -> None:
    """The answer to a decision is rendered once for the mover's page and its other tabs, so
    its forms carry no session's token and the page puts its own in (static/js/board.js): the
    Rematch button of the area a click brought opens the new table instead of a 403."""
    from playwright.sync_api import expect

    base = server.base_url
    contexts = [browser.new_context(locale="en-US") for _ in range(2)]
    try:
        pages = [c.new_page() for c in contexts]
        names = [register(page, base) for page in pages]
        match_id = start_toy_match(base, *names)
        clients = [api_client(base, name)[0] for name in names]
        try:
            # Over the API up to the last card: the seat to act holds it, nothing else is left.
            for _ in range(80):
                views = [c.get(f"/api/matches/{match_id}").json() for c in clients]
                seat = next(i for i, v in enumerate(views) if v["viewer_seat"] in v["to_act"])
                view = views[seat]
                plays = [move for move in view["legal"] if move != "confirm"]
                if plays and view["view"]["deck_size"] == 0 and sum(view["view"]["hand_sizes"]) == 1:
                    break
                body = {"expected_version": view["version"], "request_id": f"r{secrets.token_hex(6)}"}
                path = "moves" if plays else "confirm"
                answer = clients[seat].post(
                    f"/api/matches/{match_id}/{path}", json={**body, "move": plays[0]} if plays else body
                )
                assert answer.status_code == 200, answer.text
            else:
                raise AssertionError("the toy match did not come down to its last card")
        finally:
            for client in clients:
                client.close()
        page = pages[seat]
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{base}/matches/{match_id}")
        last = page.locator(".legal-moves [data-move]")
        expect(last).to_have_count(1)
        box = settled_box(page, last)
        assert box is not None
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        expect(page.locator("#match-area")).to_have_attribute("data-status", "finished")
        rematch = page.get_by_role("button", name="Rematch")
        box = settled_box(page, rematch)
        assert box is not None
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_url(re.compile(rf"{base}/matches/(?!{match_id}\b)\d+$"))
        expect(page.locator("#open-heading")).to_be_visible()
    finally:
        for context in contexts:
            context.close()
