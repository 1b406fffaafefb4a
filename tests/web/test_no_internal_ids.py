"""Players see names, never internal ids (issue 20.7): no page a player meets while a game runs
or after it, and no log line, shows a card id ("DR11", "DW17"), a board id ("P05-2", "V07",
"E1") or a game's slug as its title, in German or English.

Random matches of every game are played over the JSON API on a real server; at several points
the match page is fetched as every seat (each in its account's language) and as a spectator in
both languages, with the earlier log, and at the end the replay and the rankings. What a person
sees is checked: the text, and the attributes that are read out or shown on hover (``title``,
``aria-label``, ``alt``, ``placeholder``); ids may stay in ``data-*`` and ``id`` attributes.
"""

from __future__ import annotations

import random
import re
from html.parser import HTMLParser

import httpx
import pytest

from tests.support.client import ApiUser, register, request_id
from tests.support.server import Server

GAMES = {"draco": 3, "drachenland": 3, "felsental": 2}
SLUGS = re.compile(r"\b(?:draco|drachenland|felsental)\b")
"""A slug where a title belongs (case-sensitive: "Draco" and "Drachenland" are titles)."""
CARD_OR_PLACE_ID = re.compile(r"\b(?:DR\d+|DW\d+|P\d\d-\d|V\d\d)\b")
ENTRANCE_ID = re.compile(r"\bE\d\b")
"""Drachenland's entrances. Felsental's hexes are named by the coordinates printed on its board
(A1 to E3, as chess squares are), which the player reads there: on its pages they are names."""
SHOWN_ATTRIBUTES = frozenset({"title", "aria-label", "alt", "placeholder"})
CHECKPOINT_EVERY = 35
MAX_DECISIONS = 500
"""Draco and Felsental end within it (their game-over panels are checked); Drachenland rarely."""


class _VisibleText(HTMLParser):
    """What a person sees or hears of a page: text (not scripts or styles) and shown attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._hidden += 1
        self.parts.extend(value for name, value in attrs if name in SHOWN_ATTRIBUTES and value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def visible_text(html: str) -> list[str]:
    parser = _VisibleText()
    parser.feed(html)
    return [" ".join(part.split()) for part in parser.parts if part.strip()]


def ids_shown(slug: str, html: str) -> list[str]:
    """The visible pieces of text that show an internal id."""
    patterns = [CARD_OR_PLACE_ID, SLUGS] + ([ENTRANCE_ID] if slug != "felsental" else [])
    return [text for text in visible_text(html) if any(p.search(text) for p in patterns)]


def test_visible_text_is_what_a_person_sees() -> None:
    """The checker itself: attributes other than the shown ones may hold ids, text may not."""
    page = (
        '<li data-piece="card-DR11" id="V07" class="draco"><span title="Fire volcano">Move 2</span>'
        "<script>var x = 'DW17';</script></li>"
    )
    assert ids_shown("drachenland", page) == []
    assert ids_shown("drachenland", '<g aria-label="Move to P01-1"></g>') == ["Move to P01-1"]
    assert ids_shown("felsental", "<p>Der Drache spielt DR32 (Bewegung 1)</p>") == [
        "Der Drache spielt DR32 (Bewegung 1)"
    ]
    assert ids_shown("draco", "<h1>Ranking: draco</h1>") == ["Ranking: draco"]
    assert ids_shown("drachenland", "<title>Entrance E1</title>") == ["Entrance E1"]
    assert ids_shown("felsental", "<title>Dragon (E1)</title>") == []


async def _page(client: httpx.AsyncClient, path: str, **headers: str) -> str:
    answer = await client.get(path, headers=headers)
    assert answer.status_code == 200, (path, answer.status_code)
    return answer.text


async def _check_match(slug: str, match_id: int, seats: list[ApiUser], spectator: httpx.AsyncClient) -> None:
    """The match page as every seat and as a spectator in both languages, and the earlier log."""
    pages = {f"seat {s}": await _page(user.client, f"/matches/{match_id}") for s, user in enumerate(seats)}
    for lang in ("de", "en"):
        pages[f"spectator {lang}"] = await _page(
            spectator, f"/matches/{match_id}", **{"Accept-Language": lang}
        )
        pages[f"log {lang}"] = await _page(
            spectator, f"/matches/{match_id}/log?before=100000", **{"Accept-Language": lang}
        )
    for who, html in pages.items():
        assert not ids_shown(slug, html), (slug, match_id, who, ids_shown(slug, html)[:5])


async def _decide(seats: list[ApiUser], match_id: int, chooser: random.Random) -> dict[str, object]:
    """One random legal decision of the seat to act (a confirm when nothing else is left)."""
    view = (await seats[0].get(f"/api/matches/{match_id}")).json()
    actor = seats[view["to_act"][0]]
    mine = (await actor.get(f"/api/matches/{match_id}")).json()
    body = {"expected_version": mine["version"], "request_id": request_id()}
    moves = [m for m in mine["legal"] if m != "confirm"]
    if moves and not (mine["can_confirm"] and chooser.random() < 0.3):
        answer = await actor.post(f"/api/matches/{match_id}/moves", {"move": chooser.choice(moves), **body})
    else:
        answer = await actor.post(f"/api/matches/{match_id}/confirm", body)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


@pytest.mark.parametrize("slug", sorted(GAMES))
async def test_no_page_or_log_line_shows_an_internal_id(server: Server, slug: str) -> None:
    # Seats alternate German and English accounts: each page comes in its viewer's language.
    seats = [await register(server.base_url, locale=("de", "en")[s % 2]) for s in range(GAMES[slug])]
    spectator = httpx.AsyncClient(base_url=server.base_url, timeout=10.0)
    try:
        created = await seats[0].post(
            "/api/matches", {"game": slug, "seats": len(seats), "fixed_order": True}
        )
        assert created.status_code == 201, created.text
        match_id = created.json()["id"]
        for user in seats[1:]:
            assert (await user.post(f"/api/matches/{match_id}/join", {})).status_code == 204
        chooser = random.Random(f"{slug}-ids")
        # The rankings before this match is rated too: with nobody rated, its title came from the slug.
        for lang in ("de", "en"):
            html = await _page(spectator, f"/rankings/{slug}", **{"Accept-Language": lang})
            assert not ids_shown(slug, html), (lang, ids_shown(slug, html))
        for decision in range(MAX_DECISIONS):
            if decision % CHECKPOINT_EVERY == 0:
                await _check_match(slug, match_id, seats, spectator)
            answer = await _decide(seats, match_id, chooser)
            if answer["match"]["status"] != "active":  # type: ignore[index]
                break
        else:
            assert slug == "drachenland", f"the {slug} match did not end in {MAX_DECISIONS} decisions"
        # The end (or where the budget stopped: a random Drachenland match runs long), then the
        # replay, the rankings and the rules.
        await _check_match(slug, match_id, seats, spectator)
        for lang in ("de", "en"):
            for path in (f"/matches/{match_id}/replay?step=5", f"/rankings/{slug}", f"/games/{slug}/rules"):
                html = await _page(spectator, path, **{"Accept-Language": lang})
                assert not ids_shown(slug, html), (path, lang, ids_shown(slug, html)[:5])
    finally:
        await spectator.aclose()
        for user in seats:
            await user.aclose()
