"""The board partial (templates/games/draco/board.html) against the contract in templates/games/README.md."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest

from app.engine.rng import Rng
from app.engine.selfplay import derive_seed
from app.games.draco import DRACO
from app.games.draco.rules import apply, legal_moves, setup
from app.games.draco.state import DracoState, Phase
from app.web.fragments import KeptFragments
from tests.games.draco.support import m, position, rearranged, rng

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"
ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, extensions=[KeptFragments]
)
NAMES = ["Ann & <b>", "Bo", "Cy", "Di", "Ed"]


def render(
    state: DracoState,
    seat: int | None,
    locale: str = "en",
    *,
    replay: bool = False,
    env: jinja2.Environment = ENV,
) -> tuple[str, list[str]]:
    strings = DRACO.ui_text[locale]
    legal = [] if seat is None or replay else [str(x) for x in legal_moves(state, seat)]
    html = env.get_template("games/draco/board.html").render(
        view=DRACO.view(state, seat),
        seat=seat,
        legal=legal,
        players=[{"seat": s, "name": NAMES[s]} for s in range(state.players)],
        replay=replay,
        t=lambda key: strings.get(key, DRACO.ui_text["en"].get(key, key)),
        _=lambda text: text,
        locale=locale,
    )
    return html, legal


def board_states() -> list[DracoState]:
    """States of every phase from random games of every size (a few of each special phase)."""
    states: list[DracoState] = []
    for number in range(4):
        for players in (2, 3, 4, 5):
            game_rng = Rng(derive_seed("draco-render", number * 10 + players))
            chooser = Rng(derive_seed("draco-render-chooser", number * 10 + players))
            state = setup(players, {}, game_rng)
            step = 0
            special = {Phase.MOUNT: 0, Phase.DISCARD: 0}
            while state.phase is not Phase.OVER:
                legal = legal_moves(state, state.active)
                if state.phase in special and len(legal) > 1:
                    special[state.phase] += 1
                    if special[state.phase] <= 2:
                        states.append(state)
                elif step % 60 == 0 or state.phase is Phase.ENDING:
                    states.append(state)
                state, _ = apply(state, state.active, chooser.choice(legal), game_rng)
                step += 1
            states.append(state)
    return states


STATES = board_states()


@pytest.mark.parametrize("locale", ["en", "de"])
def test_a_board_of_kept_fragments_is_the_board_rendered_afresh(locale: str) -> None:
    """app/web/fragments.py: the path (and each of its spaces), dragons, cards and player rows are
    kept and put together again for later renders.
    Over random positions of every size, for every seat and a spectator one after another (so one
    seat's fragments serve the next), the board is exactly the one rendered without the store: a
    key missing something the block shows (whose dragon is "mine", a moved dragon, a name) shows
    here. And fragments were reused."""
    kept = jinja2.Environment(loader=ENV.loader, autoescape=True, extensions=[KeptFragments])
    afresh = jinja2.Environment(loader=ENV.loader, autoescape=True, extensions=[KeptFragments])
    afresh.kept_fragments.enabled = False  # type: ignore[attr-defined]
    for state in STATES:
        for seat in [*range(state.players), None]:
            for replay in (False, True):
                shown, _ = render(state, seat, locale, replay=replay, env=kept)
                assert shown == render(state, seat, locale, replay=replay, env=afresh)[0], (state, seat)
    assert len(afresh.kept_fragments) == 0  # type: ignore[attr-defined]
    store = kept.kept_fragments  # type: ignore[attr-defined]
    assert store.hits > 4 * len(store)  # the whole path once per position, else its spaces


def test_every_data_move_is_legal_and_every_legal_move_is_reachable() -> None:
    """README contract: clickable elements carry legal notations; all legal moves but confirm appear."""
    phases = set()
    for state in STATES:
        for seat in [None, *range(state.players)]:
            html, legal = render(state, seat)
            moves = re.findall(r'data-move="([^"]*)"', html)
            assert set(moves) <= set(legal)
            assert set(legal) - {"confirm"} <= set(moves)
            if moves:
                phases.add(state.phase)
    assert {Phase.PLAY, Phase.MOUNT, Phase.DISCARD} <= phases


def test_clickable_elements_are_keyboard_reachable_and_labelled() -> None:
    """README contract: class legal, role button, aria-label on every data-move element; every move
    has a Tab stop (a hand card), the target rings that repeat it are not Tab stops of their own."""
    for state in STATES[:3]:
        html, legal = render(state, state.active)
        tags = re.findall(r"<[^>]*data-move=[^>]*>", html)
        assert tags
        stops = set()
        for tag in tags:
            assert "legal" in tag and 'role="button"' in tag and "aria-label=" in tag
            move = re.search(r'data-move="([^"]+)"', tag).group(1)  # type: ignore[union-attr]
            if 'tabindex="0"' in tag:
                stops.add(move)
            else:
                assert 'class="target ' in tag and 'tabindex="-1"' in tag, tag
        assert stops == set(legal) - {"confirm"}


def test_nothing_hidden_appears_for_other_seats() -> None:
    """§7: the rendered board does not change when data hidden from the viewer changes."""
    for state in STATES[::3]:
        for seat in [None, *range(state.players)]:
            assert render(rearranged(state, seat), seat)[0] == render(state, seat)[0]


def test_target_circles_and_hand_cards_share_the_move() -> None:
    """§8: a hand card and the target circle on the space it reaches carry the same data-move."""
    state = position(hands=["R3R5R4B1B1Y2", "G2A1"], piles=["K1", "B2"], at={"red": 27, "yellow": 4})
    html, legal = render(state, 0)
    circles = re.findall(r'<g class="target legal stroke-(\w+)(?: shared)?" data-move="([^"]+)"', html)
    assert sorted(circles) == [("blue", "play:blue:1"), ("red", "play:red:3"), ("yellow", "play:yellow:2")]
    cards = re.findall(r'<button type="button" class="dcard legal play bg-\w+" data-move="([^"]+)"', html)
    assert set(cards) == set(legal)


def test_keep_and_take_are_two_clear_choices() -> None:
    """§8: the optional change shows keep and take as two buttons."""
    state = position(hands=["Y1B1", "G2A1"], piles=["R1", "B2"], at={"blue": 3})
    chosen, _ = apply(state, 0, m("play:yellow:1"), rng())
    html, _ = render(chosen, 0)
    assert 'data-move="mount:keep"' in html and 'data-move="mount:take"' in html
    assert "Keep my dragon (Red)" in html and "Take Yellow" in html
    html_de, _ = render(chosen, 0, "de")
    assert "Meinen Drachen behalten (Rot)" in html_de and "Drachen Gelb übernehmen" in html_de


def test_summit_cards_are_offered_for_discard() -> None:
    """§8: after the play, summit cards in hand are highlighted, one click each."""
    state = position(hands=["B1K2R3Y4", "G2A1"], piles=["R1", "B2"], at={"blue": 27, "black": 30, "red": 5})
    after, _ = apply(state, 0, m("play:red:3"), rng())
    html, _ = render(after, 0)
    assert re.findall(r'class="dcard legal discard bg-\w+" data-move="([^"]+)"', html) == [
        "discard:blue:1",
        "discard:black:2",
    ]
    assert 'data-move="discard:yellow:4"' not in html


def test_board_shows_every_dragon_space_value_and_rider() -> None:
    """§8: ten dragons as pieces, every space value printed, riders marked, names escaped."""
    state = STATES[5]
    html, _ = render(state, None)
    for dragon in (
        "blue",
        "brown",
        "black",
        "red",
        "yellow",
        "green",
        "gray",
        "lightblue",
        "purple",
        "orange",
    ):
        assert html.count(f'data-piece="dragon-{dragon}"') >= 1
    assert len(re.findall(r'class="space-value"', html)) == 30, "every space but the start (the camp)"
    assert len(re.findall(r'class="rider-badge seat-\d"', html)) == state.players
    assert "Ann &amp; &lt;b&gt;" in html and "<b>" not in html
    assert "style=" not in html and "<script" not in html


@pytest.mark.parametrize("locale", ["en", "de"])
def test_replay_and_spectators_get_no_moves(locale: str) -> None:
    state = STATES[1]
    for seat in [None, state.active]:
        html, _ = render(state, seat, locale, replay=True)
        assert "data-move" not in html


@pytest.mark.parametrize("locale", ["en", "de"])
def test_rules_pages_are_plain_fragments(locale: str) -> None:
    """The rules pages render as plain HTML fragments with the online conventions, no scripts or styles."""
    html = ENV.get_template(f"games/draco/rules_{locale}.html").render()
    assert "<script" not in html and "style=" not in html and "<html" not in html
    assert "−2" in html and ("Confirm" in html if locale == "en" else "Bestätigen" in html)
