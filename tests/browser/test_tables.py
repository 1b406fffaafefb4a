"""Tables before and after a match, in Chromium at 1366 px and on a 390 × 844 phone (issue 13).

Point 2: leaving, cancelling and the administrator's abort ask first and say what follows (a
dialog with scripts, a page without). Point 16 and "missing": an open table shows its game,
options, seats and invite link instead of an empty board; the link has a copy button; players
are invited by name with suggestions (people you played with first); the invitation shows the
game, options and seats. Points 14 and 8: a finished match has a game-over banner saying who
won, a table of ranks, names, integer scores and the game's tie-break (legs and wounds in
Felsental), the replay and a rematch; its notification says the result. Point 15: player
counts and plurals read right in both languages; the profile filter names games, not slugs.
Positions are set up over the JSON API (tests/browser/studio.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.pages import DESKTOP, PHONE, VIEWPORTS, log_in
from tests.browser.studio import Studio, User
from tests.support.client import PASSWORD
from tests.support.server import ROOT, SECRET_KEY, Server

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000


@pytest.fixture
def open_page(browser: Any, server: Server) -> Iterator[Any]:
    """``open_page(path, user, viewport, locale="en", scripts=True)``: a fresh context on a page."""
    contexts: list[Any] = []

    def open_(
        path: str, user: User | None, viewport: dict[str, int], locale: str = "en", scripts: bool = True
    ) -> Any:
        context = browser.new_context(
            viewport=viewport, locale="de-DE" if locale == "de" else "en-US", java_script_enabled=scripts
        )
        contexts.append(context)
        if user is not None:
            log_in(context, server.base_url, user.name, locale)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server.base_url}{path}")
        return page

    yield open_
    for context in contexts:
        context.close()


def _make_admin(server: Server, name: str, tmp_path: Path) -> None:
    """Promote ``name`` with the shell command an operator uses (``drachenhort admin create``)."""
    env = {
        **os.environ,
        "DRACHENHORT_DATABASE_URL": server.database_url,
        "DRACHENHORT_SECRET_KEY": SECRET_KEY,
        "DRACHENHORT_DATA_DIR": str(tmp_path),
    }
    env.pop("DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "admin", "create", name],
        input=PASSWORD + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def test_leaving_cancelling_and_aborting_ask_first(server: Server, open_page: Any, tmp_path: Path) -> None:
    """Point 2: each asks, says what follows, and going back changes nothing; without scripts
    (leaving, on a phone) the question is a page, with them a dialog over the page."""
    from playwright.sync_api import expect

    studio = Studio(server.base_url)
    host, guest, admin, other = studio.users("ch", "cg", "ca", "co")
    table = int(host.post("/api/matches", {"game": "toy", "seats": 3})["id"])
    guest.post(f"/api/matches/{table}/join", {})
    seats = lambda: [s["name"] for s in host.get(f"/api/matches/{table}")["seats"]]  # noqa: E731

    # The guest leaves on a phone without scripts: a page asks, "No" goes back, "Yes" leaves.
    page = open_page(f"/matches/{table}", guest, PHONE, scripts=False)
    page.get_by_role("link", name="Leave the table…").click()
    question = page.locator(".confirm-page")
    expect(question).to_contain_text(f"Leave the table of Toy cards #{table}?")
    expect(question).to_contain_text("Your seat becomes free for somebody else.")
    question.get_by_role("link", name="No, go back").click()
    page.wait_for_url(f"{server.base_url}/matches/{table}")
    assert guest.name in seats()
    page.get_by_role("link", name="Leave the table…").click()
    page.get_by_role("button", name="Yes, leave").click()
    page.wait_for_url(f"{server.base_url}/")
    assert guest.name not in seats()

    # The host cancels on the desktop: a dialog over the table names who loses a seat.
    guest.post(f"/api/matches/{table}/join", {})
    page = open_page(f"/matches/{table}", host, DESKTOP)
    page.get_by_role("link", name="Cancel the match…").click()
    dialog = page.locator("#confirm-dialog")
    expect(dialog).to_contain_text(f"Cancel Toy cards #{table}?")
    expect(dialog).to_contain_text(f"{guest.name} loses the seat.")
    expect(dialog).to_contain_text("This cannot be undone.")
    expect(dialog.locator("[data-close-dialog]")).to_be_focused()  # Enter goes back
    dialog.get_by_role("link", name="No, go back").click()
    expect(dialog).to_be_hidden()
    assert host.get(f"/api/matches/{table}")["status"] == "open"
    page.get_by_role("link", name="Cancel the match…").click()
    dialog.get_by_role("button", name="Yes, cancel the match").click()
    page.wait_for_url(f"{server.base_url}/")
    assert host.get(f"/api/matches/{table}")["status"] != "open"

    # The administrator aborts a running match from the administration page, in a dialog.
    running = studio.match("toy", [host, other])
    _make_admin(server, admin.name, tmp_path)
    page = open_page("/admin", admin, DESKTOP)
    page.locator(f"a[href='/admin/matches/{running}/abort']").click()
    dialog = page.locator("#confirm-dialog")
    expect(dialog).to_contain_text(f"Abort Toy cards #{running}?")
    expect(dialog).to_contain_text("The match ends without a result and is not rated.")
    expect(dialog).to_contain_text(
        re.compile(rf"Its players \((?=.*{host.name})(?=.*{other.name}).*\) are told")
    )
    dialog.get_by_role("link", name="No, go back").click()
    assert host.get(f"/api/matches/{running}")["status"] == "active"
    page.locator(f"a[href='/admin/matches/{running}/abort']").click()
    dialog.get_by_role("button", name="Yes, abort the match").click()
    page.wait_for_load_state()
    assert host.get(f"/api/matches/{running}")["status"] == "aborted"
    page.goto(f"{server.base_url}/matches/{running}")
    expect(page.locator("#match-result")).to_contain_text(
        "The match was aborted: it has no result and is not rated."
    )


@VIEWPORTS
def test_an_open_table_shows_game_options_seats_and_invite_tools(
    server: Server, open_page: Any, viewport: dict[str, int]
) -> None:
    """Point 16 and "missing": no empty board but the table; the invite link copies; a name is
    suggested (people played with first) and invited; the invitation shows the same table."""
    from playwright.sync_api import expect

    studio = Studio(server.base_url)
    host, friend, stranger = studio.users("th", "tf", "ts")
    studio.match("toy", [host, friend])  # they have played together
    table = int(
        host.post("/api/matches", {"game": "drachenland", "seats": 3, "options": {"variant2": True}})["id"]
    )
    page = open_page(f"/matches/{table}", host, viewport)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.base_url)

    expect(page.locator("#open-heading")).to_have_text("Waiting for players")
    assert page.locator("#board, #board svg").count() == 0, "an open table shows no empty board"
    facts = page.locator(".open-match .table-facts")
    expect(facts).to_contain_text("Dragonland")
    expect(facts).to_contain_text(re.compile(r"Variant 2: no screens, all treasures open\s*yes"))
    expect(page.locator(".open-match .table-seats li")).to_have_text([host.name, "open seat", "open seat"])

    # The copy button copies the link and says so.
    link = page.locator("#invite-link").input_value()
    assert re.fullmatch(rf"{re.escape(server.base_url)}/invite/[\w-]+", link), link
    page.get_by_role("button", name="Copy").click()
    expect(page.locator("#copy-status")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == link

    # Inviting by name: the field suggests the friend first, before anyone has typed.
    field = page.locator("#invite-name")
    field.focus()
    suggestions = page.locator("#invite-names option")
    expect(suggestions.first).to_have_attribute("value", friend.name)
    field.fill(friend.name)
    page.get_by_role("button", name="Invite", exact=True).click()
    expect(page.locator(".open-match .table-seats li")).to_have_text(
        [host.name, f"{friend.name} (invited)", "open seat"]
    )

    # Anyone with the link sees the same table before taking a seat, in their language.
    invitation = open_page(link[len(server.base_url) :], stranger, viewport, "de")
    box = invitation.locator(".invitation")
    expect(box).to_contain_text(f"Du bist zu Drachenland #{table} eingeladen.")
    expect(box.locator(".table-facts")).to_contain_text(re.compile(r"Variante 2: ohne Sichtschirme.*\s*ja"))
    expect(box.locator(".table-seats li")).to_have_text(
        [host.name, f"{friend.name} (eingeladen)", "freier Platz"]
    )
    expect(box.get_by_role("button", name="Platz nehmen")).to_be_visible()


class Finished:
    """A one-leg Felsental match played to its end over the API, and who won it."""

    def __init__(self, studio: Studio) -> None:
        self.users = studio.users("ra", "rb")
        self.match = studio.match("felsental", self.users, {"legs": 1})
        for _ in range(40):
            if studio.play(self.match, self.users, 100) is None:
                break
        seen = self.users[0].get(f"/api/matches/{self.match}")
        assert seen["status"] == "finished", seen["status"]
        self.outcome = seen["outcome"]
        ranks = self.outcome["ranks"]
        self.winner = self.users[ranks.index(1)]
        self.loser = self.users[ranks.index(2)]


@pytest.fixture(scope="module")
def finished(server: Server) -> Finished:
    return Finished(Studio(server.base_url, seed=14))


RESULT_TEXT = {
    "en": {
        "title": "{winner} wins!",
        "head": ["Rank", "Player", "Legs won", "Wounds inflicted"],
        "replay": "Watch the replay",
        "rematch": "Rematch",
        "notice": "the match has ended: {winner} won.",
    },
    "de": {
        "title": "{winner} gewinnt!",
        "head": ["Platz", "Spieler", "Gewonnene Etappen", "Zugefügte Wunden"],
        "replay": "Partie nachspielen",
        "rematch": "Revanche",
        "notice": "die Partie ist vorbei: {winner} hat gewonnen.",
    },
}


@pytest.mark.parametrize(
    ("viewport", "locale"), [(DESKTOP, "en"), (PHONE, "de")], ids=["desktop-en", "phone-de"]
)
def test_a_finished_match_says_who_won_with_ranks_scores_and_tiebreaks(
    finished: Finished, open_page: Any, viewport: dict[str, int], locale: str
) -> None:
    """Points 14 and 8, as the loser sees it."""
    from playwright.sync_api import expect

    text = RESULT_TEXT[locale]
    page = open_page(f"/matches/{finished.match}", finished.loser, viewport, locale)
    banner = page.locator("#match-result")
    # A banner at the top of the page, above the board: seen without scrolling.
    box = banner.bounding_box()
    assert box is not None and box["y"] < viewport["height"] / 2, box
    assert box["y"] < page.locator("#board").bounding_box()["y"]
    expect(banner.locator(".result-title")).to_have_text(text["title"].format(winner=finished.winner.name))
    expect(banner.locator("thead th")).to_have_text(text["head"])
    outcome = finished.outcome
    order = sorted(range(2), key=lambda seat: outcome["ranks"][seat])
    rows = [
        [
            f"{outcome['ranks'][seat]}.",
            finished.users[seat].name,
            str(int(outcome["scores"][seat])),  # an integer, not "1.0"
            str(outcome["tiebreaks"][0]["values"][seat]),
        ]
        for seat in order
    ]
    shown = banner.locator("tbody tr")
    expect(shown).to_have_count(2)
    for i, row in enumerate(rows):
        expect(shown.nth(i).locator("td, th")).to_have_text(row)
    replay = banner.get_by_role("link", name=text["replay"])
    expect(replay).to_have_attribute("href", f"/matches/{finished.match}/replay")
    expect(banner.get_by_role("button", name=text["rematch"])).to_be_visible()

    # The notification of the end says the result (one line for the match).
    page.goto(page.url.split("/matches/")[0] + "/notifications")
    line = page.locator(f"#notifications li[data-match='{finished.match}']")
    expect(line).to_have_count(1)
    expect(line).to_contain_text(text["notice"].format(winner=finished.winner.name))


@pytest.mark.parametrize("locale", ["en", "de"])
def test_counts_and_plurals_read_right_and_the_profile_filter_names_games(
    server: Server, open_page: Any, finished: Finished, locale: str
) -> None:
    """Point 15: "2 players", not "2–2 players"; "1 day" but "2 days" (Babel's ngettext, both
    languages); the profile's game filter lists game names, not slugs."""
    from playwright.sync_api import expect

    de = locale == "de"
    page = open_page("/", finished.winner, DESKTOP, locale)
    expect(page.locator("#game-felsental .meta")).to_contain_text("2 Spieler ·" if de else "2 players ·")
    expect(page.locator("#game-draco .meta")).to_contain_text("2–5 Spieler" if de else "2–5 players")
    assert not re.search(r"\b(\d+)–\1\b", page.locator(".game-list").inner_text()), "a range from n to n"
    texts = page.locator("#game-draco select[name=days] option").evaluate_all(
        "options => options.map(o => o.textContent.trim())"
    )
    one, two = ("1 Tag pro Zug", "2 Tage pro Zug") if de else ("1 day per move", "2 days per move")
    assert one in texts and two in texts, texts

    page.goto(f"{server.base_url}/users/{finished.winner.name}")
    games = page.locator("form.filters select[name=game] option")
    expect(games).to_have_text(
        ["alle" if de else "all", "Duell im Felsental" if de else "Duell im Felsental (Drako)"]
    )
    expect(games.nth(1)).to_have_attribute("value", "felsental")
