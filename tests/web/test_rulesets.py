"""A rules fix leaves the matches begun before it playing and replaying as they began (issue 11.6).

A Drachenland match of ruleset drachenland-1 (its row says so, its position starts ``DL1``)
still walks its start round "up to N" and its replay is rebuilt with that ruleset's setup.
"""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.models import Match
from tests.support.client import request_id
from tests.web.conftest import MakeApiUser


async def test_a_match_of_the_earlier_ruleset_plays_and_replays_by_it(
    api_user: MakeApiUser, engine: AsyncEngine
) -> None:
    alice, bob = await api_user(), await api_user()
    created = await alice.post("/api/matches", {"game": "drachenland", "seats": 2, "fixed_order": True})
    match_id = created.json()["id"]
    assert (await bob.post(f"/api/matches/{match_id}/join", {})).status_code == 204
    async with engine.begin() as conn:
        state = await conn.scalar(select(Match.state).where(Match.id == match_id))
        assert state is not None and state.startswith("DL2 ")
        await conn.execute(
            update(Match).where(Match.id == match_id).values(ruleset="drachenland-1", state="DL1" + state[3:])
        )
    first = alice if (await alice.get(f"/api/matches/{match_id}")).json()["to_act"] == [0] else bob
    for move in ("choose:red", "move:E1:P01-1", "confirm"):  # 1 space where N is 2: ruleset 1 allowed it
        view = (await first.get(f"/api/matches/{match_id}")).json()
        assert move in view["legal"], (move, view["legal"])
        path = "confirm" if move == "confirm" else "moves"
        body = {"move": move, "expected_version": view["version"], "request_id": request_id()}
        assert (await first.post(f"/api/matches/{match_id}/{path}", body)).status_code == 200
    # Three decisions, two steps: the confirm belongs to the move it ends (issue 13.9).
    replayed = await bob.get(f"/api/matches/{match_id}/replay/2")
    assert replayed.status_code == 200, replayed.text
    assert replayed.json()["steps"] == 2 and replayed.json()["move"] == "move:E1:P01-1"
    page = await bob.get(f"/matches/{match_id}/replay", params={"step": 2})
    assert page.status_code == 200
