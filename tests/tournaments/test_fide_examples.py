"""The Swiss pairing against published cases of the FIDE Dutch system.

Sources (the cases are encoded as players, scores, seats and expected pairings; no text is
copied):
- FIDE Handbook C.04.1 "Basic rules for Swiss systems" (b: no two players meet twice; c/d: a
  player gets the pairing-allocated bye at most once) and C.04.3 "FIDE (Dutch) System" in the
  version approved in Baku 2016 (A.2/A.3 score groups, A.6 colour preferences, C.12 the fewest
  players denied their colour preference, D.1 the transposition order, E.1-E.5 colour
  allocation): handbook.fide.com/chapter/C0403Till2025.
- The worked 14-player, five-round tournament of the FIDE Arbiters' Manual 2014 (pp. 65-92,
  after M. Held, "Mastering the Dutch"), one bracket of which K. Ballou's "In-depth comparison
  of US Chess and FIDE Dutch Swiss pairings" (2015) discusses: S1 = 1, 2, 3 against S2 = 5, 6,
  7, the natural pairing denying a colour on all three boards.

A first seat stands for White (Felsental: the dragon).
"""

from __future__ import annotations

from app.services.tournaments import swiss
from app.services.tournaments.swiss import FIRST, SECOND, SwissPlayer


def _player(number: int, score: float, colours: list[int], met: set[int] | None = None) -> SwissPlayer:
    """Pairing number ``number`` (1 is the top seed) with a score and a seat history."""
    return SwissPlayer(id=number, seed=number - 1, score=score, colours=colours, opponents=met or set())


def test_arbiters_manual_bracket_takes_the_first_transposition_that_denies_fewest_colours() -> None:
    # Mild preferences (A.6): White after Black, Black after White, colour difference 0.
    wants_white, wants_black = [FIRST, SECOND], [SECOND, FIRST]
    bracket = [
        _player(1, 1.0, wants_white),
        _player(2, 1.0, wants_black),
        _player(3, 1.0, wants_white),
        _player(5, 1.0, wants_white),
        _player(6, 1.0, wants_black),
        _player(7, 1.0, wants_white),
    ]
    # 1-5, 2-6, 3-7 would deny a colour on every board; S2 in the order 5, 7, 6 and in the order
    # 6, 5, 7 deny one each; D.1 takes 5, 7, 6 (the earlier transposition).
    result = swiss.pair_round(bracket)
    assert sorted(tuple(sorted(p)) for p in result.pairs) == [(1, 5), (2, 7), (3, 6)]
    # E.1: both preferences granted where they differ; E.4: 1 and 5 both want White, the
    # higher-ranked 1 gets it.
    assert set(result.pairs) == {(1, 5), (7, 2), (3, 6)}


def test_score_groups_pair_within_themselves_top_half_against_bottom_half() -> None:
    # A.2/A.3 and round one of the Arbiters' Manual tournament (14 players): 1-8, 9-2, 3-10,
    # 11-4, 5-12, 13-6, 7-14 (E.5: the top seed has the initial colour, then alternating).
    assert swiss.pair_round([_player(n, 0.0, []) for n in range(1, 15)]).pairs == [
        (1, 8),
        (9, 2),
        (3, 10),
        (11, 4),
        (5, 12),
        (13, 6),
        (7, 14),
    ]
    # Two groups of four after a round: nobody crosses a group while each can be paired in it.
    field = [
        _player(1, 1.0, [FIRST], {5}),
        _player(2, 1.0, [SECOND], {6}),
        _player(3, 1.0, [FIRST], {7}),
        _player(4, 1.0, [SECOND], {8}),
        _player(5, 0.0, [SECOND], {1}),
        _player(6, 0.0, [FIRST], {2}),
        _player(7, 0.0, [SECOND], {3}),
        _player(8, 0.0, [FIRST], {4}),
    ]
    pairs = swiss.pair_round(field).pairs
    assert {frozenset(p) for p in pairs} == {frozenset(p) for p in ((1, 4), (2, 3), (5, 8), (6, 7))}


def test_no_two_players_meet_twice_even_across_score_groups() -> None:
    # C.04.1 b / C.04.3 C.1: 1 and 2 lead and have met; each takes someone from the group
    # below, and 3 and 4 (who met too) go apart as well.
    field = [
        _player(1, 1.5, [FIRST, SECOND], {2, 3}),
        _player(2, 1.5, [SECOND, FIRST], {1, 4}),
        _player(3, 0.5, [SECOND, FIRST], {4, 1}),
        _player(4, 0.5, [FIRST, SECOND], {3, 2}),
    ]
    pairs = {frozenset(p) for p in swiss.pair_round(field).pairs}
    assert pairs == {frozenset((1, 4)), frozenset((2, 3))}


def test_the_bye_goes_to_the_lowest_ranked_player_who_has_not_had_one() -> None:
    # C.04.1 c/d and C.04.3 C.2/C.5: an odd field; the lowest (7) had the bye already, so
    # the next lowest of the lowest score group (6) gets it.
    field = [
        _player(1, 2.0, [FIRST, SECOND]),
        _player(2, 2.0, [SECOND, FIRST]),
        _player(3, 1.0, [FIRST, SECOND]),
        _player(4, 1.0, [SECOND, FIRST]),
        _player(5, 0.0, [FIRST, SECOND]),
        _player(6, 0.0, [SECOND, FIRST]),
        SwissPlayer(id=7, seed=6, score=1.0, colours=[SECOND], had_bye=True),
    ]
    result = swiss.pair_round(field)
    assert result.bye == 6
    assert 7 in {x for p in result.pairs for x in p}


def test_colour_allocation_follows_e1_to_e5() -> None:
    def seats(a: SwissPlayer, b: SwissPlayer) -> tuple[int, int]:
        (pair,) = swiss.pair_round([a, b]).pairs
        return pair

    # E.2: the stronger preference wins: 2 is one Black up (strong, White), 1 only due White.
    assert seats(_player(1, 1.0, [FIRST, SECOND]), _player(2, 1.0, [SECOND, FIRST, SECOND])) == (2, 1)
    # E.3: both due White after the same last round; in the most recent round where they
    # differed 1 had White and 2 Black: alternate from there (E.4 alone would favour 1).
    one, two = [SECOND, FIRST, FIRST, SECOND], [FIRST, SECOND, FIRST, SECOND]
    assert seats(_player(1, 1.0, one), _player(2, 1.0, two)) == (2, 1)
    # E.4: the same history: the higher-ranked player gets its preference (White after Black).
    assert seats(_player(1, 1.0, [FIRST, SECOND]), _player(2, 1.0, [FIRST, SECOND])) == (1, 2)
    # E.5: no history: the higher-ranked player with an odd pairing number has the first seat.
    assert seats(_player(1, 0.0, []), _player(2, 0.0, [])) == (1, 2)
    assert seats(_player(2, 0.0, []), _player(3, 0.0, [])) == (3, 2)
