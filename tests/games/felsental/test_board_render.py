"""The board partial (templates/games/felsental/board.html) against templates/games/README.md."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path

import jinja2
import pytest

from app.engine.rng import Rng
from app.engine.selfplay import derive_seed
from app.games.felsental import FELSENTAL
from app.games.felsental.board import Role
from app.games.felsental.state import FelsState

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"
ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True)
NAMES = ["Ann & <b>", "Bo"]
MOVE_ATTR = re.compile(r'data-move="([^"]*)"')


def render(
    state: FelsState, seat: int | None, locale: str = "en", *, replay: bool = False
) -> tuple[str, list[str]]:
    strings = FELSENTAL.ui_text[locale]
    legal = [] if seat is None or replay else [str(m) for m in FELSENTAL.legal_moves(state, seat)]
    html = ENV.get_template("games/felsental/board.html").render(
        view=FELSENTAL.view(state, seat),
        seat=seat,
        legal=legal,
        players=[{"seat": s, "name": NAMES[s]} for s in (0, 1)],
        replay=replay,
        t=lambda key: strings.get(key, FELSENTAL.ui_text["en"].get(key, key)),
        _=lambda text: text,
        locale=locale,
    )
    return html, legal


@cache
def board_states() -> tuple[FelsState, ...]:
    """States of every kind of decision from random matches (all options)."""
    states: list[FelsState] = []
    seen: Counter[str] = Counter()
    for n, options in enumerate(({}, {"dwarf_setup": "free", "hand_exchange": True}, {"legs": 1}) * 2):
        rng = Rng(derive_seed("felsental-render", n))
        chooser = Rng(derive_seed("felsental-render-chooser", n))
        state = FELSENTAL.setup(2, FELSENTAL.info.normalise_options(options), rng)
        while FELSENTAL.outcome(state) is None:
            (seat,) = FELSENTAL.to_act(state)
            legal = FELSENTAL.legal_moves(state, seat)
            kinds = frozenset(m.action for m in legal)
            key = ",".join(sorted(kinds))
            seen[key] += 1
            if seen[key] <= 1:
                states.append(state)
            state, _ = FELSENTAL.apply(state, seat, chooser.choice(legal), rng)
        states.append(state)
    return tuple(states)


def test_states_cover_every_kind_of_move() -> None:
    actions = {m.action for s in board_states() for seat in (0, 1) for m in FELSENTAL.legal_moves(s, seat)}
    expected = {"exchange", "keep", "place", "draw", "discard", "play", "free", "fury", "block", "accept"}
    expected |= {"wound", "to", "target", "dir", "dwarf", "attack", "done", "confirm"}
    assert expected <= actions


def test_every_data_move_is_legal_and_every_legal_move_is_reachable() -> None:
    """Contract: clickable elements carry legal moves only; each legal move (but confirm) has one."""
    for state in board_states():
        for seat in (0, 1):
            html, legal = render(state, seat, "de" if seat else "en")
            shown = set(MOVE_ATTR.findall(html))
            assert shown <= set(legal), shown - set(legal)
            missing = {m for m in legal if m != "confirm"} - shown
            assert not missing, (missing, FELSENTAL.format_position(state))


def test_clickable_elements_are_keyboard_reachable_and_labelled() -> None:
    for state in board_states()[::3]:
        for seat in (0, 1):
            html, _ = render(state, seat)
            for tag in re.findall(r"<[^>]*data-move=[^>]*>", html):
                assert 'tabindex="0"' in tag and 'role="button"' in tag and "aria-label=" in tag
                assert "legal" in tag


def test_spectator_and_replay_have_no_moves() -> None:
    for state in board_states()[::5]:
        html, _ = render(state, None)
        assert "data-move" not in html
        html, _ = render(state, state.dragon_seat, replay=True)
        assert "data-move" not in html


def test_other_hands_and_piles_do_not_appear() -> None:
    """Nothing hidden from a seat shows up in its board (card ids of hands and draw piles)."""
    for state in board_states()[::2]:
        for viewer in (0, 1, None):
            html, _ = render(state, viewer)
            for role in Role:
                side = state.side(role)
                hidden = side.deck if viewer == state.seat_of(role) else side.hand + side.deck
                for card in hidden:
                    assert not re.search(rf"\b{card}\b", html), (card, viewer)


def test_pieces_and_names_are_marked() -> None:
    """data-piece for the dragon, each living dwarf and each hex; names are escaped."""
    state = board_states()[0]
    html, _ = render(state, 0)
    assert 'data-piece="dragon"' in html
    for dwarf in ("warrior", "crossbowman", "trapper"):
        assert f'data-piece="dwarf-{dwarf}"' in html
    assert html.count('data-piece="hex-') == 19
    assert "Ann &amp; &lt;b&gt;" in html and "<b>" not in html
    assert "style=" not in html and "<script" not in html


@pytest.mark.parametrize("locale", ["en", "de"])
def test_board_renders_in_both_languages(locale: str) -> None:
    html, _ = render(board_states()[5], 0, locale)
    assert ("Drache" in html) == (locale == "de")
    assert "viewBox" in html


@pytest.mark.parametrize("locale", ["en", "de"])
def test_rules_pages_are_plain_fragments(locale: str) -> None:
    """The rules pages exist in both languages, render as plain HTML and cover the two-leg match."""
    html = ENV.get_template(f"games/felsental/rules_{locale}.html").render()
    assert "<script" not in html and "style=" not in html and "<html" not in html
    assert ("zwei Etappen" in html) == (locale == "de") and ("two legs" in html) == (locale == "en")


@pytest.mark.parametrize(("locale", "note"), [("en", "no effect now"), ("de", "jetzt ohne Wirkung")])
def test_a_crossbow_without_a_target_says_so_before_it_is_played(locale: str, note: str) -> None:
    """Issue 20.16: a legal option that would do nothing (the log's "without effect") is marked
    on its button before the player picks it; one with a target is not."""
    from dataclasses import replace

    from tests.games.felsental.helpers import position

    shot = position(
        dwarf_hand=["DW15"], dragon_hand=["DR34"], active=Role.DWARVES, dwarves=("A2", "C1", "D4")
    )
    blocked = replace(shot, dwarf_hexes=("C2", "C1", "D4"))
    seat = shot.seat_of(Role.DWARVES)
    for state, idle in ((shot, False), (blocked, True)):
        html, legal = render(state, seat, locale)
        assert "play:DW15:crossbow" in legal
        button = re.search(r'<button[^>]*data-move="play:DW15:crossbow"[^>]*>.*?</button>', html, re.S)
        assert button is not None
        assert (note in button.group(0)) is idle
    assert FELSENTAL.view(blocked, 1 - seat)["without_effect"] == []  # the other side is told nothing
