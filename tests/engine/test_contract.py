"""The contract every registered game keeps (the way OpenSpiel tests every game it knows).

Random self-play through the real turn workflow, with checks at every decision:
- only seats in ``to_act`` have legal moves, and every legal move applies;
- the position string round-trips the full state;
- views are JSON, never contain the position string, and a spectator's view is the same
  whoever else holds what (checked per game in its own suite);
- replaying the log from the seed rebuilds exactly the committed state.
"""

from __future__ import annotations

import json

import pytest

import app.games  # noqa: F401 - registers every game
from app.engine.protocol import Game, Move
from app.engine.registry import all_games
from app.engine.replay import rebuild
from app.engine.rng import Rng
from app.engine.selfplay import derive_seed
from app.engine.turn import Turn, decide
from tests.support.toygame import TOY

GAMES = [TOY, *all_games()]


def _player_counts(game: Game) -> list[int]:
    return list(range(game.info.min_players, game.info.max_players + 1))


def _play_checked(game: Game, players: int, number: int, max_decisions: int = 400) -> None:
    seed = derive_seed(f"contract:{game.slug}", number)
    chooser = Rng(derive_seed(f"contract-chooser:{game.slug}", number))
    options = game.info.default_options()
    rng = Rng(seed)
    state = game.setup(players, options, rng)
    turn = Turn(state, rng.counter)
    log: list[tuple[int, Move]] = []
    for _ in range(max_decisions):
        if game.outcome(state) is not None:
            break
        acting = game.to_act(state)
        assert acting, "a running game must have a seat to act"
        for seat in range(players):
            if seat not in acting:
                assert game.legal_moves(state, seat) == [], f"seat {seat} may not act now"
        position = game.format_position(state)
        assert game.format_position(game.parse_position(position)) == position
        for viewer in [None, *range(players)]:
            text = json.dumps(game.view(state, viewer))
            assert position not in text
        seat = min(acting)
        moves = game.legal_moves(state, seat)
        assert moves == sorted(moves) or len(set(moves)) == len(moves), "moves are listed once each"
        step = decide(game, turn, seat, chooser.choice(moves), seed, state)
        turn, state = step.turn, step.state
        log.extend((d.seat, d.move) for d in step.committed)
    # The log rebuilds the committed state exactly (the snapshot is only a cache).
    rebuilt = rebuild(game, players, options, seed, log)
    assert rebuilt.state == turn.committed
    assert rebuilt.rng_counter == turn.rng_counter


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.slug)
def test_game_keeps_the_contract(game: Game) -> None:
    for players in _player_counts(game):
        for number in range(3):
            _play_checked(game, players, number)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.slug)
def test_game_declares_its_facts(game: Game) -> None:
    info = game.info
    assert 1 <= info.min_players <= info.max_players
    assert info.ruleset and info.title.get("en") and info.title.get("de")
    for option in info.options:
        assert option.default in option.choices
        assert option.label.get("en") and option.label.get("de")
