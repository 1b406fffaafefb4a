"""Position strings, views and hidden information, move validation, log texts, the bot."""

from __future__ import annotations

import json

import pytest

from app.engine.protocol import CONFIRM, IllegalMove, Move
from app.engine.registry import get_game
from app.engine.rng import Rng
from app.engine.selfplay import derive_seed
from app.games.draco import DRACO
from app.games.draco.notation import format_position, parse_position
from app.games.draco.rules import apply, legal_moves, setup
from app.games.draco.state import DracoState, Phase
from tests.games.draco.support import m, position, rearranged, rng


def sample_states(games: int = 8, players: tuple[int, ...] = (2, 3, 4, 5)) -> list[DracoState]:
    """States from random games (every decision of each game)."""
    states = []
    for number in range(games):
        for n in players:
            chooser = Rng(derive_seed("draco-sample-chooser", number * 10 + n))
            game_rng = Rng(derive_seed("draco-sample", number * 10 + n))
            state = setup(n, {}, game_rng)
            states.append(state)
            while state.phase is not Phase.OVER:
                state, _ = apply(
                    state, state.active, chooser.choice(legal_moves(state, state.active)), game_rng
                )
                states.append(state)
    return states


STATES = sample_states()
"""About 6,000 states from 32 random games (all player counts)."""


def test_draco_is_registered() -> None:
    """The package registers itself under its slug."""
    assert get_game("draco") is DRACO
    assert DRACO.info.min_players == 2 and DRACO.info.max_players == 5


def test_position_string_round_trips_every_state() -> None:
    """The position string holds the full state exactly."""
    for state in STATES[::2]:
        text = format_position(state)
        assert parse_position(text) == state
        assert format_position(parse_position(text)) == text
        assert "\n" not in text


@pytest.mark.parametrize("junk", ["", "chess 2", "draco 2 a=0", "draco x a=0 ph=play pos= sc= h= p= d= pl=-"])
def test_parse_position_refuses_junk(junk: str) -> None:
    with pytest.raises(ValueError):
        parse_position(junk)


def test_every_legal_move_is_accepted() -> None:
    """legal_moves is the single truth: everything listed applies."""
    for state in STATES[::7]:
        if state.phase is Phase.OVER:
            continue
        for move in legal_moves(state, state.active):
            apply(state, state.active, move, Rng(derive_seed("draco-accept", 0)))


NEAR_MISSES = [
    "play:red",
    "play:red:9",
    "play:red:0",
    "play:red:03",
    "play:pink:3",
    "play:red:3:3",
    "mount:maybe",
    "mount",
    "discard:red",
    "discard:red:x",
    "confirm:now",
    "pass",
    "undo",
]


def test_near_miss_moves_raise_illegal_move() -> None:
    """Malformed or wrong moves raise IllegalMove with a reason, never another error."""
    for state in STATES[::11]:
        if state.phase is Phase.OVER:
            continue
        legal = legal_moves(state, state.active)
        for text in NEAR_MISSES:
            move = Move.parse(text)
            assert move not in legal
            with pytest.raises(IllegalMove) as refused:
                apply(state, state.active, move, rng())
            assert refused.value.reason
        other = (state.active + 1) % state.players
        assert legal_moves(state, other) == []
        with pytest.raises(IllegalMove, match="not your turn"):
            apply(state, other, legal[0], rng())


def test_views_are_json_and_never_carry_the_position() -> None:
    for state in STATES[::15]:
        text = format_position(state)
        for viewer in [None, *range(state.players)]:
            dumped = json.dumps(DRACO.view(state, viewer))
            assert text not in dumped
            assert format_position(state).split()[-2] not in dumped  # the draw pile's order


def test_views_hide_other_hands_the_draw_pile_and_cards_below_the_tops() -> None:
    """§7: hidden are the hands of others, the draw pile order and the cards below pile tops."""
    changed = 0
    for state in STATES[::13]:
        for viewer in [None, *range(state.players)]:
            view = DRACO.view(state, viewer)
            other = rearranged(state, viewer)
            changed += other != state
            assert DRACO.view(other, viewer) == view
            assert "deck" not in view and view["deck_size"] == len(state.deck)
            for player in view["players"]:
                # rank: from the public scores
                assert set(player) == {
                    "seat",
                    "dragon",
                    "top",
                    "score",
                    "hand_size",
                    "pile_size",
                    "active",
                    "rank",
                }
            if viewer is None:
                assert view["hand"] is None and view["targets"] == [] and view["mount"] is None
            else:
                shown = [(c["dragon"], c["value"]) for c in view["hand"]]
                assert shown == [(c.dragon.value, c.value) for c in state.hands[viewer]]
    assert changed > 100, "the rearrangement must really change hidden data"


