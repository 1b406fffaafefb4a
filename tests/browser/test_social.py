"""Friends, blocks, statistics, head-to-head and search in Chromium, with real clicks.

A friend request asked on a profile and accepted on the friends page, with who is online seen
from two browser contexts and a one-click invitation; a block that stops invitations and chat
lines; a player's statistics page after finished matches of all three games (played to their
end over the JSON API with random legal moves), its rating graph, the head-to-head page and
the player search.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.pages import PHONE, register
from tests.browser.studio import Studio, User
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000
FINISH = 6_000


def _context(browser: Any, viewport: dict[str, int] | None = None) -> Any:
    context = browser.new_context(viewport=viewport or {"width": 1366, "height": 900}, locale="en-US")
    context.set_default_timeout(TIMEOUT_MS)
    return context


def test_a_friend_request_accepted_shows_who_is_online(browser: Any, server: Server) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    contexts = [_context(browser), _context(browser, PHONE), _context(browser)]
    try:
        alice_page, bob_page, carol_page = (c.new_page() for c in contexts)
        alice, bob, carol = (register(p, base) for p in (alice_page, bob_page, carol_page))

        # Alice asks Bob on his profile; Bob (on a phone) accepts on his friends page.
        alice_page.goto(f"{base}/users/{bob}")
        alice_page.get_by_role("button", name="Ask to be friends").click()
        expect(alice_page.locator("#relation")).to_have_attribute("data-relation", "asked")
        bob_page.goto(f"{base}/friends")
        asking = bob_page.locator(f"#asking li[data-name='{alice}']")
        expect(asking).to_be_visible()
        asking.get_by_role("button", name="Accept").click()
        friend = bob_page.locator(f"li.friend[data-name='{alice}']")
        expect(friend.locator(".presence")).to_have_attribute("data-online", "yes")

        # Carol becomes Alice's friend too, then logs out: Alice sees her offline, Bob online.
        alice_page.goto(f"{base}/users/{carol}")
        alice_page.get_by_role("button", name="Ask to be friends").click()
        carol_page.goto(f"{base}/users/{alice}")
        carol_page.get_by_role("button", name="Accept").click()
        expect(carol_page.locator("#relation")).to_have_attribute("data-relation", "friend")
        carol_page.locator(".menu summary").click()
        carol_page.get_by_role("button", name="Log out").click()
        carol_page.wait_for_url(re.compile(r".*/(login)?$"))
        alice_page.goto(f"{base}/friends")
        expect(alice_page.locator(f"li.friend[data-name='{bob}'] .presence")).to_have_attribute(
            "data-online", "yes"
        )
        expect(alice_page.locator(f"li.friend[data-name='{carol}'] .presence")).to_have_attribute(
            "data-online", "no"
        )

        # One click invites Bob to a new table; Bob's invitation waits for him.
        row = alice_page.locator(f"li.friend[data-name='{bob}']")
        row.locator("select[name=game]").select_option("felsental")
        row.get_by_role("button", name="Invite").click()
        alice_page.wait_for_url(re.compile(r".*/matches/\d+$"))
        match_id = int(alice_page.url.rsplit("/", 1)[1])
        mine = bob_page.request.get(f"{base}/api/me/matches").json()
        assert match_id in [m["id"] for m in mine["waiting"]]

        # From the create form: the friend's button fills an invite field.
        alice_page.goto(f"{base}/")
        card = alice_page.locator("li", has=alice_page.locator("input[name=game][value=draco]")).first
        card.locator("details summary").first.click()
        card.locator(f"[data-invite-friend='{bob}']").click()
        expect(card.locator("input[name=invite]").first).to_have_value(bob)
    finally:
        for context in contexts:
            context.close()


def test_a_block_stops_invitations_and_chat(browser: Any, server: Server) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    contexts = [_context(browser), _context(browser)]
    try:
        alice_page, bob_page = (c.new_page() for c in contexts)
        alice, bob = (register(p, base) for p in (alice_page, bob_page))
        # A running match of the two (the table made over the JSON API of the pages' cookies).
        csrf = bob_page.locator("body").get_attribute("data-csrf")
        made = bob_page.request.post(
            f"{base}/api/matches",
            data={"game": "felsental", "seats": 2, "invite": [alice]},
            headers={"X-CSRF-Token": csrf},
        )
        assert made.ok, made.text()
        match_id = made.json()["id"]
        alice_csrf = alice_page.locator("body").get_attribute("data-csrf")
        joined = alice_page.request.post(
            f"{base}/api/matches/{match_id}/join", data={}, headers={"X-CSRF-Token": alice_csrf}
        )
        assert joined.ok, joined.text()

        alice_page.goto(f"{base}/users/{bob}")
        alice_page.get_by_role("button", name="Block").click()
        expect(alice_page.locator("#relation")).to_have_attribute("data-relation", "blocked")

        bob_page.goto(f"{base}/matches/{match_id}")
        bob_page.fill("#chat-text", "can you read me?")
        bob_page.locator(".chat-form button[type=submit]").click()
        expect(bob_page.locator("#flash")).to_contain_text("blocked you")
        alice_page.goto(f"{base}/matches/{match_id}")
        expect(alice_page.locator("#chat")).not_to_contain_text("can you read me?")

        bob_page.goto(f"{base}/")
        card = bob_page.locator("li", has=bob_page.locator("input[name=game][value=felsental]")).first
        card.locator("details summary").first.click()
        card.locator("input[name=invite]").first.fill(alice)
        card.get_by_role("button", name="Create match").click()
        expect(bob_page.locator("body")).to_contain_text("does not accept invitations from you")

        # Unblocked, Bob may write again.
        alice_page.goto(f"{base}/friends")
        alice_page.locator(f"#blocked li[data-name='{bob}']").get_by_role("button", name="Unblock").click()
        bob_page.goto(f"{base}/matches/{match_id}")
        bob_page.fill("#chat-text", "hello again")
        bob_page.locator(".chat-form button[type=submit]").click()
        expect(bob_page.locator("#chat")).to_contain_text("hello again")
    finally:
        for context in contexts:
            context.close()


def _play_out(studio: Studio, game: str, users: list[User], *, resign_after: int | None = None) -> int:
    """A match of ``game`` played with random legal moves to its end (or, ``resign_after``
    decisions in, resigned by the seat to act: Drachenland's random games run ~1,800 decisions)."""
    match_id = studio.match(game, users)
    left = studio.play(match_id, users, resign_after or FINISH)
    if resign_after is not None and left is not None:
        left.post(f"/api/matches/{match_id}/resign", {})
    else:
        assert left is None, f"{game} did not end"
    return match_id


def test_statistics_head_to_head_and_search_after_matches_of_all_three_games(
    browser: Any, server: Server
) -> None:
    from playwright.sync_api import expect

    base = server.base_url
    studio = Studio(base, seed=3)
    ada, ben = studio.users("ada", "ben")
    finished = {game: _play_out(studio, game, [ada, ben]) for game in ("draco", "felsental")}
    finished["drachenland"] = _play_out(studio, "drachenland", [ada, ben], resign_after=30)
    second_draco = _play_out(studio, "draco", [ben, ada])
    context = _context(browser, PHONE)
    try:
        from tests.browser.pages import log_in

        log_in(context, base, ben.name)
        page = context.new_page()
        page.goto(f"{base}/people")
        page.fill("#people-q", ada.name[:-1].upper())
        page.locator("form[role=search] button[type=submit]").click()
        row = page.locator(f"#people tr[data-name='{ada.name}']")
        expect(row).to_contain_text("Draco")
        row.get_by_role("link", name=ada.name).click()

        page.wait_for_url(f"{base}/users/{ada.name}")
        for game in finished:
            section = page.locator(f".game-stats[data-game='{game}']")
            expect(section.locator("[data-figure=played]")).to_have_text("2" if game == "draco" else "1")
            expect(section.locator("[data-figure=rating]")).not_to_have_text("—")
        # The rating graph: a point per rated match, each a link to its replay.
        expect(page.locator("#rating-graph-draco circle.dot")).to_have_count(2)
        expect(page.locator(f"#rating-graph-draco a[href='/matches/{second_draco}/replay']")).to_have_count(1)
        stats = page.request.get(f"{base}/api/users/{ada.name}/stats").json()
        assert {g["game"] for g in stats["games"]} == set(finished)
        # Ranked better than Ben (a shared first place is a draw between the two).
        versus = page.request.get(f"{base}/api/users/{ada.name}/versus/{ben.name}").json()
        assert versus["played"] == 4 and versus["won"] + versus["lost"] + versus["drawn"] == 4
        won = versus["won"]

        # Head-to-head from the favourite opponents.
        page.locator(".game-stats[data-game='draco'] .opponents a", has_text=ben.name).click()
        page.wait_for_url(f"{base}/users/{ada.name}/versus/{ben.name}")
        expect(page.locator("#versus-score .won strong")).to_have_text(str(won))
        expect(page.locator("#versus-matches li")).to_have_count(4)
        for match_id in [*finished.values(), second_draco]:
            expect(page.locator(f"#versus-matches li[data-match='{match_id}']")).to_be_visible()

        page.goto(f"{base}/games/draco/stats")
        expect(page.locator(".table-size[data-players='2'] .summit tbody tr").first).to_be_visible()
    finally:
        context.close()


@pytest.mark.parametrize("locale", ["de-DE", "en-US"])
def test_the_social_pages_have_no_serious_accessibility_violations(
    browser: Any, server: Server, locale: str
) -> None:
    from tests.browser.pages import log_in
    from tests.browser.test_accessibility import AXE, RUN_AXE, SERIOUS, _axe_missing

    missing = _axe_missing()
    if missing:
        pytest.fail(missing)
    base = server.base_url
    studio = Studio(base, seed=5)
    eva, finn, gert = studio.users("eva", "finn", "gert")
    eva.post(f"/api/me/friends/{finn.name}", {})
    finn.post(f"/api/me/friends/{eva.name}", {})
    gert.post(f"/api/me/friends/{eva.name}", {})
    for loser in (finn, eva):  # two rated matches: the rating graph has a line
        match_id = studio.match("felsental", [eva, finn])
        loser.post(f"/api/matches/{match_id}/resign", {})
    context = browser.new_context(locale=locale, viewport={"width": 1366, "height": 900}, bypass_csp=True)
    try:
        log_in(context, base, eva.name, locale[:2])
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        for path in (
            "/friends",
            f"/users/{finn.name}",
            f"/users/{eva.name}",
            f"/users/{eva.name}/versus/{finn.name}",
            f"/people?q={eva.name[:3]}",
            "/games/felsental/stats",
        ):
            page.goto(f"{base}{path}")
            page.wait_for_load_state("load")
            page.add_script_tag(path=str(AXE))
            found = [v for v in page.evaluate(RUN_AXE) if v["impact"] in SERIOUS]
            assert not found, (
                path + "\n" + "\n".join(f"{v['impact']} {v['id']}: {v['help']} {v['nodes']}" for v in found)
            )
    finally:
        context.close()
