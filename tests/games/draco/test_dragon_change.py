"""The dragon change (spec §4 step 2, §9 #1-7, #12)."""

from __future__ import annotations

import pytest

from app.engine.protocol import CONFIRM, IllegalMove
from app.games.draco.board import Card, Dragon
from app.games.draco.rules import KEEP, TAKE, apply, invariants, legal_moves
from app.games.draco.state import Phase
from tests.games.draco.support import m, position, rng

RED3 = Card.of(Dragon.RED, 3)
# All dragons start at 2 unless placed, so index 0 is nobody's last place by default.
LOW = {d.value: 2 for d in Dragon}


def test_moving_another_players_dragon_puts_the_card_under_the_own_pile() -> None:
    """§4.2 (a), §9 #2: nobody changes; the card goes under the active player's pile."""
    state = position(hands=["R3B1", "G2A1"], piles=["K1", "N2R4"], at={**LOW, "red": 1})
    after, events = apply(state, 0, m("play:red:3"), rng())
    assert after.piles[0] == (RED3, Card.of(Dragon.BLACK, 1))
    assert after.piles[1] == state.piles[1]
    assert after.phase is Phase.DISCARD
    kept = events[1]
    assert kept.kind == "rider_kept" and kept.data["reason"] == "ridden" and kept.data["rider"] == 1


def test_moving_the_own_dragon_keeps_the_rider_and_tops_the_pile() -> None:
    """§4.2 (b), §9 #1: the player stays on it; card on top."""
    state = position(hands=["R3B1", "G2A1"], piles=["R1", "B2"], at={**LOW, "red": 4})
    after, events = apply(state, 0, m("play:red:3"), rng())
    assert after.piles[0] == (Card.of(Dragon.RED, 1), RED3)
    assert events[1].data["reason"] == "own"
    assert KEEP not in legal_moves(after, 0)


def test_own_dragon_in_last_place_gives_no_choice() -> None:
    """§9 #7: the own dragon in last place is case (b); no keep/take choice."""
    state = position(hands=["R3B1", "G2A1"], piles=["R1", "B2"], at={**LOW, "red": 0})
    after, _ = apply(state, 0, m("play:red:3"), rng())
    assert after.phase is Phase.DISCARD
    assert KEEP not in legal_moves(after, 0) and TAKE not in legal_moves(after, 0)


def test_other_players_dragon_in_last_place_gives_no_choice() -> None:
    """§4.2 (a) before (d): a ridden dragon never offers a change, even in last place."""
    state = position(hands=["B1R3", "G2A1"], piles=["R1", "B2"], at={**LOW, "blue": 0})
    after, _ = apply(state, 0, m("play:blue:1"), rng())
    assert after.phase is Phase.DISCARD
    assert after.piles[0][0] == Card.of(Dragon.BLUE, 1)


def test_unridden_dragon_not_in_last_place_forces_the_change() -> None:
    """§4.2 (c): the player must switch; card on top; the old dragon becomes free."""
    state = position(hands=["Y3B1", "G2A1"], piles=["R1", "B2"], at={**LOW, "yellow": 4, "gray": 1})
    after, events = apply(state, 0, m("play:yellow:3"), rng())
    assert after.piles[0][-1] == Card.of(Dragon.YELLOW, 3)
    assert after.rider_index(0) == Dragon.YELLOW.index
    assert Dragon.RED.index not in after.riders()
    changed = events[1]
    assert changed.kind == "rider_changed" and changed.data == {
        "seat": 0,
        "dragon": "yellow",
        "previous": "red",
        "chosen": False,
    }
    assert changed.pieces == ("dragon-yellow", "dragon-red", "seat-0")
    assert after.phase is Phase.DISCARD


def test_last_place_is_measured_before_the_move_over_all_ten_dragons() -> None:
    """§9 #5: a ridden dragon lower than the moved one makes it not last (forced change)."""
    state = position(hands=["Y3B1", "G2A1"], piles=["R1", "B2"], at={**LOW, "yellow": 2, "blue": 1})
    after, _ = apply(state, 0, m("play:yellow:3"), rng())
    assert after.phase is Phase.DISCARD and after.rider_index(0) == Dragon.YELLOW.index


def test_unridden_dragon_in_last_place_offers_keep_or_take() -> None:
    """§4.2 (d): the only optional change; scoring waits for the choice."""
    state = position(hands=["Y1B1", "G2A1"], piles=["R1", "B2"], at={**LOW, "yellow": 0, "blue": 5})
    after, events = apply(state, 0, m("play:yellow:1"), rng())
    assert after.phase is Phase.MOUNT
    assert legal_moves(after, 0) == [KEEP, TAKE]
    assert [e.kind for e in events] == ["dragon_moved", "mount_offered"]
    assert after.piles == state.piles  # the card waits for the decision
    invariants(after)
    for refused, reason in ((m("play:blue:1"), "first choose"), (CONFIRM, "first choose")):
        with pytest.raises(IllegalMove, match=reason):
            apply(after, 0, refused, rng())


