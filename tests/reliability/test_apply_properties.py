"""Property tests over every registered game's ``apply`` (issue 7, "Bad input and attacks").

From a random position reached by random legal play, any move (malformed text, a legal move
with its arguments scrambled, another seat's move, a move far too long, unicode digits) either
is in ``legal_moves`` and applies, or raises ``IllegalMove``/``InvalidMove``: no other
exception, no accepted move outside ``legal_moves``, and the state before it is untouched
(the position string is the same, invariants hold, the text form round-trips).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import app.games  # noqa: F401 - registers every game
from app.engine.protocol import Game, IllegalMove, InvalidMove, Move
from app.engine.registry import all_games
from app.engine.rng import Rng
from app.engine.selfplay import derive_seed
from tests.support.toygame import TOY

GAMES = list({g.slug: g for g in (*all_games(), TOY)}.values())
TOKENS = ["", "0", "1", "-1", "7", "99", "999999999999", "٣", "x", "red", "blue", "a" * 250, "None", "1.5"]

move_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)


def _advance(game: Game, seed: bytes, players: int, steps: int, chooser: st.DataObject) -> tuple[object, Rng]:
    """A position after up to ``steps`` random legal decisions (stops early at the end)."""
    rng = Rng(seed)
    state = game.setup(players, game.info.default_options(), rng)
    for _ in range(steps):
        if game.outcome(state) is not None:
            break
        seat = min(game.to_act(state))
        moves = game.legal_moves(state, seat)
        state, _ = game.apply(state, seat, chooser.draw(st.sampled_from(moves)), rng)
    return state, rng


def _junk(game: Game, state: object, players: int, seat: int, data: st.DataObject) -> Move:
    legal = game.legal_moves(state, seat) or [Move("confirm")]
    kind = data.draw(st.sampled_from(["text", "scrambled", "other_seat", "raw"]))
    if kind == "text":
        text = data.draw(move_text)
        try:
            return Move.parse(text)
        except InvalidMove:
            return Move("confirm", ("", text))  # a malformed move built past the parser
    base = data.draw(st.sampled_from(legal))
    if kind == "scrambled":
        args = tuple(data.draw(st.sampled_from([*TOKENS, *base.args])) for _ in base.args)
        extra = data.draw(st.lists(st.sampled_from(TOKENS), max_size=2))
        return Move(base.action, (*args, *extra))
    if kind == "other_seat":
        for other in (s for s in range(players) if s != seat):
            moves = game.legal_moves(state, other)
            if moves:
                return data.draw(st.sampled_from(moves))
        return base
    return Move(
        data.draw(st.sampled_from([base.action, *TOKENS])),
        tuple(data.draw(st.lists(st.sampled_from(TOKENS)))),
    )


@pytest.mark.parametrize("game", GAMES, ids=[g.slug for g in GAMES])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_apply_accepts_exactly_the_legal_moves_and_never_corrupts_the_state(
    game: Game, data: st.DataObject
) -> None:
    players = data.draw(st.integers(game.info.min_players, game.info.max_players), label="players")
    seed = derive_seed(f"{game.slug}:prop", data.draw(st.integers(0, 10_000), label="seed"))
    steps = data.draw(st.integers(0, 120), label="steps")
    state, rng = _advance(game, seed, players, steps, data)
    before = game.format_position(state)
    for _ in range(data.draw(st.integers(1, 6), label="tries")):
        seat = data.draw(st.integers(0, players - 1), label="seat")
        move = _junk(game, state, players, seat, data)
        legal = game.outcome(state) is None and move in game.legal_moves(state, seat)
        try:
            after, events = game.apply(state, seat, move, Rng(seed, rng.counter))
        except (IllegalMove, InvalidMove) as error:
            assert not legal, f"{game.slug}: legal move {move} refused: {error}"
            assert str(error), "the error gives no reason"
        else:
            assert legal, f"{game.slug}: seat {seat} was allowed {move!r}, which is not in legal_moves"
            game.invariants(after)
            assert game.format_position(
                game.parse_position(game.format_position(after))
            ) == game.format_position(after)
            assert all(game.describe(e, "en") for e in events)
        assert game.format_position(state) == before, f"{game.slug}: apply changed the state it was given"
        game.invariants(state)