def test_view_shows_public_information() -> None:
    """§7: positions, riders, top cards, hand and pile sizes, scores are public."""
    state = position(hands=["B1R3", "G2A1Y1"], piles=["K1R1", "B2"], at={"red": 5}, scores=[3, 7])
    view = DRACO.view(state, None)
    red = next(d for d in view["dragons"] if d["id"] == "red")
    assert red["space"] == 5 and red["rider"] == 0 and red["value"] == 4
    blue = next(d for d in view["dragons"] if d["id"] == "blue")
    assert blue["rider"] == 1 and blue["last"]
    assert [p["score"] for p in view["players"]] == [3, 7]
    assert [p["hand_size"] for p in view["players"]] == [2, 3]
    assert [p["pile_size"] for p in view["players"]] == [2, 1]
    assert view["players"][0]["top"] == {"dragon": "red", "value": 1}


def test_view_lists_target_spaces_for_each_legal_play() -> None:
    """§8: one target circle per (dragon, space); capped cards share one circle, the lowest plays."""
    state = position(hands=["R3R5R4B1B1Y2", "G2A1"], piles=["K1", "B2"], at={"red": 27, "yellow": 4})
    view = DRACO.view(state, 0)
    targets = {(t["dragon"], t["space"]): t["move"] for t in view["targets"]}
    assert targets == {
        ("blue", 1): "play:blue:1",
        ("red", 30): "play:red:3",
        ("yellow", 6): "play:yellow:2",
    }
    assert DRACO.view(state, 1)["targets"] == []
    hand = view["hand"]
    assert {c["play"] for c in hand} == {str(x) for x in legal_moves(state, 0)}


def test_describe_gives_english_and_german_lines_for_every_event() -> None:
    """Every event kind has a log line in both languages, naming its dragons."""
    seen: set[str] = set()
    for number in range(6):
        game_rng = Rng(derive_seed("draco-describe", number))
        chooser = Rng(derive_seed("draco-describe-chooser", number))
        state = setup(2 + number % 4, {}, game_rng)
        while state.phase is not Phase.OVER:
            state, events = apply(
                state, state.active, chooser.choice(legal_moves(state, state.active)), game_rng
            )
            for event in events:
                en, de = DRACO.describe(event, "en"), DRACO.describe(event, "de")
                assert en and de and en != de
                assert en != event.kind
                seen.add(event.kind)
    reshuffle = position(hands=["R1", "G2A1"], piles=["B1R2", "Y1G1"], at={"red": 5}, deck="-")
    played, _ = apply(reshuffle, 0, m("play:red:1"), rng())
    for event in apply(played, 0, CONFIRM, rng())[1]:
        assert DRACO.describe(event, "en") != DRACO.describe(event, "de")
        seen.add(event.kind)
    assert seen >= {
        "dragon_moved",
        "rider_kept",
        "rider_changed",
        "mount_offered",
        "scoring",
        "discarded",
        "reshuffled",
        "drew",
        "drew_cards",
        "game_over",
    }


def test_drawn_cards_are_an_audience_only_reveal() -> None:
    """§7: only confirm draws; the cards go to their owner's event, the count is public."""
    state = position(hands=["R1K1", "G2A1"], piles=["R2", "B2"], at={"red": 5})
    after, events = apply(state, 0, m("play:red:1"), rng())
    assert not any(e.reveals for e in events)
    _, drew = apply(after, 0, CONFIRM, rng())
    assert [(e.kind, e.audience, e.reveals) for e in drew] == [("drew", None, False), ("drew_cards", 0, True)]


def test_bot_plays_legal_moves_to_the_end() -> None:
    """timeout_move picks a legal move in every state, and bot games end."""
    for state in STATES[::13]:
        if state.phase is not Phase.OVER:
            assert DRACO.timeout_move(state, state.active) in legal_moves(state, state.active)
    for number in range(4):
        game_rng = Rng(derive_seed("draco-bot", number))
        state = setup(2 + number, {}, game_rng)
        for _ in range(2000):
            if state.phase is Phase.OVER:
                break
            state, _ = apply(state, state.active, DRACO.timeout_move(state, state.active), game_rng)
        assert state.phase is Phase.OVER


def test_bot_prefers_the_better_scoring() -> None:
    """The greedy bot takes the seed example's +6 rather than a move that gains nothing."""
    state = position(hands=["B3Y1", "G2A1"], piles=["R1", "B2"], at={"red": 10, "blue": 8, "yellow": 3})
    assert DRACO.timeout_move(state, 0) == m("play:blue:3")
