"""What the pages say is what is true (issue 20.4, 20.5, 20.6, 20.11), in Chromium.

- Felsental: the wounds-inflicted counter counts the wounds the tableaus show, says which leg it
  counts, and the attack line says who attacks whom.
- Draco: the confirm hint says how many cards the confirm draws, and the log then says the same;
  at the end the standings list ranks in rank order, not seat numbers.
- The log: one number per decision (none repeats), turns set apart, every name in its seat's
  colour, and the last line whole and uncovered at 1366 px and on a phone.

Matches are set up over the JSON API with random legal decisions (no seed can be fixed from
outside); what is checked is read from the page a player sees, and the one decision the test
makes on a page is a real mouse click on the Confirm button.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.browser.pages import DESKTOP, PHONE, VIEWPORTS, api_client, log_in, register_apart
from tests.support.client import request_id
from tests.support.server import Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 15_000
LANGUAGES = pytest.mark.parametrize("lang", ["de", "en"])

View = dict[str, Any]


class ApiTable:
    """The players of one match over the JSON API, making random legal decisions."""

    def __init__(self, base_url: str, game: str, names: list[str], seed: str) -> None:
        self.names = names
        self.clients = [api_client(base_url, name)[0] for name in names]
        self.chooser = random.Random(seed)
        body = {"game": game, "seats": len(names), "fixed_order": True}
        created = self.clients[0].post("/api/matches", json=body)
        assert created.status_code == 201, created.text
        self.match_id = int(created.json()["id"])
        for client in self.clients[1:]:
            joined = client.post(f"/api/matches/{self.match_id}/join", json={})
            assert joined.status_code == 204, joined.text

    def close(self) -> None:
        for client in self.clients:
            client.close()

    def view(self, seat: int) -> View:
        answer = self.clients[seat].get(f"/api/matches/{self.match_id}")
        assert answer.status_code == 200, answer.text
        data: View = answer.json()
        return data

    def actor(self) -> tuple[int, View]:
        seat = self.view(0)["to_act"][0]
        return seat, self.view(seat)

    def play_until(self, stop: Callable[[int, View], bool], limit: int = 800) -> tuple[int, View] | None:
        """Random decisions until ``stop(seat, view)`` holds for the seat to act (or the end: None)."""
        for _ in range(limit):
            if self.view(0)["status"] != "active":
                return None
            seat, view = self.actor()
            if stop(seat, view):
                return seat, view
            self.decide(seat, view)
        raise AssertionError("the situation did not come up")

    def decide(self, seat: int, view: View) -> None:
        body: dict[str, Any] = {"expected_version": view["version"], "request_id": request_id()}
        moves = [m for m in view["legal"] if m != "confirm"]
        path = "confirm"
        if moves and not (view["can_confirm"] and self.chooser.random() < 0.3):
            body["move"], path = self.chooser.choice(moves), "moves"
        answer = self.clients[seat].post(f"/api/matches/{self.match_id}/{path}", json=body)
        assert answer.status_code == 200, answer.text


@pytest.fixture
def table_of(server: Server, browser: Any) -> Iterator[Callable[[str, int, str], ApiTable]]:
    made: list[ApiTable] = []

    def make(game: str, seats: int, seed: str) -> ApiTable:
        names = [register_apart(browser, server.base_url) for _ in range(seats)]
        made.append(ApiTable(server.base_url, game, names, seed))
        return made[-1]

    yield make
    for table in made:
        table.close()


def _open(browser: Any, base_url: str, name: str, lang: str, match_id: int, viewport: Any = DESKTOP) -> Any:
    context = browser.new_context(viewport=viewport, has_touch=viewport is PHONE)
    log_in(context, base_url, name, lang)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{base_url}/matches/{match_id}")
    return context, page


# --- Felsental: the wounds counter and the attack line (issue 20.4) --------------------------------


def _wounds_on_both_sides(seat: int, view: View) -> bool:
    board = view["view"]
    dragon = sum(t["wounds"] for t in board["dragon"]["tracks"])
    dwarves = sum(d["wounds"] for d in board["dwarves"])
    return dragon >= 1 and dwarves >= 1 and board["phase"] == "play"


def _until(table_of: Any, game: str, seats: int, seed: str, stop: Any) -> tuple[ApiTable, int, View]:
    """A match where ``stop`` comes up (random play: a match may end first, then another)."""
    for attempt in range(4):
        table = table_of(game, seats, f"{seed}-{attempt}")
        found = table.play_until(stop)
        if found is not None:
            return table, found[0], found[1]
    raise AssertionError(f"no {game} match came to the situation")


@LANGUAGES
def test_felsental_counts_the_wounds_the_tableaus_show(
    server: Server, browser: Any, table_of: Any, lang: str
) -> None:
    table, seat, view = _until(table_of, "felsental", 2, f"fels-wounds-{lang}", _wounds_on_both_sides)
    leg = view["view"]["leg"]
    # As the seat to act: what it sees includes its own decisions not yet confirmed.
    context, page = _open(browser, server.base_url, table.names[seat], lang, table.match_id)
    try:
        # What the tableaus show: each side's wound marks, inflicted by the other side's player.
        on_dwarves = page.locator(".fels-dwarf-tableau .field.wounded").count()
        on_dragon = page.locator(".fels-dragon-tableau .field.wounded").count()
        assert on_dwarves >= 1 and on_dragon >= 1
        # The column a person reads: the cell below the heading that names this leg.
        # The wounds' heading names the leg and has a column for each leg below it.
        group = page.locator(".fels-match thead th[scope=colgroup]")
        assert re.search(r"(leg|Etappe)$", group.inner_text().strip(), re.IGNORECASE), group.inner_text()
        heading = page.locator(".fels-match thead th[scope=col]").filter(has_text=re.compile(rf"^{leg}$"))
        assert heading.count() == 1, page.locator(".fels-match thead").inner_text()
        column = heading.bounding_box()
        for row in page.locator(".fels-match tbody tr").all():
            cells = row.locator("th, td").all()
            dragon_row = cells[1].inner_text() in ("Dragon", "Drache")
            expected = on_dwarves if dragon_row else on_dragon
            below = [c for c in cells if _same_column(c.bounding_box(), column)]
            assert [c.inner_text() for c in below] == [str(expected)], (
                [c.inner_text() for c in cells],
                on_dwarves,
                on_dragon,
            )
    finally:
        context.close()


def _same_column(cell: dict[str, float] | None, heading: dict[str, float] | None) -> bool:
    assert cell is not None and heading is not None
    middle = cell["x"] + cell["width"] / 2
    return heading["x"] <= middle <= heading["x"] + heading["width"]


def _attack_pending(seat: int, view: View) -> bool:
    return view["view"]["attack"] is not None


@LANGUAGES
def test_felsental_attack_line_says_who_attacks_whom(
    server: Server, browser: Any, table_of: Any, lang: str
) -> None:
    table, seat, view = _until(table_of, "felsental", 2, f"fels-attack-{lang}", _attack_pending)
    attack = view["view"]["attack"]
    context, page = _open(browser, server.base_url, table.names[seat], lang, table.match_id)
    try:
        line = page.locator(".attack-text").inner_text()
        assert "→" not in line, line
        if attack["by"] == "dwarves":
            # The dwarves named attack the dragon: the sentence says so.
            assert ("the dragon" in line) if lang == "en" else ("den Drachen an" in line), line
        else:
            assert ("The dragon attacks" in line) if lang == "en" else ("Der Drache greift" in line), line
    finally:
        context.close()


# --- Draco: the confirm hint (issue 20.5) and the standings at the end (issue 20.6) ----------------


def _confirm_after_play(scored: bool) -> Callable[[int, View], bool]:
    def stop(seat: int, view: View) -> bool:
        board = view["view"]
        discards = any(m.startswith("discard:") for m in view["legal"])
        return (
            board["phase"] == "discard"
            and not discards
            and board["play"]["scored"] is scored
            and bool(board["hand"])
        )

    return stop


@LANGUAGES
@pytest.mark.parametrize("scored", [True, False], ids=["after-a-scoring", "no-scoring"])
def test_draco_confirm_hint_says_what_the_confirm_draws(
    server: Server, browser: Any, table_of: Any, lang: str, scored: bool
) -> None:
    table, seat, view = _until(
        table_of, "draco", 3, f"draco-hint-{lang}-{scored}", _confirm_after_play(scored)
    )
    # Spec §4 step 5: after a scoring with cards left, nothing is drawn; else the hand fills to six.
    draws = 0 if scored else 6 - len(view["view"]["hand"])
    context, page = _open(browser, server.base_url, table.names[seat], lang, table.match_id)
    try:
        hint = page.locator(".draco .hint").inner_text()
        if draws == 0:
            assert ("no cards" in hint) if lang == "en" else ("keine Karten" in hint), hint
        else:
            count = f"{draws} {'card' if draws == 1 else 'cards'}" if lang == "en" else f"{draws} Karte"
            assert count in hint, hint
        before = page.locator("#match-area").get_attribute("data-version")
        page.locator("[data-match-action=confirm]").click()
        page.wait_for_function(
            "v => document.getElementById('match-area')?.getAttribute('data-version') !== v", arg=before
        )
        # The confirm's own lines: the newest decision's (older turns' lines may say anything).
        log = page.evaluate(NEWEST_DECISION)
        if draws == 0:
            assert ("draws no cards" in log) if lang == "en" else ("zieht keine Karten nach" in log), log
        else:
            said = f"draws {draws} card" if lang == "en" else f"zieht {draws} Karte"
            assert said in log, log
    finally:
        context.close()


NEWEST_DECISION = """() => {
    const items = Array.from(document.querySelectorAll("#log-list > li:not(.pending)"));
    const newest = items[0].dataset.seq;
    return items.filter((li) => li.dataset.seq === newest).map((li) => li.innerText).join("\\n");
}"""


def _finished_draco(table: ApiTable) -> View:
    assert table.play_until(lambda seat, view: False, limit=1500) is None
    return table.view(0)


@LANGUAGES
def test_draco_standings_show_ranks_in_rank_order(
    server: Server, browser: Any, table_of: Any, lang: str
) -> None:
    table = table_of("draco", 3, f"draco-end-{lang}")
    final = _finished_draco(table)
    scores = [p["score"] for p in final["view"]["players"]]
    context, page = _open(browser, server.base_url, table.names[0], lang, table.match_id)
    try:
        rows = page.locator(".draco-players .draco-player").all()
        shown = [(r.locator(".seat-badge").inner_text(), r.get_attribute("data-piece")) for r in rows]
        seats = [int(piece.removeprefix("seat-")) for _, piece in shown]
        ordered = [scores[s] for s in seats]
        assert ordered == sorted(scores, reverse=True), (shown, scores)
        for (badge, _), score in zip(shown, ordered, strict=True):
            rank = 1 + sum(1 for other in scores if other > score)  # equal scores share a rank
            assert badge == f"{rank}.", (shown, scores)
        # The players beside the board too: best first (equal scores in seat order).
        listed = page.locator(".players .player .name").all_inner_texts()
        best_first = sorted(range(len(scores)), key=lambda s: (-scores[s], s))
        assert listed == [table.names[s] for s in best_first], (listed, scores)
    finally:
        context.close()


# --- The log (issue 20.11) ------------------------------------------------------------------------

LOG_FACTS = """() => {
    const list = document.getElementById("log-list");
    const items = Array.from(list.querySelectorAll(":scope > li"));
    const numbered = items.filter((li) => getComputedStyle(li).listStyleType !== "none");
    const changes = [];
    for (let i = 1; i < items.length; i++) {
        if (items[i].dataset.seat !== items[i - 1].dataset.seat) {
            const style = getComputedStyle(items[i]);
            changes.push(parseFloat(style.borderTopWidth) + parseFloat(style.marginTop));
        }
    }
    const swatch = (seat) => {
        const name = document.querySelector(`.players .player.seat-${seat} .name`);
        return name ? getComputedStyle(name, "::before").backgroundColor : null;
    };
    const names = Array.from(list.querySelectorAll(".who")).map((who) => ({
        colour: getComputedStyle(who).color,
        seat: (who.className.match(/seat-(\\d)/) || [])[1],
    })).map((n) => ({ ...n, swatch: swatch(n.seat) }));
    return {
        numbers: numbered.map((li) => li.value),
        seats: items.map((li) => li.dataset.seat),
        changes,
        names,
    };
}"""

LAST_LINE = """() => {
    const list = document.getElementById("log-list");
    list.scrollTop = list.scrollHeight;
    const last = list.querySelector(":scope > li:last-child");
    last.scrollIntoView({ block: "center" });
    const box = last.getBoundingClientRect();
    const room = list.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    const above = document.elementFromPoint(box.left + box.width / 2, box.bottom - 2);
    return {
        whole: box.bottom <= room.bottom + 0.5 && box.top >= room.top - 0.5,
        hit: hit ? hit.outerHTML.slice(0, 120) : null,
        own: !!hit && last.contains(hit),
        bottomOwn: !!above && last.contains(above),
    };
}"""


@pytest.fixture(scope="module")
def long_draco(server: Server, browser: Any) -> Iterator[tuple[ApiTable, View]]:
    """A finished three-player Draco match: many decisions of several lines each."""
    names = [register_apart(browser, server.base_url) for _ in range(3)]
    table = ApiTable(server.base_url, "draco", names, "draco-log")
    try:
        yield table, _finished_draco(table)
    finally:
        table.close()


@VIEWPORTS
@LANGUAGES
def test_log_numbers_decisions_sets_turns_apart_and_shows_colours(
    server: Server, browser: Any, long_draco: tuple[ApiTable, View], viewport: Any, lang: str
) -> None:
    table, _ = long_draco
    context, page = _open(browser, server.base_url, table.names[0], lang, table.match_id, viewport)
    try:
        facts = page.evaluate(LOG_FACTS)
        assert len(facts["numbers"]) == len(set(facts["numbers"])), f"numbers repeat: {facts['numbers'][:12]}"
        assert len(facts["numbers"]) < len(facts["seats"]), (
            "every line is numbered: decisions are not grouped"
        )
        assert facts["changes"] and all(gap > 0 for gap in facts["changes"]), facts["changes"]
        assert facts["names"], "no player named in their colour"
        for name in facts["names"]:
            assert name["swatch"] and name["colour"] == name["swatch"], name
        last = page.evaluate(LAST_LINE)
        assert last["whole"] and last["own"] and last["bottomOwn"], last
    finally:
        context.close()
