"""Notation, legality of every offered move, near misses, undo barriers, hidden information."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from app.engine.protocol import CONFIRM, IllegalMove, Move
from app.engine.registry import get_game
from app.engine.replay import rebuild as replay_last
from app.engine.rng import Rng
from app.engine.selfplay import derive_seed
from app.engine.turn import Turn, decide
from app.games.drachenland.board import Tile
from app.games.drachenland.state import Phase, State
from tests.games.drachenland.helpers import GAME, SEED, fresh, legal, place, play

NEAR_MISSES = [
    "roll:1",
    "choose",
    "choose:purple:a",
    "choose:red:c",
    "choose:red:a:b",
    "move",
    "move:V99",
    "move:E4:P01-1",
    "move:P01-1:P01-2:V01",
    "fly:V01",
    "fly:V01:big",
    "call",
    "boat:W9",
    "egg:2",
    "take",
    "confirm:now",
    "x",
]


def sample_states(games: int = 6, every: int = 29) -> list[State]:
    """States from random games (all phases, several player counts and variants)."""
    states = []
    for g in range(games):
        rng = Rng(derive_seed("dl-sample", g))
        chooser = Rng(derive_seed("dl-sample-chooser", g))
        state = GAME.setup(2 + g % 3, {"variant1": g % 2 == 1, "variant2": g % 4 == 3}, rng)
        n = 0
        while GAME.outcome(state) is None:
            if n % every == 0:
                states.append(state)
            state, _ = GAME.apply(
                state, state.current, chooser.choice(GAME.legal_moves(state, state.current)), rng
            )
            n += 1
        states.append(state)
    return states


SAMPLES = sample_states()


def test_position_round_trips() -> None:
    """The position string holds the full state: parse(format(s)) == s."""
    for state in SAMPLES:
        text = GAME.format_position(state)
        assert GAME.parse_position(text) == state
        assert GAME.format_position(GAME.parse_position(text)) == text
        assert "\n" not in text and len(text) < 400


def test_positions_name_the_rules_their_match_began_under() -> None:
    """New matches play ruleset drachenland-2 (``DL2 …``); a ``DL1 …`` position (a match begun
    before the start-round and flight fixes) parses with the earlier rules and stays ``DL1``."""
    state = fresh(2)
    assert GAME.info.ruleset == "drachenland-2" and state.rules == 2
    text = GAME.format_position(state)
    assert text.startswith("DL2 ")
    old = GAME.parse_position("DL1" + text[3:])
    assert old == replace(state, rules=1) and GAME.format_position(old) == "DL1" + text[3:]


def test_matches_of_ruleset_1_replay_with_its_rules() -> None:
    """The game kept for ruleset drachenland-1 sets up rules 1, so an old match's start round
    of fewer than N spaces still replays; the current rules refuse that very log."""
    earlier = get_game("drachenland", "drachenland-1")
    assert earlier is not GAME and earlier.info.ruleset == "drachenland-1"
    assert get_game("drachenland", "drachenland-2") is GAME and get_game("drachenland") is GAME
    assert get_game("drachenland", "drachenland-0") is GAME, "an unknown ruleset plays the current rules"
    seed = derive_seed("drachenland-old-match", 1)
    first = earlier.setup(2, {}, Rng(seed)).first
    log = [(first, Move.parse("choose:red")), (first, Move.parse("move:E1:P01-1"))]
    assert replay_last(earlier, 2, {}, seed, log).state.rules == 1
    with pytest.raises(IllegalMove):
        replay_last(GAME, 2, {}, seed, log)


def test_parse_position_rejects_junk() -> None:
    for junk in ["", "DL1", "XX 1 2", GAME.format_position(SAMPLES[0]).replace("DL2", "DL9")]:
        with pytest.raises(ValueError):
            GAME.parse_position(junk)


def test_every_legal_move_is_accepted() -> None:
    for state in SAMPLES[::3]:
        for move in GAME.legal_moves(state, state.current):
            after, _ = GAME.apply(state, state.current, move, Rng(SEED))
            GAME.invariants(after)


def test_near_misses_raise_illegal_move() -> None:
    """Malformed or out-of-phase moves raise IllegalMove, never another error."""
    for state in SAMPLES[::5]:
        offered = {str(m) for m in GAME.legal_moves(state, state.current)}
        for text in [*NEAR_MISSES, "roll", "reroll", "end", "pass", "egg", "quick", "confirm"]:
            if text in offered:
                continue
            with pytest.raises(IllegalMove):
                GAME.apply(state, state.current, Move.parse(text), Rng(SEED))


def test_no_moves_for_other_seats() -> None:
    for state in SAMPLES[:20]:
        for seat in range(state.players):
            if seat not in GAME.to_act(state):
                assert GAME.legal_moves(state, seat) == []
                with pytest.raises(IllegalMove, match="not your turn"):
                    GAME.apply(state, seat, CONFIRM, Rng(SEED))


def test_roll_and_reveal_are_undo_barriers_moves_are_pending() -> None:
    """Rolls use the rng and reveals are marked: both commit; choose and walk stay pending."""
    state = replace(fresh(2), turns=2, turn=replace(fresh(2).turn, phase=Phase.ROLL))
    state = place(state, 0, "red", "P35-1")
    turn = Turn(state, 0)
    step = decide(GAME, turn, 0, Move("roll"), SEED, state)
    assert step.is_commit
    dice = step.state.turn.dice
    assert dice is not None
    die = "b" if dice[1] >= dice[0] else "a"
    step2 = decide(GAME, step.turn, 0, Move.parse(f"choose:red:{die}"), SEED, step.state)
    assert not step2.is_commit and step2.turn.pending
    step3 = decide(GAME, step2.turn, 0, Move.parse("move:V13"), SEED, step2.state)
    assert step3.is_commit  # the face-down tile of V13 was turned


def test_views_are_json_and_hide_screens_and_face_down_tiles() -> None:
    """§7: others' eggs/gems and face-down tiles are hidden; the 16th tile is never shown."""
    for state in SAMPLES[::4]:
        for viewer in [None, *range(state.players)]:
            view = GAME.view(state, viewer)
            json.dumps(view)
            for v, vol in zip(view["volcanoes"], state.volcanoes, strict=True):
                if vol.face_down:
                    assert v["tile"] is None and v["face_down"]
            for p in view["players"]:
                hidden = not (state.variant2 or state.is_over or p["seat"] == viewer)
                assert (p["holdings"] is None) == hidden
                assert (p["score"] is None) == hidden


