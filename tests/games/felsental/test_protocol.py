"""Felsental against the platform protocol: hidden information, notation, legality, words, bot."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache

import pytest

from app.engine.protocol import IllegalMove, InvalidMove, Move
from app.engine.registry import get_game
from app.engine.rng import Rng
from app.engine.selfplay import derive_seed
from app.games.felsental import FELSENTAL
from app.games.felsental.board import Role
from app.games.felsental.state import FelsState, Side
from app.games.felsental.text import UI_TEXT

OPTION_SETS = ({}, {"dwarf_setup": "free", "hand_exchange": True}, {"legs": 1})


@cache
def sample_states() -> tuple[tuple[FelsState, ...], tuple[str, ...]]:
    """States along a few random matches (every decision), and every event kind seen."""
    states: list[FelsState] = []
    kinds: set[str] = set()
    for n, options in enumerate(OPTION_SETS * 2):
        rng = Rng(derive_seed("felsental-protocol", n))
        chooser = Rng(derive_seed("felsental-protocol-chooser", n))
        state = FELSENTAL.setup(2, FELSENTAL.info.normalise_options(options), rng)
        while FELSENTAL.outcome(state) is None:
            states.append(state)
            (seat,) = FELSENTAL.to_act(state)
            state, events = FELSENTAL.apply(
                state, seat, chooser.choice(FELSENTAL.legal_moves(state, seat)), rng
            )
            kinds.update(e.kind for e in events)
        states.append(state)
    return tuple(states), tuple(sorted(kinds))


def every(step: int) -> list[FelsState]:
    return list(sample_states()[0][::step])


def test_registered_under_its_slug() -> None:
    assert get_game("felsental") is FELSENTAL
    assert FELSENTAL.info.min_players == FELSENTAL.info.max_players == 2


def test_position_string_round_trips() -> None:
    """The position string holds the full state on one line and parses back to the same state."""
    for state in every(3):
        text = FELSENTAL.format_position(state)
        assert "\n" not in text and len(text) < 700
        again = FELSENTAL.parse_position(text)
        assert again == state
        assert FELSENTAL.format_position(again) == text


@pytest.mark.parametrize("junk", ["", "fels1", "chess 8/8", "fels1 o=2.standard.0", "fels1 " + "x=1 " * 20])
def test_bad_position_strings_are_refused(junk: str) -> None:
    with pytest.raises(InvalidMove):
        FELSENTAL.parse_position(junk)


def test_every_legal_move_is_accepted() -> None:
    """legal_moves is the truth: apply accepts each listed move."""
    for state in every(7):
        for seat in FELSENTAL.to_act(state):
            for move in FELSENTAL.legal_moves(state, seat):
                FELSENTAL.apply(state, seat, move, Rng(derive_seed("accept", 0)))


def test_near_miss_and_junk_moves_are_illegal() -> None:
    """Wrong args, unknown actions, other seats: always IllegalMove, never another error."""
    junk = [
        "pass",
        "draw:1",
        "confirm:now",
        "play",
        "play:DR99:bite",
        "play:DR01",
        "play:DW01:attack1:extra",
        "to:Z9",
        "to",
        "dir:7",
        "dir:x",
        "dwarf:dragon",
        "target:warrior:1",
        "block:warrior",
        "block:warrior:DR99",
        "wound:scales",
        "place:warrior:C3",
        "discard:DW99",
    ]
    rng = Rng(derive_seed("junk", 0))
    for state in every(11):
        acting = FELSENTAL.to_act(state)
        for seat in (0, 1):
            legal = FELSENTAL.legal_moves(state, seat)
            if seat not in acting:
                assert legal == []
            for text in junk:
                move = Move.parse(text)
                if move in legal:
                    continue
                with pytest.raises(IllegalMove):
                    FELSENTAL.apply(state, seat, move, rng)
            other = FELSENTAL.legal_moves(state, 1 - seat)
            for move in other[:3]:
                if move not in legal:
                    with pytest.raises(IllegalMove):
                        FELSENTAL.apply(state, seat, move, rng)


def _swap_hidden(state: FelsState, role: Role) -> FelsState | None:
    """Swap a hand card of ``role`` with a card of its draw pile (same sizes, other cards)."""
    side = state.side(role)
    if not side.hand or not side.deck:
        return None
    out, into = side.hand[0], side.deck[-1]
    hand = tuple(sorted((*side.hand[1:], into)))
    deck = tuple(sorted((*side.deck[:-1], out)))
    changed = Side(hand, deck, side.discard)
    return replace(state, dragon=changed) if role is Role.DRAGON else replace(state, dwarves=changed)


def test_views_hide_hands_and_draw_piles() -> None:
    """Other seats and spectators see the same view whatever the hidden cards are."""
    checked = 0
    for state in every(9):
        for role in Role:
            other = _swap_hidden(state, role)
            if other is None:
                continue
            owner = state.seat_of(role)
            for viewer in (1 - owner, None):
                assert FELSENTAL.view(state, viewer) == FELSENTAL.view(other, viewer)
                checked += 1
            assert FELSENTAL.view(state, owner) != FELSENTAL.view(other, owner)
    assert checked > 50


def test_hidden_cards_never_appear_in_a_view() -> None:
    """No draw-pile card in any view; a hand only in its owner's view."""
    for state in every(9):
        for viewer in (0, 1, None):
            text = json.dumps(FELSENTAL.view(state, viewer))
            for role in Role:
                side = state.side(role)
                assert not any(f'"{c}"' in text for c in side.deck)
                if viewer != state.seat_of(role):
                    assert not any(f'"{c}"' in text for c in side.hand)
            assert FELSENTAL.format_position(state) not in text


