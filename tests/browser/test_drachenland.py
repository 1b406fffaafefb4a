"""Two people play Drachenland in two browsers: roll, two figures, reveal, treasure, tile, undo, confirm.

The dice are random (seeded per match by the server), so the test steers: it reads the acting
seat's legal moves and view from the JSON API to decide, and makes every decision by clicking
(or pressing Enter on) an element of the page that carries the move in ``data-move``, or the
Undo/Confirm buttons. It plays turns until each required action has happened at least once and
checks each one's visible effect on the acting page and, live, on the other player's page.
Then the pages' basics: the board fits a 390 px wide screen, the player panels' icons stay small.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.games.drachenland.places import from_to, place, title
from tests.browser.pages import MatchPlayer, register, settled_box
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000
MAX_TURNS = 10
"""Turns played at most; the start round (two turns) and one normal turn per player usually suffice."""
MAX_DECISIONS = 30
"""Decisions in one turn at most (a turn takes about ten)."""
ICON_MAX_PX = 40
GOALS = (
    "roll",
    "two_figures",
    "figure_clicked",
    "reveal",
    "treasure",
    "tile",
    "undo",
    "confirm",
    "both_rolled",
)
TILE_MOVES = ("reroll", "quick", "hand", "boat:")


class Player(MatchPlayer):
    """One browser context on the match page, with its API view and its seat."""

    def __init__(self, page: Any, base: str, name: str) -> None:
        super().__init__(page, base, name)
        self.seat = -1

    def activate(self, selector: str, keyboard: bool = False) -> dict[str, Any]:
        """Click (or focus and press Enter on) a move or action; wait for the fresh board.

        Returns the acting seat's JSON state after the decision, which the page then shows.
        """
        before = self.version()
        target = self.page.locator(selector).first
        if keyboard:
            target.focus()
            self.page.keyboard.press("Enter")
        else:
            covered = self.covered(target)
            assert covered is None, f"a click on {selector} lands on {covered}"
            target.click()
        self.board_changed(before)
        # The answer is the acting page's new board (no live refresh follows it).
        state = self.state()
        self.synced(state["version"])
        return state

    def covered(self, target: Any) -> str | None:
        """What a click at the element's middle lands on when that is not the element itself.

        Looked at again once the page has stopped moving when the first look finds something
        else there (a live push or a move's animation may still be under way): a person aims
        at a still page, and a control covered for good stays covered."""
        target.scroll_into_view_if_needed()
        covered = self.under_middle(target, target.bounding_box())
        if covered is not None:
            covered = self.under_middle(target, settled_box(self.page, target))
        return covered

    @staticmethod
    def under_middle(target: Any, box: dict[str, float] | None) -> str | None:
        assert box is not None, "the control is not on the page"
        at: str | None = target.evaluate(
            """(el, [x, y]) => { const at = document.elementFromPoint(x, y);
                       if (at !== null && el.contains(at)) return null;
                       return at === null ? 'nothing' : at.outerHTML.slice(0, 120); }""",
            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
        )
        return at

    def move(self, move: str, keyboard: bool = False) -> dict[str, Any]:
        return self.activate(f"#match-area [data-move='{move}']", keyboard)

    def figure(self, colour: str, seat: int | None = None) -> Any:
        return self.page.locator(
            f".dl-board [data-piece='fig-{self.seat if seat is None else seat}-{colour}']"
        )

    def log(self, text: str | re.Pattern[str]) -> Any:
        return self.page.locator(".log-entry", has_text=text)

    def panel(self) -> Any:
        return self.page.locator(".dl-player.dl-mine")


def figures_of(view: dict[str, Any], seat: int) -> dict[str, str]:
    """Colour -> node of the seat's figures on the board."""
    return {f["colour"]: f["node"] for f in view["figures"] if f["seat"] == seat}


def target_rank(view: dict[str, Any], move: str) -> tuple[int, str]:
    """Walk targets, best first: a face-down volcano (reveals), a volcano with treasure, any volcano."""
    node = move.split(":")[-1]
    volcano = next((v for v in view["volcanoes"] if v["id"] == node), None)
    if volcano is None:
        return (0, move)
    if volcano["face_down"]:
        return (3, move)
    treasure = volcano["eggs"] or volcano["gems"]["clear"] or volcano["gems"][view["active"]]
    return (2 if treasure else 1, move)


def steer(view: dict[str, Any], legal: list[str], seat: int, done: set[str]) -> str:
    """The next decision of the acting seat (``confirm`` at the end of the turn)."""
    phase = view["phase"]
    if phase == "roll":
        return "roll"
    if phase == "start":
        return "choose:red"
    if phase == "choose1":
        if "reroll" in legal and "tile" not in done:
            return "reroll"
        on_board = figures_of(view, seat)
        choices = [m for m in legal if m.startswith("choose:")]
        # A figure off the board enters first with die A, so that a figure on the board is left
        # for die B (2-4 steps reach the next volcano more often), chosen by clicking it.
        return max(choices, key=lambda m: (m.split(":")[1] not in on_board, m.endswith(":a"), m))
    if phase == "choose2":
        on_board = figures_of(view, seat)
        return max(legal, key=lambda m: (m.split(":")[1] in on_board, m))
    if phase == "move":
        tiles = [m for m in legal if m.startswith(("quick", "boat:")) and "tile" not in done]
        if tiles:
            return tiles[0]
        walks = [m for m in legal if m.startswith("move:")]
        if walks:
            return max(walks, key=lambda m: target_rank(view, m))
        return "end"
    if phase == "treasure":
        for take in ("egg", "gems", "clear", "ring"):
            if take in legal:
                return take
        if "hand" in legal and "tile" not in done:
            return "hand"
        return "pass"
    assert phase == "done", (phase, legal)
    return "confirm"


def test_two_players_play_drachenland_in_the_browser(server: Server, browser: Any) -> None:
    # The server (and the database, made with asyncio.run) before Playwright starts its event loop.
    from playwright.sync_api import expect

    base = server.base_url
    contexts = [
        browser.new_context(locale="en-US", viewport={"width": 1280, "height": 900}) for _ in range(2)
    ]
    try:
        pages = [c.new_page() for c in contexts]
        errors: list[str] = []
        players = []
        for page in pages:
            page.set_default_timeout(TIMEOUT_MS)
            page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
            players.append(Player(page, base, register(page, base)))
        alice, bob = players

        # Alice opens a two-player match in the lobby (fixed seat order); Bob joins from the lobby.
        alice.page.goto(f"{base}/")
        card = alice.page.locator("#game-drachenland")
        card.locator("summary").click()
        card.locator("select[name=seats]").select_option("2")
        card.locator("input[name=fixed_order]").check()
        card.locator("button[type=submit]").click()
        alice.page.wait_for_url(re.compile(r"/matches/\d+$"))
        match_url = alice.page.url
        match_id = int(match_url.rsplit("/", 1)[1])
        bob.page.goto(f"{base}/")
        bob.page.locator(f"#open-matches a[href='/matches/{match_id}']").locator("..").locator(
            "button", has_text="Join"
        ).click()
        bob.page.wait_for_url(match_url)
        for seat, p in enumerate(players):
            p.match_id = match_id
            p.seat = seat
            p.synced(p.state()["version"])  # Alice's page: the match started, live
            assert p.state()["viewer_seat"] == seat
        for p in players:
            expect(p.page.locator(".dl .dl-board")).to_be_visible()
            expect(p.page.locator(".dl-player")).to_have_count(2)
            expect(p.page.locator(".dl-player", has_text=p.name).locator(".dl-tile-btn")).to_have_count(3)

        done: set[str] = set()
        turns = 0
        while not done.issuperset(GOALS):
            assert turns < MAX_TURNS, f"after {turns} turns still missing: {sorted(set(GOALS) - done)}"
            turns += 1
            state = alice.state()
            assert state["status"] == "active", state["status"]
            actor = players[state["to_act"][0]]
            other = bob if actor is alice else alice
            expect(actor.page.locator(".turn-status")).to_contain_text("Your turn!")
            expect(other.page.locator(".turn-status")).to_contain_text(f"Waiting for {actor.name}")
            play_turn(actor, other, done, keyboard=turns == 1)

        # Both pages show what the API says: every figure where it stands, the face-down tiles.
        for p in players:
            view = p.state()["view"]
            for f in view["figures"]:
                expect(p.page.locator(f".dl-board [data-piece='{f['id']}']")).to_have_attribute(
                    "aria-label", re.compile(re.escape(f"({title(f['node'], 'en')})"))
                )
            shown = p.page.locator(".dl-board .dl-volcano.dl-hidden-tile")
            expect(shown).to_have_count(sum(v["face_down"] for v in view["volcanoes"]))

        check_layout(alice.page, expect)
        # A phone: 390 px wide, the same match page (Bob's session).
        phone = contexts[1].new_page()
        phone.set_default_timeout(TIMEOUT_MS)
        phone.set_viewport_size({"width": 390, "height": 844})
        phone.goto(match_url)
        check_layout(phone, expect)
        phone.close()
        assert [e for e in errors if "Content Security Policy" in e] == []
    finally:
        for context in contexts:
            context.close()


def play_turn(actor: Player, other: Player, done: set[str], keyboard: bool) -> None:
    """One whole turn of ``actor`` through its page, checked on both pages; ends with Confirm."""
    from playwright.sync_api import expect

    page = actor.page
    undo = page.locator("[data-match-action=undo]")
    confirm = page.locator("[data-match-action=confirm]")
    state = actor.state()
    start = figures_of(state["view"], actor.seat)
    expect(undo).to_be_disabled()
    walked: set[str] = set()
    for _ in range(MAX_DECISIONS):
        view, legal = state["view"], state["legal"]
        move = steer(view, legal, actor.seat, done)
        if move == "confirm":
            break
        if view["phase"] == "choose1" and move.startswith("choose:") and "undo" not in done:
            demonstrate_undo(actor, other, state, move)
            done.add("undo")
        if move == "roll":
            rolls = actor.log(f"{actor.name} rolls").count()
            state = actor.move(move)
            dice = state["view"]["dice"]
            expect(actor.log(f"{actor.name} rolls")).to_have_count(rolls + 1)
            expect(actor.log(f"{actor.name} rolls").first).to_have_text(
                f"{actor.name} rolls {dice[0]} and {dice[1]}"
            )
            expect(page.locator(".dl-dice .dl-die-value")).to_have_text([str(d) for d in dice])
            expect(undo).to_be_disabled()  # the roll is final
            other.synced(state["version"])  # and public at once
            expect(other.page.locator(".dl-dice .dl-die-value")).to_have_text([str(d) for d in dice])
            done.add("roll")
            done.add(f"rolled-{actor.seat}")
            if {"rolled-0", "rolled-1"} <= done:
                done.add("both_rolled")
        elif move.startswith(TILE_MOVES):
            tiles_before = actor.panel().locator(".dl-tile-btn").count()
            seen = other.page.locator(".dl-player", has_text=actor.name).locator(".dl-t-reroll")
            rerolls = seen.count()
            state = actor.move(move)
            if move == "reroll":
                dice = state["view"]["dice"]
                expect(actor.log(f"{actor.name} rerolls {dice[0]} and {dice[1]}")).to_have_count(1)
                expect(page.locator(".dl-dice .dl-die-value")).to_have_text([str(d) for d in dice])
                other.synced(state["version"])  # a reroll draws from the dice: final and public
                expect(seen).to_have_count(rerolls - 1)  # tiles lie open: the other page shows it
            elif move.startswith("boat:"):
                expect(actor.log("the Boatman ferries")).not_to_have_count(0)
            else:
                expect(actor.log(f"{actor.name} plays")).not_to_have_count(0)
            expect(actor.panel().locator(".dl-tile-btn")).to_have_count(tiles_before - 1)
            done.add("tile")
        elif move.startswith("choose:"):
            colour = move.split(":")[1]
            if colour in start and page.locator(f".dl-board .dl-figure[data-move='{move}']").count():
                state = actor.activate(f".dl-board .dl-figure[data-move='{move}']")  # the figure itself
                expect(actor.figure(colour)).to_have_class(re.compile(r"\bdl-active\b"))
                done.add("figure_clicked")
            else:
                state = actor.move(move)  # the button (an off-board figure, or figure and die)
            expect(page.locator(".log-entry.pending", has_text=f"the {colour} figure")).not_to_have_count(0)
            expect(undo).to_be_enabled()
        elif move.startswith("move:"):
            node = move.split(":")[-1]
            colour = view["active"]
            origin = figures_of(view, actor.seat).get(colour)  # None: it enters from outside
            reveals = target_rank(view, move)[0] == 3
            state = actor.move(move, keyboard=keyboard)
            keyboard = False
            walked.add(colour)
            # The places by their names, never their ids.
            expect(actor.figure(colour)).to_have_attribute(
                "aria-label", re.compile(re.escape(f"({title(node, 'en')})"))
            )
            where = re.escape(from_to(origin, node, "en")) + "$" if origin else ""
            walk_line = re.compile(rf"{colour} figure walks \d+ spaces? {where}")
            expect(actor.log(walk_line)).not_to_have_count(0)
            if reveals:
                tile = next(v["tile"] for v in state["view"]["volcanoes"] if v["id"] == node)
                kings = [k for k, at in state["view"]["kings"].items() if at == node]
                line = actor.log(f"{place(node, 'en', 'on').capitalize()}, ")
                expect(line).to_have_count(1)
                expect(line).not_to_have_class(re.compile("pending"))  # a reveal is final
                volcano = page.locator(f".dl-board .dl-volcano[data-piece='{node}']")
                expect(volcano).not_to_have_class(re.compile("dl-hidden-tile"))
                assert tile is not None or kings, (node, state["view"])
                # Live on the other page: the tile (or the king dragon) and the figure on the volcano.
                other.synced(state["version"])
                seen = other.page.locator(f".dl-board .dl-volcano[data-piece='{node}']")
                expect(seen).not_to_have_class(re.compile("dl-hidden-tile"))
                if kings:  # drawn on the volcano's rim, above the figures (not inside its group)
                    king = other.page.locator(f".dl-board [data-piece='king-{kings[0]}']")
                    expect(king).to_have_attribute(
                        "aria-label", re.compile(re.escape(f"({title(node, 'en')})"))
                    )
                expect(other.figure(colour, actor.seat)).to_have_attribute(
                    "aria-label", re.compile(re.escape(f"({title(node, 'en')})"))
                )
                expect(undo).to_be_disabled()
                done.add("reveal")
        elif move in ("egg", "gems", "clear", "ring"):
            node = figures_of(view, actor.seat)[view["active"]]
            before = next(v for v in view["volcanoes"] if v["id"] == node)
            screen = actor.panel().locator(".dl-screen").inner_text()
            state = actor.move(move)
            after = next(v for v in state["view"]["volcanoes"] if v["id"] == node)
            expect(actor.log(place(node, "en", "on"))).not_to_have_count(0)
            if move != "ring":
                expect(actor.panel().locator(".dl-screen")).not_to_have_text(screen)
            if move == "egg":
                assert after["eggs"] == before["eggs"] - 1
                if before["tile"] is not None and before["tile"] != "RING":  # the egg brings the tile
                    expect(
                        actor.log(f"and the {before['tile'].replace('_', ' ').title()}")
                    ).not_to_have_count(0)
                    expect(actor.panel().locator(f".dl-t-{before['tile'].lower()}")).not_to_have_count(0)
                eggs = page.locator(f".dl-board .dl-volcano[data-piece='{node}'] .dl-egg")
                expect(eggs).to_have_count(after["eggs"])
                holdings = state["view"]["players"][actor.seat]["holdings"]
                eggs_text = "1 egg" if holdings["eggs"] == 1 else f"{holdings['eggs']} eggs"
                expect(actor.panel().locator(".dl-screen")).to_contain_text(eggs_text)
            elif move == "ring":
                expect(actor.figure(view["active"]).locator(".dl-ring")).to_have_count(1)
            else:
                assert after["gems"] != before["gems"]
            # Behind the screen: the other player never sees the holdings.
            assert other.state()["view"]["players"][actor.seat]["holdings"] is None
            screen_seen = other.page.locator(".dl-player", has_text=actor.name).locator(".dl-screen")
            expect(screen_seen).to_contain_text("hidden")
            done.add("treasure")
        else:  # end, pass
            state = actor.move(move)
    else:
        raise AssertionError(f"the turn did not end after {MAX_DECISIONS} decisions: {state}")

    moved = {c for c, node in figures_of(state["view"], actor.seat).items() if start.get(c) != node}
    if len(moved & walked) >= 2:
        done.add("two_figures")
    # Before Confirm the other page does not see pending decisions; Confirm makes them public.
    expect(other.page.locator(".log-entry.pending")).to_have_count(0)
    expect(confirm).to_be_enabled()
    lines = actor.page.locator(".log-entry").count()
    state = actor.activate("[data-match-action=confirm]")
    assert state["to_act"] == [other.seat], state["to_act"]
    expect(page.locator(".log-entry.pending")).to_have_count(0)
    expect(actor.log(f"{other.name} to play")).not_to_have_count(0)
    assert actor.page.locator(".log-entry").count() > lines
    expect(undo).to_be_disabled()
    expect(page.locator(".turn-status")).to_contain_text(f"Waiting for {other.name}")
    expect(other.page.locator(".turn-status")).to_contain_text("Your turn!")
    other.synced(other.state()["version"])
    for colour in moved:
        node = figures_of(state["view"], actor.seat)[colour]
        expect(other.figure(colour, actor.seat)).to_have_attribute(
            "aria-label", re.compile(re.escape(f"({title(node, 'en')})"))
        )
    expect(other.log(f"{other.name} to play")).not_to_have_count(0)
    done.add("confirm")


def demonstrate_undo(actor: Player, other: Player, state: dict[str, Any], choose: str) -> None:
    """Choose a figure and walk it, then undo both: back to the dice, and no further."""
    from playwright.sync_api import expect

    page = actor.page
    undo = page.locator("[data-match-action=undo]")
    dice = [str(d) for d in state["view"]["dice"]]
    rolled = page.locator(".log-entry", has_text=re.compile(r"\brolls\b|\brerolls\b")).count()
    committed = state["version"]
    colour = choose.split(":")[1]
    before = figures_of(state["view"], actor.seat).get(colour)
    expect(undo).to_be_disabled()

    chosen = actor.move(choose)
    assert chosen["can_undo"]
    expect(undo).to_be_enabled()
    expect(page.locator(".log-entry.pending")).to_have_count(1)
    view = chosen["view"]
    # A walk that reveals nothing stays pending (a reveal would be final): walk, then undo it.
    quiet = [m for m in chosen["legal"] if m.startswith("move:") and target_rank(view, m)[0] < 3]
    if view["phase"] == "move" and quiet:
        walk = min(quiet, key=lambda m: target_rank(view, m))
        node = walk.split(":")[-1]
        walked = actor.move(walk)
        assert walked["can_undo"], walked
        expect(actor.figure(colour)).to_have_attribute(
            "aria-label", re.compile(re.escape(f"({title(node, 'en')})"))
        )
        expect(page.locator(".log-entry.pending", has_text="walks")).to_have_count(1)
        undone = actor.activate("[data-match-action=undo]")
        assert figures_of(undone["view"], actor.seat).get(colour) == before
        if before is None:
            expect(actor.figure(colour)).to_have_count(0)
        else:
            expect(actor.figure(colour)).to_have_attribute(
                "aria-label", re.compile(re.escape(f"({title(before, 'en')})"))
            )
        expect(page.locator(".log-entry.pending", has_text="walks")).to_have_count(0)
    # The other page saw none of it.
    assert other.version() == str(committed), (other.version(), committed)
    expect(other.page.locator(".log-entry.pending")).to_have_count(0)

    back = actor.activate("[data-match-action=undo]")
    assert back["view"]["phase"] == "choose1", back["view"]["phase"]
    assert back["view"]["dice"] == state["view"]["dice"]
    assert not back["can_undo"]
    expect(page.locator(".log-entry.pending")).to_have_count(0)
    # Not past the roll: the dice stay, and the button is off (the server offers no more undo).
    expect(undo).to_be_disabled()
    expect(page.locator(".dl-dice .dl-die-value")).to_have_text(dice)
    expect(page.locator(".log-entry", has_text=re.compile(r"\brolls\b|\brerolls\b"))).to_have_count(rolled)
    expect(page.locator(".dl-turn [data-move^='choose:']")).not_to_have_count(0)


def check_layout(page: Any, expect: Any) -> None:
    """The board's frame is fully visible without horizontal page scrolling (on a phone the board
    is drawn wider than the frame and pans inside it, so that its labels can be read); the panels'
    icons stay small."""
    expect(page.locator(".dl-board")).to_be_visible()
    # Measured in one go: a live refresh may replace the area between two separate reads.
    m = page.evaluate(
        """() => {
            const box = el => { const r = el.getBoundingClientRect();
                                return {x: r.x, y: r.y, width: r.width, height: r.height}; };
            return {
                width: window.innerWidth,
                scroll: document.documentElement.scrollWidth,
                board: box(document.querySelector(".dl-stage")),
                icons: Array.from(document.querySelectorAll(".dl-panel svg"), box),
            };
        }"""
    )
    width, board = m["width"], m["board"]
    assert m["scroll"] <= width, f"horizontal scrolling: {m['scroll']} px of content in {width} px"
    assert board["x"] >= 0 and board["x"] + board["width"] <= width, (board, width)
    assert board["width"] >= 0.8 * min(width, 600) and board["height"] > 0.5 * board["width"], board
    assert len(m["icons"]) >= 2, m["icons"]
    for icon in m["icons"]:
        assert 0 < icon["width"] <= ICON_MAX_PX and 0 < icon["height"] <= ICON_MAX_PX, icon