def test_view_does_not_change_when_hidden_data_changes() -> None:
    """Altering another seat's screen, face-down tiles or the box tile leaves a view unchanged."""
    for state in SAMPLES[1::6]:
        if state.variant2 or state.is_over:
            continue
        for viewer in [None, *range(state.players)]:
            others = [s for s in range(state.players) if s != viewer]
            altered = state
            for s in others:
                p = altered.seats[s]
                p = replace(p, eggs=p.eggs + 3, gems=(p.gems[0] + 1, 0, 7, p.gems[3] + 2))
                altered = replace(altered, seats=(*altered.seats[:s], p, *altered.seats[s + 1 :]))
            vols = tuple(
                replace(v, tile=Tile.RING if v.tile is not Tile.RING else Tile.BOATMAN) if v.face_down else v
                for v in altered.volcanoes
            )
            box = Tile.RING if altered.box_tile is not Tile.RING else Tile.BOATMAN
            altered = replace(altered, volcanoes=vols, box_tile=box)
            assert GAME.view(altered, viewer) == GAME.view(state, viewer)


def test_variant2_shows_every_screen_but_not_face_down_tiles() -> None:
    """§8 variant 2: no screens; face-down tiles stay hidden."""
    state = fresh(3, variant2=True)
    view = GAME.view(state, None)
    assert all(p["holdings"] is not None for p in view["players"])
    assert all(v["tile"] is None for v in view["volcanoes"])


def test_timeout_move_is_legal_everywhere() -> None:
    for state in SAMPLES:
        if GAME.outcome(state) is None:
            assert GAME.timeout_move(state, state.current) in GAME.legal_moves(state, state.current)


def test_describe_every_event_in_both_languages() -> None:
    rng = Rng(derive_seed("dl-describe", 0))
    state = GAME.setup(3, {}, rng)
    kinds: set[str] = set()
    while GAME.outcome(state) is None:
        state, evs = GAME.apply(state, state.current, GAME.timeout_move(state, state.current), rng)
        for e in evs:
            kinds.add(e.kind)
            for locale in ("en", "de"):
                line = GAME.describe(e, locale)
                assert line and line != e.kind
    assert {"rolled", "chose", "walked", "revealed", "took_egg", "game_over"} <= kinds


def test_options_declared() -> None:
    keys = {o.key: o for o in GAME.info.options}
    assert set(keys) == {"variant1", "variant2"}
    assert all(o.choices == (False, True) and o.default is False for o in keys.values())


def test_start_round_tile_play_is_impossible() -> None:
    """§4.1: no dice in the start round, so no roll or reroll is offered."""
    state = play(fresh(2), "choose:red")
    assert "roll" not in legal(state) and "reroll" not in legal(state)