def test_keep_puts_the_card_under_the_own_pile() -> None:
    """§4.2 (d), §9 #6: keep -> no change, card under the own pile."""
    state = position(hands=["Y1B1", "G2A1"], piles=["R1", "B2"], at={**LOW, "yellow": 0})
    chosen, _ = apply(state, 0, m("play:yellow:1"), rng())
    kept, events = apply(chosen, 0, KEEP, rng())
    assert kept.piles[0] == (Card.of(Dragon.YELLOW, 1), Card.of(Dragon.RED, 1))
    assert kept.rider_index(0) == Dragon.RED.index
    assert events[0].kind == "rider_kept" and events[0].data["reason"] == "kept"
    assert kept.phase is Phase.DISCARD


def test_take_switches_to_the_moved_dragon() -> None:
    """§4.2 (d): take -> card on top, the moved dragon is now ridden."""
    state = position(hands=["Y1B1", "G2A1"], piles=["R1", "B2"], at={**LOW, "yellow": 0})
    chosen, _ = apply(state, 0, m("play:yellow:1"), rng())
    taken, events = apply(chosen, 0, TAKE, rng())
    assert taken.piles[0] == (Card.of(Dragon.RED, 1), Card.of(Dragon.YELLOW, 1))
    assert taken.rider_index(0) == Dragon.YELLOW.index
    assert events[0].kind == "rider_changed" and events[0].data["chosen"] is True


def test_tied_last_place_counts_as_last() -> None:
    """§9 #4: all dragons sharing the lowest space are last; at the start all ten are."""
    state = position(hands=["Y1G1", "B2A1"], piles=["R1", "B2"], at={**LOW, "yellow": 1, "green": 1})
    after, _ = apply(state, 0, m("play:yellow:1"), rng())
    assert after.phase is Phase.MOUNT
    start = position(hands=["Y1G1", "B2A1"], piles=["R1", "B2"])
    assert apply(start, 0, m("play:green:1"), rng())[0].phase is Phase.MOUNT


def test_a_dragon_still_on_the_start_remains_jointly_last() -> None:
    """§6 example 2: after one dragon left the start, those still on index 0 remain last."""
    start = position(hands=["Y1G1", "B2A1"], piles=["R1", "B2"])
    first, _ = apply(start, 0, m("play:yellow:1"), rng())
    moved, _ = apply(first, 0, TAKE, rng())
    assert moved.positions[Dragon.YELLOW.index] == 1
    state = position(hands=["G1K1", "B2A1"], piles=["Y1", "B2"], at={"yellow": 1})
    after, _ = apply(state, 0, m("play:green:1"), rng())
    assert after.phase is Phase.MOUNT


def test_switching_onto_a_summit_dragon_is_allowed() -> None:
    """§9 #12: a forced change onto a summit dragon; the rider then scores its summit value."""
    state = position(hands=["Y2B1", "G2A1"], piles=["R1", "B2"], at={**LOW, "yellow": 27}, scores=[5, 5])
    after, _ = apply(state, 0, m("play:yellow:2"), rng())
    assert after.rider_index(0) == Dragon.YELLOW.index and after.positions[Dragon.YELLOW.index] == 29
    assert after.play is not None and not after.play.scored  # red to red
    # Later a big scoring pays the summit value (0 on index 29, -2 on index 30).
    later = position(
        hands=["G2K1", "A1B3"], piles=["B1", "Y2"], at={**LOW, "yellow": 30, "green": 16}, scores=[5, 5]
    )
    scored, _ = apply(later, 0, m("play:green:2"), rng())
    assert scored.scores == (5 + 7, 5 - 2)


def test_no_two_players_ever_ride_the_same_dragon() -> None:
    """§9 #3: switching is only onto unridden dragons; invariants hold in every case."""
    state = position(hands=["B1R1Y1G1", "G2A1"], piles=["R2", "B2"], at={**LOW, "green": 0})
    for move in legal_moves(state, 0):
        after, _ = apply(state, 0, move, rng())
        finals = (
            [apply(after, 0, x, rng())[0] for x in (KEEP, TAKE)] if after.phase is Phase.MOUNT else [after]
        )
        for final in finals:
            invariants(final)
            assert len(final.riders()) == 2


def test_keep_or_take_is_refused_without_a_choice() -> None:
    """§4.2: mount moves exist only in case (d)."""
    state = position(hands=["R3B1", "G2A1"], piles=["R1", "B2"], at={**LOW, "red": 4})
    for move in (KEEP, TAKE):
        assert move not in legal_moves(state, 0)
        with pytest.raises(IllegalMove, match="no dragon change to choose"):
            apply(state, 0, move, rng())
