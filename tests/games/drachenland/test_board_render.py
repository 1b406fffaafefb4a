"""The board partial renders every legal move and nothing hidden (templates/games/README.md)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import jinja2
import pytest

from app.games.drachenland.board import Tile
from app.games.drachenland.state import State
from app.web.fragments import KeptFragments
from tests.games.drachenland.helpers import GAME
from tests.games.drachenland.test_protocol import SAMPLES

ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader("templates"), autoescape=True, extensions=[KeptFragments]
)
TEMPLATE = ENV.get_template("games/drachenland/board.html")
DATA_MOVE = re.compile(r'data-move="([^"]*)"')


def render(state: State, seat: int | None, locale: str = "en", template: jinja2.Template = TEMPLATE) -> str:
    texts = GAME.ui_text

    def t(key: str) -> str:
        return texts.get(locale, {}).get(key) or texts["en"].get(key) or key

    legal = [str(m) for m in GAME.legal_moves(state, seat)] if seat is not None else []
    context: dict[str, Any] = {
        "view": GAME.view(state, seat),
        "seat": seat,
        "legal": legal,
        "players": [{"seat": s, "name": f"Name{s}"} for s in range(state.players)],
        "replay": False,
        "t": t,
        "_": lambda text: text,
        "locale": locale,
    }
    return template.render(**context)


@pytest.mark.parametrize("locale", ["en", "de"])
def test_a_board_of_kept_fragments_is_the_board_rendered_afresh(locale: str) -> None:
    """app/web/fragments.py: the map and the volcanoes are kept and put together again. Over the
    sample positions, for a spectator and every seat one after another (so one viewer's fragments
    serve the next; a face-down tile is shown to some seats only), the board is exactly the one
    rendered without the store, and fragments were reused."""
    kept = jinja2.Environment(loader=ENV.loader, autoescape=True, extensions=[KeptFragments])
    afresh = jinja2.Environment(loader=ENV.loader, autoescape=True, extensions=[KeptFragments])
    afresh.kept_fragments.enabled = False  # type: ignore[attr-defined]
    with_store = kept.get_template("games/drachenland/board.html")
    without = afresh.get_template("games/drachenland/board.html")
    for state in SAMPLES:
        for seat in [None, *range(state.players)]:
            assert render(state, seat, locale, with_store) == render(state, seat, locale, without), seat
    store = kept.kept_fragments  # type: ignore[attr-defined]
    assert len(afresh.kept_fragments) == 0 and store.hits > 10 * len(store)  # type: ignore[attr-defined]


@pytest.mark.parametrize("locale", ["en", "de"])
def test_every_data_move_is_legal_and_every_legal_move_is_reachable(locale: str) -> None:
    for state in SAMPLES[::9]:
        for seat in [None, *range(state.players)]:
            html = render(state, seat, locale)
            shown = set(DATA_MOVE.findall(html))
            legal = {str(m) for m in GAME.legal_moves(state, seat)} if seat is not None else set()
            assert shown <= legal
            assert legal - {"confirm"} <= shown, legal - shown


def test_clickable_elements_are_keyboard_reachable() -> None:
    for state in SAMPLES[::9]:
        html = render(state, state.current)
        for tag in re.findall(r"<[^>]*data-move=[^>]*>", html):
            assert "legal" in tag
            assert 'tabindex="0"' in tag and 'role="button"' in tag and "aria-label=" in tag


def test_board_has_pieces_for_log_highlighting() -> None:
    html = render(SAMPLES[-1], None)
    for piece in ["V01", "V15", "P01-1", "E1", "fig-0-red"]:
        assert f'data-piece="{piece}"' in html
    assert 'viewBox="0 0 1100 800"' in html
    assert "<script" not in html and "style=" not in html


def test_render_shows_nothing_hidden_from_the_viewer() -> None:
    """Changing others' screens, face-down tiles or the box tile does not change the page."""
    for state in SAMPLES[1::13]:
        if state.variant2 or state.is_over:
            continue
        for seat in [None, *range(state.players)]:
            altered = state
            for s in range(state.players):
                if s == seat:
                    continue
                p = altered.seats[s]
                p = replace(p, eggs=p.eggs + 5, gems=(p.gems[0] + 2, 9, 0, p.gems[3] + 1))
                altered = replace(altered, seats=(*altered.seats[:s], p, *altered.seats[s + 1 :]))
            vols = tuple(
                replace(v, tile=Tile.MAGIC_HAND if v.tile is not Tile.MAGIC_HAND else Tile.BOATMAN)
                if v.face_down
                else v
                for v in altered.volcanoes
            )
            altered = replace(altered, volcanoes=vols, box_tile=Tile.RING)
            assert render(altered, seat) == render(state, seat)


def test_own_screen_visible_to_owner_only() -> None:
    state = next(s for s in SAMPLES if not s.variant2 and not s.is_over and s.seats[0].eggs)
    own = render(state, 0)
    other = render(state, 1)
    assert own.count("<em>hidden</em>") == state.players - 1
    assert other.count("<em>hidden</em>") == state.players - 1
    assert render(state, None).count("<em>hidden</em>") == state.players
