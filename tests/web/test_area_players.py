"""The match area's players list and the stand-in notice, rendered for each viewer.

The area is rendered for every seat of every version, so its lookups by seat are made in
Python (``app.web.pages.matches.area_context``); these say what each viewer must see.
"""

from __future__ import annotations

import re

import pytest

from app.services.schemas import MatchView, OutcomeOut, SeatOut
from app.web.pages.matches import area_context
from app.web.templating import render_string

SEATS = [
    SeatOut(seat=0, user_id=11, name="ada", bot="normal"),  # a computer stands in for ada
    SeatOut(seat=1, user_id=12, name="bo"),
    SeatOut(seat=2, user_id=13, name="cy"),
]


def _area(viewer_seat: int | None, *, outcome: OutcomeOut | None = None, locale: str = "en") -> str:
    m = MatchView(
        id=7,
        game="toy",
        status="finished" if outcome else "active",
        version=3000,
        options={},
        seats=SEATS,
        viewer_seat=viewer_seat,
        to_act=[] if outcome else [1],
        view={},
        legal=[],
        can_undo=False,
        can_confirm=False,
        log=[],
        outcome=outcome,
        created_by=12,
        waiting_since=None,
    )
    context = {**area_context(m, locale), "user": None, "csrf_token": "t0ken", "page_locale": locale}
    return render_string(locale, "match/_area.html", context)


def _players(html: str) -> list[tuple[str, str]]:
    """Each row of the players list, in order: its text (name, tags, rank) and its class."""
    rows = re.findall(r'<li class="player (seat-\d[^"]*)"[^>]*>(.*?)</li>', html, re.S)
    return [(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)).strip(), cls) for cls, body in rows]


@pytest.mark.parametrize("locale", ["en", "de"])
def test_only_the_player_a_computer_stands_in_for_is_offered_the_seat_back(locale: str) -> None:
    notice = {"en": "A computer plays your seat", "de": "Der Computer spielt deinen Platz"}[locale]
    mine = _area(0, locale=locale)
    assert notice in mine and 'action="/matches/7/take-back"' in mine
    assert 'value="t0ken"' in mine.split('action="/matches/7/take-back"')[1].split("</form>")[0]
    for viewer in (1, 2, None):
        assert 'action="/matches/7/take-back"' not in _area(viewer, locale=locale)


def test_the_players_list_is_in_seat_order_marks_the_viewer_and_the_seat_to_move() -> None:
    rows = _players(_area(2))
    assert [text.split()[0] for text, _ in rows] == ["ada", "bo", "cy"]
    (ada, ada_class), (bo, bo_class), (cy, cy_class) = rows
    assert "computer" in ada and "to move" not in ada and "you" not in ada.split()
    assert ada_class == "seat-0"
    assert "to move" in bo and "to-act" in bo_class
    assert "you" in cy.split() and cy_class.endswith(" me")
    assert not any("rank" in text for text, _ in rows)


def test_a_finished_match_lists_its_players_in_rank_order_with_their_ranks() -> None:
    # bo first, ada and cy share second place: equal ranks keep seat order.
    outcome = OutcomeOut(scores=[3, 5, 3], ranks=[2, 1, 2])
    rows = _players(_area(None, outcome=outcome))
    assert [text for text, _ in rows] == ["bo rank 1", "ada computer rank 2", "cy rank 2"]
