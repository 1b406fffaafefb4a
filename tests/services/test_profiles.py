"""Profiles: results per game, ratings, running and finished matches with filters."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from app.services import conclusions, profiles
from app.services.errors import NotFound
from tests.conftest import MakeUser
from tests.support.db import start_toy_match


async def test_a_profile_shows_results_ratings_and_filtered_matches(
    db: AsyncSession, make_user: MakeUser
) -> None:
    alice, bob, carol = await make_user(), await make_user(), await make_user()
    won = await start_toy_match(db, [alice, bob])
    await conclusions.resign(db, match_id=won, user_id=bob.id)
    lost = await start_toy_match(db, [alice, carol])
    await conclusions.resign(db, match_id=lost, user_id=alice.id)
    running = await start_toy_match(db, [carol, alice])

    profile = await profiles.get_profile(db, name=alice.name.upper(), viewer_id=bob.id)
    assert profile.name == alice.name
    assert [m.id for m in profile.running] == [running]
    assert {m.id for m in profile.finished} == {won, lost}
    [toy] = profile.results
    assert (toy.game, toy.played, toy.won, toy.average_rank) == ("toy", 2, 1, 1.5)
    [rating] = profile.ratings
    assert rating.game == "toy" and rating.games == 2
    assert profile.games_played == ["toy"]
    assert profile.opponents == sorted([bob.name, carol.name], key=str.casefold)

    by_opponent = await profiles.get_profile(db, name=alice.name, viewer_id=None, opponent=carol.name)
    assert [m.id for m in by_opponent.finished] == [lost]
    by_game = await profiles.get_profile(db, name=alice.name, viewer_id=None, game="draco")
    assert by_game.finished == []
    with pytest.raises(NotFound, match="no player called"):
        await profiles.get_profile(db, name="nobody-at-all", viewer_id=None)
