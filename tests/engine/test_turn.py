"""The Yucata turn workflow (design.md, "Turns"): pending, undo, confirm, barriers."""

from __future__ import annotations

import pytest

from app.engine.protocol import CONFIRM, IllegalMove, Move
from app.engine.rng import Rng
from app.engine.selfplay import derive_seed, play_random_game
from app.engine.turn import NotYourTurn, Turn, current_state, decide, undo
from tests.support.toygame import TOY

SEED = derive_seed("turn-test", 1)


def new_turn() -> Turn:
    rng = Rng(SEED)
    return Turn(TOY.setup(2, {}, rng), rng.counter)


def test_play_stays_pending_and_undo_restores() -> None:
    turn = new_turn()
    card = TOY.legal_moves(turn.committed, 0)[0]
    step = decide(TOY, turn, 0, card, SEED)
    assert not step.is_commit and step.turn.pending
    assert step.turn.committed == turn.committed
    back = undo(step.turn, 0)
    assert current_state(TOY, back, SEED) == turn.committed


def test_confirm_commits_everything_pending() -> None:
    turn = new_turn()
    step = decide(TOY, turn, 0, TOY.legal_moves(turn.committed, 0)[0], SEED)
    done = decide(TOY, step.turn, 0, CONFIRM, SEED)
    assert [d.move.action for d in done.committed] == ["play", "confirm"]
    assert done.turn.pending == ()


def test_undo_stops_at_reveal_barrier() -> None:
    turn = new_turn()
    done = decide(TOY, turn, 0, CONFIRM, SEED).turn
    with pytest.raises(IllegalMove, match="nothing to undo"):
        undo(done, 0)


def test_wrong_seat_and_illegal_move_are_refused() -> None:
    turn = new_turn()
    with pytest.raises(NotYourTurn):
        decide(TOY, turn, 1, CONFIRM, SEED)
    with pytest.raises(IllegalMove, match="not a legal move"):
        decide(TOY, turn, 0, Move("play", ("99",)), SEED)


def test_rng_is_deterministic_and_secret_in_repr() -> None:
    a, b = Rng(SEED), Rng(SEED)
    assert [a.die() for _ in range(20)] == [b.die() for _ in range(20)]
    assert SEED.hex() not in repr(a)
    assert sorted(Rng(SEED).shuffled(range(10))) == list(range(10))


def test_move_notation_round_trips_and_rejects_junk() -> None:
    move = Move.parse("play:red:3")
    assert move == Move("play", ("red", "3")) and str(move) == "play:red:3"
    for junk in ["", "play::3", "a b", "<script>", "x" * 300]:
        with pytest.raises(ValueError):
            Move.parse(junk)


@pytest.mark.parametrize("seed", range(20))
def test_toy_selfplay_with_undo(seed: int) -> None:
    result = play_random_game(TOY, 2 + seed % 3, seed=seed, undo_every=3)
    assert result.decisions > 0
