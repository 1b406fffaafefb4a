"""Scoring (spec §4 step 3, §6 worked examples, §9 #9, #13, #15, #16, #22). 2-3 player side."""

from __future__ import annotations

from app.engine.protocol import CONFIRM
from app.games.draco.rules import KEEP, apply
from app.games.draco.state import Phase
from tests.games.draco.support import m, position, rng

LOW = {
    d: 2
    for d in ("blue", "brown", "black", "red", "yellow", "green", "gray", "lightblue", "purple", "orange")
}


def test_seed_example_big_scoring_pays_everyone_their_space() -> None:
    """§6 example 1 (seed 000): your dragon on a 6, an opponent moved onto the green 4: +6 / +4."""
    state = position(hands=["B3K1", "G2A1"], piles=["R1", "B2"], at={**LOW, "red": 10, "blue": 8})
    after, events = apply(state, 0, m("play:blue:3"), rng())
    assert after.positions[0] == 11
    assert after.scores == (6, 4)
    scoring = events[-1]
    assert scoring.kind == "scoring" and scoring.data["kind"] == "big"
    assert scoring.data["gains"] == [6, 4] and scoring.data["dragon"] == "blue"
    assert set(scoring.pieces) == {"dragon-blue", "dragon-red", "space-11"}


def test_seed_example_small_scoring_pays_only_low_spaces() -> None:
    """§6 example 1: moved onto a blue space instead: he gains the blue value, you nothing (6 > 3)."""
    state = position(hands=["B3K1", "G2A1"], piles=["R1", "B2"], at={**LOW, "red": 10, "blue": 6})
    after, events = apply(state, 0, m("play:blue:3"), rng())
    assert after.positions[0] == 9
    assert after.scores == (0, 3)
    assert events[-1].data["kind"] == "small" and events[-1].data["gains"] == [0, 3]


def test_small_scoring_pays_every_rider_on_a_value_up_to_3() -> None:
    """§4.3 blue, §9 #15: values <= 3 pay (start 0, summit 2/0/-2 too); the moved dragon qualifies."""
    state = position(
        hands=["Y3K1", "G2A1", "L1N1"],
        piles=["R1", "B2", "K3"],
        at={**LOW, "red": 10, "blue": 28, "black": 30, "yellow": 6},
        scores=[0, 0, 5],
    )
    after, events = apply(state, 0, m("play:yellow:3"), rng())
    assert after.rider_index(0) == 4  # forced change onto yellow, which now stands on blue 3
    assert after.scores == (3, 2, 3)
    assert events[-1].data["gains"] == [3, 2, -2]


def test_small_scoring_ignores_the_summit_4_and_values_above_3() -> None:
    """§4.3 blue: summit 4 does not qualify; start 0 pays 0."""
    state = position(
        hands=["Y3K2", "G2A1", "L1N1"],
        piles=["R1", "B2", "K3"],
        at={**LOW, "red": 0, "blue": 27, "black": 7},
    )
    after, events = apply(state, 0, m("play:black:2"), rng())
    assert after.positions[2] == 9
    assert events[-1].data["gains"] == [0, 0, 3]
    assert after.scores == (0, 0, 3)


def test_big_scoring_on_green_pays_every_value() -> None:
    """§4.3 green: every player gains the value of his dragon's space."""
    state = position(
        hands=["Y3K1", "G2A1", "L1N1"],
        piles=["R1", "B2", "K3"],
        at={**LOW, "red": 24, "blue": 27, "black": 0, "yellow": 15},
    )
    after, events = apply(state, 0, m("play:yellow:3"), rng())
    assert after.positions[4] == 18  # green 7
    assert events[-1].data["kind"] == "big"
    assert after.scores == (7, 4, 0)  # seat 0 switched onto yellow (7); blue on summit 4; black on start


def test_summit_first_arrival_is_a_big_scoring() -> None:
    """§4.3 red: a dragon reaching a red space for the first time triggers a big scoring."""
    state = position(hands=["B3K1", "G2A1"], piles=["R1", "B2"], at={**LOW, "red": 10, "blue": 26})
    after, events = apply(state, 0, m("play:blue:3"), rng())
    assert after.positions[0] == 29
    assert events[-1].data["kind"] == "summit" and after.scores == (6, 0)
    assert after.play is not None and after.play.scored


