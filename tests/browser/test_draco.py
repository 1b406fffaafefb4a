"""Three people play Draco in three browsers: circles and cards, keep/take, undo, confirm, discard, replay.

No seed can be fixed, so the test steers the game by choosing moves: it reads the offered moves
from the page's ``data-move`` attributes and the state from the JSON API (each context's own
view), and plays by clicking. The long middle of the game (a dragon must climb 27 spaces before
summit cards can be discarded) is played over the JSON API from the same browser contexts, while
the three pages follow live.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from tests.browser.pages import MatchPlayer, register
from tests.support.client import request_id
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000
MAX_TURNS = 150
MAX_MATCHES = 5
"""Deals tried for a summit card in hand before the game ends (one almost always has it)."""
"""Fast-forwarded turns before the summit discard; the steering reaches it in about 25-90."""


class Player(MatchPlayer):
    """One browser context on the match page, with its API view and its CSRF token."""

    def __init__(self, page: Any, base: str) -> None:
        super().__init__(page, base)
        self.csrf = ""

    def click(self, selector: str) -> None:
        """Click a move or action on the page and wait for the board to be swapped."""
        before = self.version()
        self.page.locator(selector).first.click()
        self.board_changed(before)

    def post(self, path: str, version: int, move: str | None = None) -> dict[str, Any]:
        """A decision over the JSON API, from this browser context (its cookie, its CSRF token)."""
        body: dict[str, Any] = {"expected_version": version, "request_id": request_id()}
        if move is not None:
            body["move"] = move
        response = self.page.request.post(
            f"{self.base}/api/matches/{self.match_id}/{path}", data=body, headers={"X-CSRF-Token": self.csrf}
        )
        assert response.ok, response.text()
        data: dict[str, Any] = response.json()
        return data

    def hand(self) -> Counter[str]:
        names = self.page.locator(".draco-cards .dcard .card-name").all_inner_texts()
        values = self.page.locator(".draco-cards .dcard .card-value").all_inner_texts()
        return Counter(f"{name} {value}" for name, value in zip(names, values, strict=True))

    def log(self) -> str:
        return str(self.page.locator(".log-list").inner_text())


def fast_forward_to_a_summit_card(players: list[Player]) -> Player | None:
    """Play over the JSON API until a turn starts where the card to play leaves a summit card in
    hand (and does not end the game); that player, or None when the match ends first."""
    for _turn in range(MAX_TURNS * 3):
        seen = players[0].state()
        if seen["status"] == "finished":
            return None
        active = players[seen["to_act"][0]]
        current = seen if active is players[0] else active.state()
        hand = current["view"]["hand"] or []
        move = steer(current["view"], current["legal"])
        if current["view"]["phase"] == "play" and move.startswith("play:"):
            # The card the page will play must leave a summit card to discard, and must not be
            # the third arrival on the summit (that ends the game: nothing is discarded then).
            rest = list(hand)
            rest.remove(next(c for c in hand if c["play"] == move))
            if any(c["summit"] for c in rest) and not ends_game(current["view"], move):
                return active
        if move == "confirm":
            active.post("confirm", current["version"])
        else:
            active.post("moves", current["version"], move)
    raise AssertionError(f"the match did not end in {MAX_TURNS * 3} decisions")


def new_match(players: list[Player], names: list[str]) -> None:
    """A new three-player Draco match over the API, in the same seat order; every player's
    ``match_id`` points at it."""
    creator = players[0]
    body = {"game": "draco", "seats": 3, "invite": names[1:], "fixed_order": True}
    created = creator.page.request.post(
        f"{creator.base}/api/matches", data=body, headers={"X-CSRF-Token": creator.csrf}
    )
    assert created.ok, created.text()
    match_id = int(created.json()["id"])
    for p in players[1:]:
        joined = p.page.request.post(
            f"{p.base}/api/matches/{match_id}/join", data={}, headers={"X-CSRF-Token": p.csrf}
        )
        assert joined.ok, joined.text()
    for p in players:
        p.match_id = match_id


def dragon_of(move: str) -> str:
    return move.split(":")[1]


def ends_game(view: dict[str, Any], move: str) -> bool:
    """Whether playing ``move`` brings a third dragon to the summit (the game ends at once)."""
    summit = {d["id"] for d in view["dragons"] if d["summit"]}
    target = next(c["target"] for c in view["hand"] if c["play"] == move)
    red = view["track"][target]["kind"] == "red"
    return len(summit) >= 2 and red and dragon_of(move) not in summit


def steer(view: dict[str, Any], legal: list[str]) -> str:
    """The next decision: push the leading dragon up; once one stands on the summit, keep its cards
    (to discard them) and climb slowly (the third summit arrival would end the game)."""
    if "mount:keep" in legal:
        return "mount:keep"
    plays = [m for m in legal if m.startswith("play:")]
    if not plays:
        return "confirm"
    position = {d["id"]: d["space"] for d in view["dragons"]}
    summit = {d["id"] for d in view["dragons"] if d["summit"]}
    targets = {c["play"]: c["target"] for c in view["hand"] if c["play"]}

    def rank(move: str) -> tuple[Any, ...]:
        dragon, value = dragon_of(move), int(move.split(":")[2])
        if summit:
            return (not ends_game(view, move), dragon not in summit, -targets[move], move)
        return (dragon not in summit, position[dragon], value, move)

    return max(plays, key=rank)


def test_three_players_play_draco_in_the_browser(server: Server, browser: Any) -> None:
    # The server (and the database, made with asyncio.run) before Playwright starts its event loop.
    from playwright.sync_api import expect

    base = server.base_url
    contexts = [
        browser.new_context(locale="en-US", viewport={"width": 1280, "height": 900}) for _ in range(3)
    ]
    try:
        pages = [c.new_page() for c in contexts]
        errors: list[str] = []
        for page in pages:
            page.set_default_timeout(TIMEOUT_MS)
            page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        names = [register(page, base) for page in pages]
        alice, bob, carol = (Player(p, base) for p in pages)

        # Alice opens a three-player match in the lobby (fixed order: she moves first); the others join.
        alice.page.goto(f"{base}/")
        card = alice.page.locator("#game-draco")
        card.locator("summary").click()
        card.locator("select[name=seats]").select_option("3")
        card.locator("input[name=fixed_order]").check()
        card.locator("button[type=submit]").click()
        alice.page.wait_for_url(re.compile(r"/matches/\d+$"))
        match_url = alice.page.url
        match_id = int(match_url.rsplit("/", 1)[1])
        for p in (bob, carol):
            p.page.goto(f"{base}/")
            p.page.locator(f"#open-matches a[href='/matches/{match_id}']").locator("..").locator(
                "button", has_text="Join"
            ).click()
            p.page.wait_for_url(match_url)
        players = [alice, bob, carol]
        for p in players:
            p.match_id = match_id
        expect(alice.page.locator(".turn-status")).to_contain_text("Your turn!")
        expect(alice.page.locator(".draco-players .draco-player")).to_have_count(3)

        # Every dragon stands on the start, so playing a free dragon offers keep/take. A free dragon's
        # target circle first, then Undo.
        state = alice.state()
        ridden = {p["dragon"] for p in state["view"]["players"]}
        hand_moves = alice.page.locator(".draco-cards [data-move]")
        offered = [hand_moves.nth(i).get_attribute("data-move") for i in range(hand_moves.count())]
        assert sorted(set(offered)) == sorted(state["legal"])
        free = [m for m in state["legal"] if dragon_of(m) not in ridden]
        assert free, "three riders, seven free dragons: a hand of six holds one"
        circle = f".draco .target.legal[data-move='{free[0]}']"
        expect(alice.page.locator(circle)).to_have_count(1)
        alice.click(circle)
        expect(alice.page.locator(".draco-choice .choice")).to_have_count(2)
        expect(alice.page.locator(".log-entry.pending")).not_to_have_count(0)
        expect(alice.page.locator(".draco-cards .dcard")).to_have_count(5)
        alice.click("[data-match-action=undo]")
        expect(alice.page.locator(".draco-choice")).to_have_count(0)
        expect(alice.page.locator(".log-entry.pending")).to_have_count(0)
        expect(alice.page.locator(".draco-cards .dcard.play")).to_have_count(6)

        # Now the hand card of a free dragon that lands on a plain space (no scoring: the hand is
        # refilled at Confirm), and Take. A deal whose free dragons all reach a scoring space
        # (every free card a 3: rare) refills nothing at this Confirm.
        plain = {s["index"] for s in state["view"]["track"] if s["kind"] == "plain"}
        by_card = {c["play"]: c["target"] for c in state["view"]["hand"]}
        chosen = next((m for m in free if by_card[m] in plain), free[0])
        refills = by_card[chosen] in plain
        dragon = dragon_of(chosen)
        alice.click(f".draco-cards .dcard.play[data-move='{chosen}']")
        alice.click(".draco-choice .choice.take")
        dragon_name = dragon.capitalize() if dragon != "lightblue" else "Light blue"
        expect(alice.page.locator(".draco-player.me .rides")).to_contain_text(dragon_name)
        # The other pages do not see the pending decisions.
        expect(bob.page.locator(".log-entry")).to_have_count(0)

        reveals = 0

        def confirm(player: Player) -> None:
            """Confirm on the page: the drawn cards appear only now, and only on this page."""
            nonlocal reveals
            lines = {id(p): p.page.locator(".log-entry", has_text="You draw:").count() for p in players}
            before = player.hand()
            player.click("[data-match-action=confirm]")
            after = player.hand()
            drawn = after - before
            version = player.state()["version"]
            shown = player.page.locator(".log-entry", has_text="You draw:")
            expect(shown).to_have_count(lines[id(player)] + (1 if drawn else 0))
            if drawn:
                reveals += 1
                text = shown.first.inner_text()
                for name in drawn.elements():
                    assert name in text, (name, text)
            for other in players:
                if other is not player:
                    other.synced(version)
                    assert other.page.locator(".log-entry", has_text="You draw:").count() == lines[id(other)]
            assert sum(after.values()) <= 6

        confirm(alice)
        # Live: Bob's page says it is his turn; Carol's page shows the dragon on its new space.
        expect(bob.page.locator(".turn-status")).to_contain_text("Your turn!")
        expect(carol.page.locator(f".draco .dragon-{dragon}")).to_have_attribute(
            "aria-label", re.compile(rf"space {by_card[chosen]} ")
        )
        # The log names players ("Player 1 draws" from the rules becomes Alice's name).
        expect(carol.page.locator(".log-entry", has_text=f"{names[0]} draws")).to_have_count(int(refills))
        assert reveals == int(refills)

        # Bob plays by a target circle, Carol by a hand card (all through the pages), each confirming.
        for player, kind in ((bob, ".draco .target.legal"), (carol, ".draco-cards .dcard.play")):
            view = player.state()
            move = steer(view["view"], view["legal"])
            player.click(f"{kind}[data-move='{move}']")
            if player.page.locator(".draco-choice .choice.keep").count():
                player.click(".draco-choice .choice.keep")
            confirm(player)

        # Fast-forward over the JSON API until a turn starts with a summit card in hand. The pages
        # wait on a blank page meanwhile (their live updates were seen above) and come back after.
        for p in players:
            p.csrf = str(p.page.locator("body").get_attribute("data-csrf"))
            p.page.goto("about:blank")
        discarder: Player | None = None
        for _match in range(MAX_MATCHES):
            discarder = fast_forward_to_a_summit_card(players)
            if discarder is not None:
                break
            # This deal ended the game first (rare): the same three sit down at a new table.
            new_match(players, names)
        assert discarder is not None, f"no summit card in hand in {MAX_MATCHES} matches"
        for p in players:
            p.page.goto(f"{base}/matches/{p.match_id}")
        # The card is played on the page, then summit cards are offered: one click discards one.
        expect(discarder.page.locator(".turn-status")).to_contain_text("Your turn!")
        view = discarder.state()
        discarder.click(f".draco-cards .dcard.play[data-move='{steer(view['view'], view['legal'])}']")
        if discarder.page.locator(".draco-choice .choice.keep").count():
            discarder.click(".draco-choice .choice.keep")
        discard = discarder.state()
        offered_discards = discarder.page.locator(".draco-cards .dcard.discard")
        wanted = sorted(m for m in discard["legal"] if m.startswith("discard:"))
        assert wanted, "a summit card stayed in hand"
        assert (
            sorted(
                {offered_discards.nth(i).get_attribute("data-move") for i in range(offered_discards.count())}
            )
            == wanted
        )
        before = sum(discarder.hand().values())
        discarder.click(f".draco-cards .dcard.discard[data-move='{wanted[0]}']")
        expect(discarder.page.locator(".draco-cards .dcard")).to_have_count(before - 1)
        expect(discarder.page.locator(".log-entry.pending", has_text="discards")).not_to_have_count(0)
        confirm(discarder)

        for p in players:
            p.match_id = match_id
        # The replay: opened from the match page, arrow keys step through every decision.
        page = alice.page
        page.goto(match_url)
        page.locator(".match-links a", has_text="Replay").click()
        page.wait_for_url(re.compile(r"/replay"))
        steps_text = page.locator(".step-count").inner_text()
        last = int(re.search(r"of (\d+)", steps_text).group(1))  # type: ignore[union-attr]
        assert f"Step {last} of {last}" in steps_text
        page.keyboard.press("ArrowLeft")
        expect(page.locator(".step-count")).to_contain_text(f"Step {last - 1} of {last}")
        page.keyboard.press("Home")
        expect(page.locator(".step-count")).to_contain_text(f"Step 0 of {last}")
        expect(page.locator(f".draco .dragon-{dragon}")).to_have_attribute(
            "aria-label", re.compile(r"space 0 ")
        )
        page.keyboard.press("ArrowRight")
        expect(page.locator(".step-count")).to_contain_text(f"Step 1 of {last}")
        # A step reads as the log reads (issue 13.9): words, not the move notation.
        value = chosen.rsplit(":", 1)[1]
        expect(page.locator(".replay-step")).to_contain_text(re.compile(rf"plays [A-Z][a-z ]+ {value}: the "))
        expect(page.locator(f".draco .dragon-{dragon}")).to_have_attribute(
            "aria-label", re.compile(rf"space {by_card[chosen]} ")
        )
        page.keyboard.press("ArrowRight")
        expect(page.locator(".replay-step")).to_contain_text("takes the last-place dragon")
        expect(page.locator(".draco [data-move]")).to_have_count(0)
        assert [e for e in errors if "Content Security Policy" in e] == []
    finally:
        for context in contexts:
            context.close()
