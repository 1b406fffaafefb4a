"""The analysis of finished matches: refused while a match runs, computed in the bot pool in the
background once it has finished, cached with its progress."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.records import MatchAnalysis
from app.services.errors import Forbidden, NotFound
from app.services.records import analysis, store
from tests.conftest import MakeUser
from tests.support.db import start_toy_match
from tests.support.records import play_match, record_of


async def test_no_analysis_of_a_running_match(db: AsyncSession, make_user: MakeUser) -> None:
    users = [await make_user(), await make_user()]
    match_id = await start_toy_match(db, users, game="draco")
    with pytest.raises(Forbidden):
        await analysis.analysis(db, match_id=match_id)
    assert await db.get(MatchAnalysis, match_id) is None
    with pytest.raises(NotFound):
        await analysis.analysis(db, match_id=match_id + 100_000)


async def test_a_finished_match_is_analysed_in_the_background_and_cached(
    db: AsyncSession, make_user: MakeUser
) -> None:
    user = await make_user()
    played = play_match("draco", 2, {}, number=4)
    match_id = await store.import_record(db, user_id=user.id, text=record_of(played))
    first = await analysis.analysis(db, match_id=match_id)
    assert first.state == "running" and first.steps > 50
    await analysis.wait_for_analyses()
    done = await analysis.analysis(db, match_id=match_id)
    assert done.state == "done" and done.done == done.steps == first.steps
    steps = [item for item in done.items if not item.get("final")]
    assert [item["step"] for item in steps] == list(range(1, done.steps + 1))
    final = done.items[-1]
    assert final["final"] and final["step"] == done.steps + 1
    # The end is certain: the winner's chance is 1.
    winner = played.header.result["ranks"].index(1)
    assert final["chances"][winner] == 1.0
    for item in steps:
        assert abs(sum(item["chances"]) - 1) < 0.01
        assert item["seat"] in (0, 1)
        if item["best_value"] is not None:
            assert 0 <= item["best_value"] <= 1 and item["played_value"] is not None
            assert item["best_text"]["en"] and item["played_text"]["de"]
    # The bot disagrees somewhere (random moves were played), and says what that cost.
    assert any(item["best"] != item["played"] for item in steps)
    # Cached: asked again, nothing is computed again.
    assert (await analysis.analysis(db, match_id=match_id)).items == done.items
    assert not analysis._tasks
