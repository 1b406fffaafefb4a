"""Setup (spec §3) and playing a card (spec §4 step 1)."""

from __future__ import annotations

from collections import Counter

import pytest

from app.engine.protocol import CONFIRM, IllegalMove
from app.engine.rng import Rng
from app.engine.selfplay import derive_seed
from app.games.draco import DRACO
from app.games.draco.board import ALL_CARDS, SIDE_23, SIDE_45, Card, Dragon, Kind, track_for
from app.games.draco.rules import apply, invariants, legal_moves, setup
from app.games.draco.state import Phase
from tests.games.draco.support import m, position, rng


@pytest.mark.parametrize("players,deck", [(2, 96), (3, 89), (4, 82), (5, 75)])
def test_setup_uses_all_110_cards_with_distinct_riding_colours(players: int, deck: int) -> None:
    """§3.2-4: riding cards come from the 110, colours distinct, six cards each, the rest is the pile."""
    for number in range(20):
        state = setup(players, {}, Rng(derive_seed("draco-setup", number)))
        invariants(state)
        cards = [*state.deck, *(c for h in state.hands for c in h), *(c for p in state.piles for c in p)]
        assert Counter(cards) == Counter(ALL_CARDS)
        assert len(state.deck) == deck
        assert all(len(h) == 6 for h in state.hands)
        assert all(len(p) == 1 for p in state.piles)
        assert len({p[-1].dragon_index for p in state.piles}) == players


def test_setup_takes_riding_cards_in_seat_order_from_the_top() -> None:
    """§3.3: each seat gets the first card from the top whose colour no earlier seat got."""
    seed = derive_seed("draco-setup-order", 3)
    shuffled = Rng(seed).shuffled(ALL_CARDS)
    state = setup(5, {}, Rng(seed))
    taken: set[int] = set()
    rest = list(shuffled)
    for seat in range(5):
        expected = next(c for c in rest if c.dragon_index not in taken)
        rest.remove(expected)
        taken.add(expected.dragon_index)
        assert state.piles[seat] == (expected,)
    assert state.hands[0] == tuple(sorted(rest[:6]))
    assert state.deck == tuple(rest[30:])


def test_setup_puts_all_dragons_on_start_and_seat_0_begins() -> None:
    """§3.1, §3.5: all ten dragons on index 0; seat 0 of the match starts; scores 0."""
    state = setup(3, {}, rng())
    assert state.positions == (0,) * 10
    assert state.active == 0 and state.phase is Phase.PLAY
    assert state.scores == (0, 0, 0)
    assert DRACO.to_act(state) == frozenset({0})


def test_board_side_follows_player_count() -> None:
    """§2/§3.1: 2-3 players use one side (blue = 3), 4-5 the other (blue = 2)."""
    assert track_for(2) is SIDE_23 and track_for(3) is SIDE_23
    assert track_for(4) is SIDE_45 and track_for(5) is SIDE_45
    for track, blue in ((SIDE_23, 3), (SIDE_45, 2)):
        assert len(track) == 31 and track[0].kind is Kind.START and track[0].value == 0
        assert [s.value for s in track if s.kind is Kind.BLUE] == [blue] * 4
        assert [s.value for s in track if s.kind is Kind.GREEN] == [4, 7, 8]
        assert [(s.value, s.kind) for s in track[27:]] == [(v, Kind.RED) for v in (4, 2, 0, -2)]
        assert min(s.value for s in track) == -2 and max(s.value for s in track) == 8
    assert DRACO.view(setup(2, {}, rng()), None)["side"] == "2-3"
    assert DRACO.view(setup(4, {}, rng()), None)["side"] == "4-5"


@pytest.mark.parametrize("players", [1, 6])
def test_setup_refuses_wrong_player_counts(players: int) -> None:
    """§1: 2-5 players."""
    with pytest.raises(IllegalMove, match="2 to 5 players"):
        setup(players, {}, rng())