def test_red_to_red_move_scores_nothing_and_refills() -> None:
    """§4.3, §9 #9: a move within the summit scores nothing, so the player refills."""
    state = position(hands=["B1K1", "G2A1"], piles=["R1", "B2"], at={**LOW, "red": 10, "blue": 27})
    after, events = apply(state, 0, m("play:blue:1"), rng())
    assert [e.kind for e in events] == ["dragon_moved", "rider_kept"]
    assert after.scores == (0, 0) and after.play is not None and not after.play.scored
    done, _ = apply(after, 0, CONFIRM, rng())
    assert len(done.hands[0]) == 6


def test_minus_two_applies_only_if_the_total_stays_non_negative() -> None:
    """§6 example 3, §9 #16: total 1 on the -2 space stays 1; total 5 becomes 3; total 2 becomes 0."""
    for before, expected in ((1, 1), (5, 3), (2, 0), (0, 0)):
        state = position(
            hands=["G2K1", "A1B3"],
            piles=["B1", "Y2"],
            at={**LOW, "yellow": 30, "green": 16},
            scores=[0, before],
        )
        after, events = apply(state, 0, m("play:green:2"), rng())
        assert after.scores[1] == expected
        blocked = events[-1].data["blocked"]
        assert blocked == ([1] if before < 2 else [])


def test_scoring_triggers_even_when_nobody_rides_the_dragon() -> None:
    """§4.3: the moved dragon's space triggers also when it stays free (keep choice)."""
    state = position(
        hands=["Y1K1", "G2A1"], piles=["R1", "B2"], at={**LOW, "yellow": 2, "red": 6, "blue": 12}
    )
    chosen, _ = apply(state, 0, m("play:yellow:1"), rng())
    assert chosen.phase is Phase.MOUNT and chosen.scores == (0, 0)  # scoring waits for the choice
    kept, events = apply(chosen, 0, KEEP, rng())
    assert events[-1].kind == "scoring" and events[-1].data["kind"] == "small"
    assert kept.scores == (2, 2)


def test_scoring_in_which_nobody_gains_still_counts_as_scoring() -> None:
    """§9 #13: a triggered scoring without gains still stops the refill."""
    state = position(
        hands=["Y1K1", "G2A1"], piles=["R1", "B2"], at={**LOW, "yellow": 2, "red": 10, "blue": 13}
    )
    chosen, _ = apply(state, 0, m("play:yellow:1"), rng())
    kept, events = apply(chosen, 0, KEEP, rng())
    assert events[-1].data["gains"] == [0, 0]
    done, drew = apply(kept, 0, CONFIRM, rng())
    assert len(done.hands[0]) == 1
    assert [e.kind for e in drew] == ["drew"] and drew[0].data["count"] == 0


def test_only_the_moved_dragons_destination_triggers() -> None:
    """§9 #22: dragons already standing on scoring spaces never trigger."""
    state = position(
        hands=["B1K1", "G2A1"], piles=["R1", "B2"], at={**LOW, "red": 11, "blue": 4, "yellow": 3}
    )
    after, events = apply(state, 0, m("play:blue:1"), rng())
    assert after.positions[0] == 5
    assert all(e.kind != "scoring" for e in events) and after.scores == (0, 0)


def test_small_scoring_on_the_4_5_side_pays_2() -> None:
    """§2: blue spaces are worth 2 on the 4-5 player side."""
    state = position(
        hands=["B2K1", "G2A1", "L1N1", "P1O1"],
        piles=["R1", "B2", "K3", "Y1"],
        at={**LOW, "red": 12, "blue": 6, "black": 3, "yellow": 1},
    )
    after, events = apply(state, 0, m("play:blue:2"), rng())
    assert after.positions[0] == 8
    assert events[-1].data["gains"] == [0, 2, 3, 1]
