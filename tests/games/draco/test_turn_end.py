"""Discarding summit cards, confirm and draw, reshuffle, the end (spec §4 steps 4-5, §5, §9)."""

from __future__ import annotations

import pytest

from app.engine.protocol import CONFIRM, IllegalMove
from app.games.draco import DRACO
from app.games.draco.board import Card, Dragon
from app.games.draco.rules import apply, invariants, legal_moves, outcome
from app.games.draco.state import Phase
from tests.games.draco.support import m, position, rng

LOW = {d.value: 2 for d in Dragon}


def test_summit_cards_may_be_discarded_one_at_a_time_after_the_play() -> None:
    """§4.4: only after the card play, only cards of dragons on a red space, one per move."""
    state = position(
        hands=["B1B1K2R3Y4", "G2A1"], piles=["R1", "B2"], at={**LOW, "blue": 27, "black": 30, "red": 5}
    )
    assert all(x.action == "play" for x in legal_moves(state, 0))
    with pytest.raises(IllegalMove, match="only after your card play"):
        apply(state, 0, m("discard:blue:1"), rng())
    after, _ = apply(state, 0, m("play:red:3"), rng())
    assert [str(x) for x in legal_moves(after, 0)] == ["discard:blue:1", "discard:black:2", "confirm"]
    with pytest.raises(IllegalMove, match="yellow dragon is not on the summit"):
        apply(after, 0, m("discard:yellow:4"), rng())
    once, events = apply(after, 0, m("discard:blue:1"), rng())
    assert once.hands[0].count(Card.of(Dragon.BLUE, 1)) == 1
    assert once.piles[0][0] == Card.of(Dragon.BLUE, 1)  # under the own pile (§9 #17)
    assert events[0].kind == "discarded" and events[0].pieces == ("dragon-blue", "seat-0")
    invariants(once)
    twice, _ = apply(once, 0, m("discard:blue:1"), rng())
    assert m("discard:blue:1") not in legal_moves(twice, 0)
    with pytest.raises(IllegalMove, match="no blue 1 in your hand"):
        apply(twice, 0, m("discard:blue:1"), rng())


def test_summit_cards_may_be_kept_and_played_later() -> None:
    """§4.4, §9 #11: keeping is allowed; a hand of only summit cards must still play one."""
    state = position(hands=["B1K2", "G2A1"], piles=["R1", "B2"], at={**LOW, "blue": 27, "black": 30})
    assert [str(x) for x in legal_moves(state, 0)] == ["play:blue:1", "play:black:2"]
    after, _ = apply(state, 0, m("play:black:2"), rng())
    assert CONFIRM in legal_moves(after, 0)
    done, _ = apply(after, 0, CONFIRM, rng())
    assert Card.of(Dragon.BLUE, 1) in done.hands[0]


def test_confirm_without_scoring_refills_to_six() -> None:
    """§4.5: no scoring -> draw up to six; drawn cards go to their owner only, a count to all."""
    state = position(hands=["R1K1A1", "G2A1"], piles=["R2", "B2"], at={**LOW, "red": 5})
    after, _ = apply(state, 0, m("play:red:1"), rng())
    done, events = apply(after, 0, CONFIRM, rng())
    assert len(done.hands[0]) == 6
    assert done.active == 1 and done.phase is Phase.PLAY and done.play is None
    public, private = events
    assert public.kind == "drew" and public.audience is None and public.data == {"seat": 0, "count": 4}
    assert private.kind == "drew_cards" and private.audience == 0 and private.reveals
    assert len(private.data["cards"]) == 4
    assert done.deck == state.deck[4:]
    invariants(done)


def test_confirm_after_scoring_draws_nothing() -> None:
    """§4.5: a scoring turn does not refill."""
    state = position(hands=["B3K1A1", "G2A1"], piles=["R1", "B2"], at={**LOW, "red": 10, "blue": 8})
    after, _ = apply(state, 0, m("play:blue:3"), rng())
    done, events = apply(after, 0, CONFIRM, rng())
    assert len(done.hands[0]) == 2
    assert [e.kind for e in events] == ["drew"]
    assert not any(e.reveals for e in events)


