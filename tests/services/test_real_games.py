"""Every registered game through the real move path: storage round trips and rebuilds."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

import app.games  # noqa: F401 - importing registers every game
from app.db.models import LoggedMove, Match
from app.engine.protocol import Move
from app.engine.registry import all_games, get_game
from app.engine.replay import rebuild
from app.services import play
from tests.conftest import MakeUser
from tests.support.db import new_request_id, start_toy_match

DECISIONS = 40


@pytest.mark.parametrize("slug", [g.slug for g in all_games()])  # the real games (toy: test_matches)
async def test_random_decisions_through_the_services_rebuild_from_the_log(
    db: AsyncSession, make_user: MakeUser, slug: str
) -> None:
    game = get_game(slug)
    users = [await make_user() for _ in range(game.info.min_players)]
    match_id = await start_toy_match(db, users, game=slug)
    chooser = random.Random(slug)
    for _ in range(DECISIONS):
        public = await play.get_match(db, match_id=match_id, viewer_id=None, locale="de")
        if public.status != "active":
            break
        user = users[public.to_act[0]]
        view = await play.get_match(db, match_id=match_id, viewer_id=user.id, locale="de")
        if view.can_undo and chooser.random() < 0.15:
            await play.undo_move(
                db,
                match_id=match_id,
                user_id=user.id,
                expected_version=view.version,
                request_id=new_request_id(),
                locale="de",
            )
            continue
        await play.submit_move(
            db,
            match_id=match_id,
            user_id=user.id,
            move=chooser.choice(view.legal),
            expected_version=view.version,
            request_id=new_request_id(),
            locale="de",
        )

    row = await db.scalar(select(Match).where(Match.id == match_id))
    assert row is not None and row.seed is not None and row.state is not None
    logged = list(
        await db.scalars(select(LoggedMove).where(LoggedMove.match_id == match_id).order_by(LoggedMove.seq))
    )
    last = rebuild(game, len(users), row.options, row.seed, [(m.seat, Move.parse(m.move)) for m in logged])
    assert game.format_position(last.state) == row.state
    for user in [None, *users]:
        shown = await play.get_match(db, match_id=match_id, viewer_id=user.id if user else None, locale="en")
        text = shown.model_dump_json()
        assert row.seed.hex() not in text and row.state not in text
