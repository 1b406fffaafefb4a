"""Determinisation: every sampled state is one the seat cannot tell from the true one.

For random positions of every game, for every seat (acting or not), with and without the
public log: the sample's view for that seat equals the seat's view, the sample keeps the
game's invariants, and the seat to act has exactly its offered moves in the sample too (with
the log; without it, at least those).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.bots.games import bot_game
from tests.bots.positions import CASE_IDS, CASES, random_positions


@pytest.mark.parametrize(("slug", "players", "options"), CASES, ids=CASE_IDS)
def test_determinised_state_has_the_same_view(slug: str, players: int, options: dict[str, Any]) -> None:
    bot = bot_game(slug)
    rng = random.Random(7)
    checked = 0
    for number in range(2):
        for position in random_positions(slug, players, options, number, every=7, limit=40):
            game = position.game
            for seat in range(players):
                for with_log in (True, False):
                    obs = position.observe(seat, with_log=with_log)
                    sample = bot.determinise(obs, rng)
                    assert game.view(sample, seat) == obs.view
                    game.invariants(sample)
                    if seat == position.acting:
                        offered = [str(m) for m in game.legal_moves(sample, seat)]
                        if with_log:
                            assert offered == list(obs.legal)
                        else:
                            # Drachenland's view leaves out the walk so far: a sample may allow more.
                            assert set(offered) >= set(obs.legal)
                    checked += 1
    assert checked > 50


@pytest.mark.parametrize(("slug", "players", "options"), CASES[:1] + CASES[3:4] + CASES[6:7], ids=str)
def test_determinisation_varies_what_is_hidden(slug: str, players: int, options: dict[str, Any]) -> None:
    """Samples differ in their hidden parts (a sampler that copied one fixed guess would pass the
    view test, and would make the search believe it knows the unknown)."""
    bot = bot_game(slug)
    position = next(random_positions(slug, players, options, 0, every=1, limit=1))
    obs = position.observe(0)
    rng = random.Random(1)
    texts = {position.game.format_position(bot.determinise(obs, rng)) for _ in range(8)}
    assert len(texts) > 1