def test_view_shows_public_facts() -> None:
    """Sizes of hands and piles, discards, board, tableaus, markers and the score are public."""
    state = sample_states()[0][40]
    view = FELSENTAL.view(state, None)
    assert view["hand"] is None
    assert view["cards"]["dragon"]["hand_size"] == len(state.dragon.hand)
    assert view["cards"]["dwarves"]["deck_size"] == len(state.dwarves.deck)
    assert len(view["hexes"]) == 19 and len(view["dwarves"]) == 3 and len(view["dragon"]["tracks"]) == 4
    assert {"netted", "fury_used", "score", "leg", "legs", "results"} <= set(view)
    own = FELSENTAL.view(state, state.dragon_seat)
    assert [c["id"] for c in own["hand"]] == list(state.dragon.hand)


def test_private_draw_events_have_an_audience() -> None:
    """Drawn cards go in an event for the drawer only, marked as a reveal."""
    rng = Rng(derive_seed("events", 0))
    state = FELSENTAL.setup(2, {}, rng)
    state, events = FELSENTAL.apply(state, state.dragon_seat, Move("draw"), rng)
    private = [e for e in events if e.data.get("cards")]
    assert private and all(e.audience == state.dragon_seat and e.reveals for e in private)
    assert all(not e.data.get("cards") for e in events if e.audience is None)


def test_every_event_has_a_log_line_in_both_languages() -> None:
    """describe() covers every event kind self-play produces, in English and German."""
    _, kinds = sample_states()
    assert {"attack_declared", "moved", "drew", "leg_won", "match_over"} <= set(kinds)
    rng = Rng(derive_seed("describe", 0))
    for state in every(2)[:400]:
        (seat,) = FELSENTAL.to_act(state) or {0}
        if FELSENTAL.outcome(state) is not None:
            continue
        for move in FELSENTAL.legal_moves(state, seat)[:4]:
            _, events = FELSENTAL.apply(state, seat, move, rng)
            for event in events:
                en, de = FELSENTAL.describe(event, "en"), FELSENTAL.describe(event, "de")
                assert en and de and en != event.kind and de != event.kind
                assert "{" not in en and "{" not in de


def test_ui_text_has_the_same_keys_in_both_languages() -> None:
    assert set(UI_TEXT["en"]) == set(UI_TEXT["de"])


def test_timeout_move_is_always_legal() -> None:
    """The greedy bot picks a legal move for whoever is to act."""
    for state in every(3):
        for seat in FELSENTAL.to_act(state):
            assert FELSENTAL.timeout_move(state, seat) in FELSENTAL.legal_moves(state, seat)


def test_bot_plays_whole_matches() -> None:
    """Two greedy bots finish a two-leg match."""
    for n in range(4):
        rng = Rng(derive_seed("bots", n))
        state = FELSENTAL.setup(2, {}, rng)
        steps = 0
        while FELSENTAL.outcome(state) is None:
            (seat,) = FELSENTAL.to_act(state)
            state, _ = FELSENTAL.apply(state, seat, FELSENTAL.timeout_move(state, seat), rng)
            FELSENTAL.invariants(state)
            steps += 1
            assert steps < 5000
        assert len(state.results) == 2


def test_moves_events_and_views_are_plain_json() -> None:
    """Move args are plain strings; events and views survive a JSON round trip unchanged."""
    rng = Rng(derive_seed("json", 0))
    for state in every(13):
        for seat in FELSENTAL.to_act(state):
            for move in FELSENTAL.legal_moves(state, seat):
                assert all(type(a) is str for a in move.args) and type(move.action) is str
                assert Move.parse(str(move)) == move
            _, events = FELSENTAL.apply(state, seat, FELSENTAL.legal_moves(state, seat)[0], rng)
            for event in events:
                raw = event.to_json()
                assert json.loads(json.dumps(raw)) == raw
        for viewer in (0, 1, None):
            view = FELSENTAL.view(state, viewer)
            assert json.loads(json.dumps(view)) == view
