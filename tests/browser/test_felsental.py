"""Two people play Duell im Felsental in two browsers: a dragon turn, a dwarf turn and an attack
answered through the defence prompt in the other browser; one browser is a 390 px phone.

Hands are random (the server seeds each match) and so is the dragon's seat, so the test steers:
it reads each player's own state from the JSON API (``legal`` and ``view``) to choose a move,
and takes every decision on the page, by clicking an element's ``data-move`` (or pressing Tab
and Enter on the phone) or the Confirm button; it never posts a decision itself. Both sides
close in on each other until attacks happen. At the first attack the defender blocks with a
defence card if it holds one (most starting hands do); later attacks are taken, and the test
goes on until wounds have landed, so a run normally sees both answers of the prompt.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.games.felsental.board import NEIGHBOURS, distance
from tests.browser.pages import MatchPlayer, register
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000
MAX_DECISIONS = 120
"""Decisions (clicks) before giving up; the goals are usually met within 15-40."""
MAX_TABS = 60
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
SCALES = 4
DWARF_WORD = {"warrior": "the warrior", "crossbowman": "the crossbowman", "trapper": "the trapper"}
ROLE_WORD = {"dragon": "The dragon", "dwarves": "The dwarves"}


class Player(MatchPlayer):
    """One browser context on the match page, with its own API view."""

    def synced(self, version: int) -> None:
        """Wait until the page shows ``version`` (a live push, no reload)."""
        self.page.wait_for_function(
            "v => document.getElementById('match-area')?.getAttribute('data-version') === v", arg=str(version)
        )

    def decide(self, selector: str, *, keyboard: bool = False) -> dict[str, Any]:
        """Take a decision on the page (a click, or Tab and Enter) and wait for its board."""
        before = self.version()
        if keyboard:
            self.tab_to(selector)
            self.page.keyboard.press("Enter")
        else:
            self.page.locator(selector).first.click()
        self.board_changed(before)
        # The answer is the acting page's new board (no live refresh follows it).
        after = self.state()
        self.synced(after["version"])
        return after

    def tab_to(self, selector: str) -> None:
        """Reach the element with Tab only, starting from the links above the board."""
        self.page.locator(".match-links a").last.focus()
        for _ in range(MAX_TABS):
            self.page.keyboard.press("Tab")
            if self.page.evaluate("s => !!document.activeElement?.matches(s)", selector):
                return
        raise AssertionError(f"{selector} cannot be reached with Tab")

    def log(self, text: str) -> Any:
        return self.page.locator("#match-area .log-entry:not(.pending)", has_text=text)

    def track(self, selector: str) -> str:
        return str(self.page.locator(f"#match-area {selector} .track-count").inner_text())


def role_of(state: dict[str, Any]) -> str:
    return str(state["view"]["viewer_role"])


def option_of(move: str) -> str:
    return move.split(":")[2]


def card_value(view: dict[str, Any], move: str) -> int:
    _, card, opt = move.split(":")
    for c in view["hand"]:
        if c["id"] == card:
            return int(next(o["value"] for o in c["options"] if o["opt"] == opt))
    raise AssertionError(f"{card} is not in the hand")


def living(view: dict[str, Any]) -> dict[str, str]:
    """Dwarf name -> hex, for the dwarves on the board."""
    return {d["name"]: d["hex"] for d in view["dwarves"] if d["hex"]}


def adjacent(view: dict[str, Any]) -> list[str]:
    near = NEIGHBOURS[view["dragon"]["hex"]]
    return [name for name, hex_id in living(view).items() if hex_id in near]


def track_lost(view: dict[str, Any], track: str) -> bool:
    return bool(next(t["lost"] for t in view["dragon"]["tracks"] if t["track"] == track))


def fire_hits(view: dict[str, Any], direction: str) -> int:
    occupied = set(living(view).values())
    return sum(1 for h in view["fire_lines"][direction] if h in occupied)


def steer(view: dict[str, Any], legal: list[str]) -> str:
    """The next decision of the player to act (not a defence): close in and attack."""
    if "confirm" in legal and view["actions"] == 0:
        return "confirm"
    for prefix in ("wound:", "discard:"):
        forced = [m for m in legal if m.startswith(prefix)]
        if forced:
            return forced[0]
    dragon = view["dragon"]["hex"]
    dwarves = living(view)
    if view["play"] is not None:
        return _target(view, legal, dragon, dwarves)
    plays = [m for m in legal if m.startswith("play:")]
    near = adjacent(view)
    if view["viewer_role"] == "dragon":
        attacks = [m for m in plays if option_of(m) == "bite" and near]
        if not track_lost(view, "fire") and any(fire_hits(view, str(d)) for d in range(6)):
            attacks += [m for m in plays if option_of(m) == "fire"]
        walks = []
        if not near and not view["netted"]:
            walks = [m for m in plays if option_of(m) == "move" and not track_lost(view, "movement")]
            walks += [m for m in plays if option_of(m) == "fly" and not track_lost(view, "flight")]
    else:
        attacks = [m for m in plays if option_of(m) in ("attack1", "attack2") and near]
        if view["crossbow_row"] is not None:
            attacks += [m for m in plays if option_of(m) == "crossbow"]
        far = [d for d in dwarves if d not in near]
        walks = [m for m in plays if option_of(m) in ("move1", "move2")] if far else []
    if attacks:
        return max(attacks, key=lambda m: (card_value(view, m), m))
    if walks:
        return walks[0]
    if "draw" in legal:
        return "draw"
    harmless = [m for m in plays if option_of(m) not in ("net",)]
    return (harmless or plays or legal)[0]


def _target(view: dict[str, Any], legal: list[str], dragon: str, dwarves: dict[str, str]) -> str:
    """The target of the card being played."""
    targets = [m for m in legal if m.startswith("target:")]
    if targets:
        return targets[0]
    directions = [m for m in legal if m.startswith("dir:")]
    if directions:
        return max(directions, key=lambda m: (fire_hits(view, m.split(":")[1]), m))
    steps = [m for m in legal if m.startswith("to:")]
    if steps and view["viewer_role"] == "dragon":
        return min(steps, key=lambda m: (min(distance(m[3:], h) for h in dwarves.values()), m))
    if steps:
        return min(steps, key=lambda m: (distance(m[3:], dragon), m))
    picks = [m for m in legal if m.startswith("dwarf:")]
    if view["play"]["option"] in ("attack1", "attack2"):
        return picks[0] if picks else "attack"
    walkers = [m for m in picks if distance(dwarves[m[6:]], dragon) > 1]
    if walkers:
        return min(walkers, key=lambda m: (distance(dwarves[m[6:]], dragon), m))
    return "done" if "done" in legal else legal[0]


def test_dragon_and_dwarves_play_a_turn_each_with_an_attack_and_a_defence(
    server: Server, browser: Any
) -> None:
    # The server (and the database, made with asyncio.run) before Playwright starts its event loop.
    from playwright.sync_api import expect

    base = server.base_url
    contexts = [
        browser.new_context(locale="en-US", viewport=DESKTOP),
        browser.new_context(locale="en-US", viewport=PHONE),
    ]
    try:
        errors: list[str] = []
        players = []
        for context in contexts:
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
            players.append(Player(page, base, register(page, base)))
        alice, bob = players  # Bob is on the phone.

        # Alice opens a match in the lobby (fixed order: she sits first); Bob joins from his phone.
        alice.page.goto(f"{base}/")
        card = alice.page.locator("#game-felsental")
        card.locator("summary").click()
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
        for p in players:
            p.match_id = match_id

        # The server drew the dragon's seat; the dragon opens. Both pages show the start position.
        states = [p.state() for p in players]
        assert [s["viewer_seat"] for s in states] == [0, 1]
        dragon_seat = states[0]["view"]["dragon_seat"]
        assert {role_of(s) for s in states} == {"dragon", "dwarves"}
        assert states[dragon_seat]["to_act"] == [dragon_seat]
        assert states[dragon_seat]["view"]["actions"] == 1
        for p, s in zip(players, states, strict=True):
            p.synced(s["version"])
            status = "Your turn!" if s["viewer_seat"] == dragon_seat else "Waiting for"
            expect(p.page.locator(".turn-status")).to_contain_text(status)
            expect(p.page.locator(".fels .figure.dragon")).to_have_attribute("aria-label", "Dragon C3")
            expect(p.page.locator(".fels-valley .figure.dwarf")).to_have_count(3)
            expect(p.page.locator(".fels-hand .fcard")).to_have_count(4)
            # Only the player to act gets clickable moves, and they are exactly the legal ones.
            offered = p.page.locator("#match-area [data-move]")
            moves = {offered.nth(i).get_attribute("data-move") for i in range(offered.count())}
            assert moves == {m for m in s["legal"] if m != "confirm"}, (moves, s["legal"])

        def phone_fits() -> None:
            """At 390 px the whole valley is on screen and nothing scrolls sideways."""
            widths = bob.page.evaluate(
                "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            )
            assert widths[0] <= widths[1] == PHONE["width"], widths
            valley = bob.page.locator(".fels-valley")
            expect(valley).to_be_visible()
            box = valley.bounding_box()
            assert box is not None and box["width"] > 200, box
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box

        phone_fits()

        confirmed = {"dragon": 0, "dwarves": 0}
        answers: list[str] = []  # per defence: "block" and/or "accept"
        wounds_landed = False
        keyboard_moves = 0
        trace: list[str] = []  # who decided what: printed, so a failure's captured output shows it

        def note(line: str) -> None:
            trace.append(line)
            print(line)

        def defend(defender: Player, attacker: Player, seen: dict[str, Any]) -> None:
            """An attack was declared: the prompt appears live on the defender's page only; the
            answer shows in both pages' logs and tableaus."""
            nonlocal wounds_landed
            view = seen["view"]
            attack = view["attack"]
            by, targets, value = attack["by"], attack["dwarves"], attack["value"]
            own = role_of(seen)
            assert own != by
            page = defender.page
            expect(page.locator(".fels-attack .prompt")).to_have_text(
                "You are attacked. Block attacks with defence cards:"
            )
            expect(page.locator(".turn-status")).to_contain_text("Your turn!")
            attack_text = f"Attack: {attack['text']['en']}"  # who attacks whom, as a sentence
            for p in (defender, attacker):
                expect(p.page.locator(".fels-attack .attack-text")).to_contain_text(attack_text)
            expect(attacker.page.locator(".fels-attack .prompt")).to_have_count(0)
            expect(attacker.page.locator(".turn-status")).to_contain_text("Waiting for")
            expect(attacker.page.locator("#match-area [data-move]")).to_have_count(0)
            blocks = [m for m in seen["legal"] if m.startswith("block:")]
            assert seen["legal"] == [*blocks, "accept"]
            offered = page.locator(".fels-attack [data-move]")
            assert [offered.nth(i).get_attribute("data-move") for i in range(offered.count())] == seen[
                "legal"
            ]
            defence_cards = [c["id"] for c in view["hand"] if any(o["opt"] == "defend" for o in c["options"])]
            assert {m.split(":")[2] for m in blocks} == set(defence_cards)
            if defender is bob:
                phone_fits()

            if by == "dragon":
                tableau = [f".fels-dwarf-tableau .dwarf-track.dwarf-{d}" for d in targets]
            else:
                tableau = [
                    f".fels-dragon-tableau .track-{t}" for t in ("scales", "flight", "movement", "fire")
                ]
            before = [attacker.track(sel) for sel in tableau]
            assert before == [defender.track(sel) for sel in tableau]
            had = [int(text.split("/")[0]) for text in before]
            discarded = len(view["cards"][own]["discard"])

            took_before = attacker.log("The dragon took").count()
            # The defender's choice: the first time a defence card is held, it blocks the attack
            # on the first dwarf; whatever is left is taken.
            blocked: dict[str, str] = {}
            if blocks and not answers:
                _, dwarf, card_id = blocks[0].split(":")
                blocked[dwarf] = card_id
                answers.append("block")
                now = defender.decide(f".fels-attack .block[data-move='{blocks[0]}']")
            else:
                now = seen
            hits = [d for d in targets if d not in blocked]
            if now["view"]["attack"] is not None:
                assert hits and now["legal"][-1] == "accept"
                answers.append("accept")
                now = defender.decide(".fels-attack .accept[data-move='accept']")
            assert now["view"]["attack"] is None
            attacker.synced(attacker.state()["version"])  # live, over SSE

            for p in (defender, attacker):
                expect(p.page.locator(".fels-attack")).to_have_count(0)
                label = "Dragon" if own == "dragon" else "Dwarves"
                expect(p.page.locator(".fels-discards summary", has_text=label)).to_contain_text(
                    f"({discarded + len(blocked)})"
                )
            assert len(now["view"]["hand"]) == len(view["hand"]) - len(blocked)
            for dwarf, card_id in blocked.items():
                # The card by its effects, never its id.
                card = next(c for c in view["hand"] if c["id"] == card_id)
                effects = " / ".join(o["label"]["en"] for o in card["options"])
                line = f"{ROLE_WORD[own]} blocked the attack on {DWARF_WORD[dwarf]} with the card “{effects}”"
                for p in (defender, attacker):
                    expect(p.log(line)).to_have_count(1)
            if by == "dragon":
                dwarves = {d["name"]: d for d in now["view"]["dwarves"]}
                for dwarf, sel, was in zip(targets, tableau, had, strict=True):
                    fields = dwarves[dwarf]["fields"]
                    total = min(fields, was + value) if dwarf in hits else was
                    assert dwarves[dwarf]["wounds"] == total
                    if dwarf in hits:
                        wounds_landed = True
                        took = total - was
                        wounds = f"{took} wound" if took == 1 else f"{took} wounds"
                        line = f"{DWARF_WORD[dwarf].capitalize()} took {wounds}, {total} in all"
                        for p in (defender, attacker):
                            expect(p.log(line)).to_have_count(1)
                    for p in (defender, attacker):
                        expect(p.page.locator(f"#match-area {sel} .track-count")).to_have_text(
                            f"{total}/{fields}"
                        )
                        expect(p.page.locator(f"#match-area {sel} .field.wounded")).to_have_count(total)
            else:
                tracks = now["view"]["dragon"]["tracks"]
                placed = sum(t["wounds"] for t in tracks) + now["view"]["to_place"]
                amount = value * len(hits)
                assert placed == min(10, sum(had) + amount), (before, tracks, amount)
                # One line for the wounds that got through, none for an attack blocked in full.
                for p in (defender, attacker):
                    expect(p.log("The dragon took")).to_have_count(took_before + (1 if amount else 0))
                if amount:
                    wounds_landed = True
                    wounds = "1 wound" if amount == 1 else f"{amount} wounds"
                    line = f"The dragon took {wounds}, {min(amount, SCALES - had[0])} of them on its scales"
                    for p in (defender, attacker):
                        expect(p.log(line)).not_to_have_count(0)
                for sel, t in zip(tableau, tracks, strict=True):
                    for p in (defender, attacker):
                        expect(p.page.locator(f"#match-area {sel} .track-count")).to_have_text(
                            f"{t['wounds']}/{t['fields']}"
                        )
                        expect(p.page.locator(f"#match-area {sel} .field.wounded")).to_have_count(t["wounds"])

        for _decision in range(MAX_DECISIONS):
            if all(confirmed.values()) and answers and wounds_landed and keyboard_moves:
                break
            states = [p.state() for p in players]
            assert states[0]["status"] == "active", states[0]["status"]
            actor_seat = states[0]["to_act"][0]
            actor, other = players[actor_seat], players[1 - actor_seat]
            seen = states[actor_seat]
            actor.synced(seen["version"])
            other.synced(states[1 - actor_seat]["version"])
            expect(actor.page.locator(".turn-status")).to_contain_text("Your turn!")
            expect(other.page.locator(".turn-status")).to_contain_text("Waiting for")
            if "accept" in seen["legal"]:
                attack = seen["view"]["attack"]
                note(f"{role_of(seen)} answer {attack['option']} {attack['value']} on {attack['dwarves']}")
                defend(actor, other, seen)
                trace[-1] += f": {answers}"
                continue
            move = steer(seen["view"], seen["legal"])
            board_piece = f".fels-valley [data-move='{move}']"
            keyboard = actor is bob and move != "confirm" and bob.page.locator(board_piece).count() > 0
            where = "phone" if actor is bob else "desktop"
            note(f"{role_of(seen)} ({where}): {move}{' by Tab+Enter' * keyboard}")
            if move == "confirm":
                actor.decide("[data-match-action=confirm]")
                confirmed[role_of(seen)] += 1
                # The other page learns live that its turn has begun.
                expect(other.page.locator(".turn-status")).to_contain_text("Your turn!")
            elif keyboard:
                # On the phone a piece or hex of the valley is chosen with Tab and Enter.
                actor.decide(board_piece, keyboard=True)
                keyboard_moves += 1
            else:
                actor.decide(f"#match-area [data-move='{move}']")
        else:
            raise AssertionError(
                f"goals not met in {MAX_DECISIONS} decisions: turns {confirmed}, answers {answers}, "
                f"wounds {wounds_landed}, keyboard moves {keyboard_moves}; " + "; ".join(trace)
            )

        phone_fits()
        assert [e for e in errors if "Content Security Policy" in e] == []
    finally:
        for context in contexts:
            context.close()