def test_empty_hand_refills_even_after_scoring() -> None:
    """§6 example 4: the last card played in a scoring turn -> draw six anyway."""
    state = position(hands=["B3", "G2A1"], piles=["R1", "B2"], at={**LOW, "red": 10, "blue": 8})
    after, _ = apply(state, 0, m("play:blue:3"), rng())
    assert after.play is not None and after.play.scored and after.hands[0] == ()
    done, _ = apply(after, 0, CONFIRM, rng())
    assert len(done.hands[0]) == 6


def test_hand_emptied_by_discards_refills() -> None:
    """§9 #14: the empty check happens after the discards."""
    state = position(
        hands=["B3K1", "G2A1"], piles=["R1", "B2"], at={**LOW, "red": 10, "blue": 8, "black": 28}
    )
    after, _ = apply(state, 0, m("play:blue:3"), rng())
    emptied, _ = apply(after, 0, m("discard:black:1"), rng())
    done, _ = apply(emptied, 0, CONFIRM, rng())
    assert len(done.hands[0]) == 6


def test_empty_draw_pile_reshuffles_all_piles_but_their_tops() -> None:
    """§4.5: reshuffle lazily; every pile keeps its top card (and so its dragon)."""
    state = position(
        hands=["R1K1A1", "G2A1"],
        piles=["B1B2B3R2", "Y1Y2Y3G1"],
        at={**LOW, "red": 5},
        deck="P1P2",
    )
    after, _ = apply(state, 0, m("play:red:1"), rng())
    done, events = apply(after, 0, CONFIRM, rng())
    assert [e.kind for e in events] == ["reshuffled", "drew", "drew_cards"]
    assert events[0].data["count"] == 7  # B1 B2 B3 R2 (R1 was played onto the top) and Y1 Y2 Y3
    assert done.piles == ((Card.of(Dragon.RED, 1),), (Card.of(Dragon.GREEN, 1),))
    assert {Card.of(Dragon.PURPLE, 1), Card.of(Dragon.PURPLE, 2)} <= set(done.hands[0])
    assert len(done.hands[0]) == 6 and len(done.deck) == 7 - 2


def test_third_dragon_on_the_summit_ends_after_its_big_scoring() -> None:
    """§5: the third dragon to reach a red space triggers the final big scoring; ties share victory."""
    state = position(
        hands=["B3K1A1", "G2A1"],
        piles=["R1", "Y2"],
        at={**LOW, "red": 28, "yellow": 24, "blue": 25, "black": 30},
        scores=[4, 0],
    )
    after, events = apply(state, 0, m("play:blue:3"), rng())
    assert after.phase is Phase.ENDING
    assert events[-1].data["final"] is True
    assert after.scores == (6, 8)
    assert legal_moves(after, 0) == [CONFIRM]
    for refused in ("play:black:1", "discard:red:1"):
        with pytest.raises(IllegalMove, match="only confirm remains"):
            apply(after, 0, m(refused), rng())
    assert outcome(after) is None
    over, end = apply(after, 0, CONFIRM, rng())
    assert [e.kind for e in end] == ["game_over"]
    assert set(end[0].pieces) == {"dragon-red", "dragon-black", "dragon-blue", "seat-1"}, "summit and winner"
    assert over.hands == after.hands and over.deck == after.deck
    assert DRACO.to_act(over) == frozenset() and legal_moves(over, 0) == legal_moves(over, 1) == []
    result = outcome(over)
    assert result is not None and result.scores == (6, 8) and result.ranks == (2, 1)
    with pytest.raises(IllegalMove, match="game is over"):
        apply(over, 0, CONFIRM, rng())


def test_equal_top_scores_share_the_victory() -> None:
    """§5: equal highest scores share the victory; equal lower scores share a rank."""
    state = position(
        hands=["B3K1", "G2A1", "L1", "P1"],
        piles=["R1", "Y2", "N1", "O1"],
        at={**LOW, "red": 28, "yellow": 24, "blue": 25, "black": 30, "brown": 0, "orange": 0},
        scores=[6, 0, 3, 3],
    )
    after, _ = apply(state, 0, m("play:blue:3"), rng())  # forced onto blue (28, value 2)
    over, events = apply(after, 0, CONFIRM, rng())
    result = outcome(over)
    assert result is not None
    assert result.scores == (8, 8, 3, 3) and result.ranks == (1, 1, 3, 3)
    assert events[0].data["winners"] == [0, 1]
    assert "shared victory" in DRACO.describe(events[0], "en")
    assert "geteilter Sieg" in DRACO.describe(events[0], "de")