def test_any_card_in_hand_may_be_played_and_passing_is_not() -> None:
    """§4.1, §9 #21: every distinct card in hand, any dragon (own, another's, free, summit)."""
    state = position(
        hands=["B1B1R3K2L5Y4", "G2G2G2A1A1A1"], piles=["R1", "B2"], at={"lightblue": 27, "yellow": 5}
    )
    moves = [str(x) for x in legal_moves(state, 0)]
    assert moves == ["play:blue:1", "play:black:2", "play:red:3", "play:yellow:4", "play:lightblue:5"]
    assert CONFIRM not in legal_moves(state, 0)
    assert m("mount:keep") not in legal_moves(state, 0)
    assert m("discard:lightblue:5") not in legal_moves(state, 0)
    with pytest.raises(IllegalMove, match="must play a card first"):
        apply(state, 0, CONFIRM, rng())


def test_only_the_active_seat_has_moves() -> None:
    """§4/§5: play passes in seat order; other seats have no legal moves."""
    state = position(hands=["B1R3", "G2A1"], piles=["R1", "B2"])
    assert legal_moves(state, 1) == []
    with pytest.raises(IllegalMove, match="not your turn"):
        apply(state, 1, m("play:green:2"), rng())


def test_card_not_in_hand_is_illegal() -> None:
    """§4.1: only cards in the hand can be played."""
    state = position(hands=["B1R3", "G2A1"], piles=["R1", "B2"])
    assert m("play:green:2") not in legal_moves(state, 0)
    with pytest.raises(IllegalMove, match="no green 2 in your hand"):
        apply(state, 0, m("play:green:2"), rng())


def test_movement_past_the_last_space_is_lost() -> None:
    """§4.1, §9 #8: to = min(from + value, 30); the rest is lost."""
    state = position(hands=["K5B1", "G2A1"], piles=["R1", "B2"], at={"black": 28, "red": 28, "blue": 28})
    after, events = apply(state, 0, m("play:black:5"), rng())
    assert after.positions[Dragon.BLACK.index] == 30
    moved = events[0]
    assert moved.kind == "dragon_moved" and moved.data["to"] == 30 and moved.data["lost"] == 3
    assert moved.pieces == ("dragon-black", "space-28", "space-30"), "the dragon and both spaces"


def test_dragon_on_the_last_space_does_not_move() -> None:
    """§9 #8: a dragon already on 30 stays there (and a red-to-red play scores nothing)."""
    state = position(hands=["K2B1", "G2A1"], piles=["R1", "B2"], at={"black": 30, "red": 3, "blue": 3})
    after, events = apply(state, 0, m("play:black:2"), rng())
    assert after.positions[Dragon.BLACK.index] == 30
    assert events[0].data["from"] == events[0].data["to"] == 30
    assert after.play is not None and not after.play.scored
    assert after.scores == (0, 0)


def test_a_second_card_cannot_be_played_in_the_same_turn() -> None:
    """§4.1: exactly one card per turn."""
    state = position(hands=["B1R3", "G2A1"], piles=["R1", "B2"], at={"blue": 1})
    after, _ = apply(state, 0, m("play:red:3"), rng())
    assert all(x.action != "play" for x in legal_moves(after, 0))
    with pytest.raises(IllegalMove, match="already played"):
        apply(after, 0, m("play:blue:1"), rng())


def test_card_of_value_and_colour_is_interchangeable() -> None:
    """§1: duplicates appear once among the legal moves; playing one removes one copy."""
    state = position(hands=["B1B1B1", "G2A1"], piles=["R1", "B2"], at={"blue": 1})
    assert [str(x) for x in legal_moves(state, 0)] == ["play:blue:1"]
    after, _ = apply(state, 0, m("play:blue:1"), rng())
    assert after.hands[0] == (Card.of(Dragon.BLUE, 1),) * 2
