"""Revision 0008 counts the matches that finished before it into the statistics tables, once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

from alembic import command
from sqlalchemy import select

from app.db.matches import LoggedMove, Match, MatchSeat
from app.db.migrate import _run, alembic_config, upgrade_to_head
from app.db.models import User
from app.db.session import make_engine, make_sessionmaker
from app.db.stats import GameTally, OpponentStats, PlayerGameStats
from app.services import tallies
from tests.support.db import fresh_database


def test_0008_counts_the_matches_finished_before_it(tmp_path: Path) -> None:
    now = datetime.now(UTC)
    with fresh_database(tmp_path, migrate=False) as url:
        _run(lambda: command.upgrade(alembic_config(url), "0007"))

        async def before() -> None:
            engine = make_engine(url)
            try:
                async with engine.begin() as conn:
                    for user_id, name in ((901, "ann"), (902, "bea")):
                        await conn.execute(
                            User.__table__.insert().values(
                                id=user_id, name=name, name_key=name, password_hash="x", locale="en",
                                is_admin=False, created_at=now,
                            )
                        )  # fmt: skip
                    # Ann wins the first two, Bea the third; the fourth is still running.
                    for match_id, ranks, status in (
                        (1, (1, 2), "finished"),
                        (2, (1, 2), "finished"),
                        (3, (2, 1), "finished"),
                        (4, (None, None), "active"),
                    ):
                        await conn.execute(
                            Match.__table__.insert().values(
                                id=match_id, game="toy", ruleset="1", options={}, players=2, status=status,
                                version=0, committed_version=0, rng_counter=0, pending=[], to_act=[],
                                result={"scores": [3.0, 1.0], "ranks": list(ranks)} if ranks[0] else None,
                                created_by=901, invite_token=f"t{match_id}", fixed_order=True,
                                created_at=now, updated_at=now,
                            )
                        )  # fmt: skip
                        for seat, (user, rank) in enumerate(zip((901, 902), ranks, strict=True)):
                            await conn.execute(
                                MatchSeat.__table__.insert().values(
                                    match_id=match_id, seat=seat, user_id=user, rank=rank,
                                    score=(3.0 if rank == 1 else 1.0) if rank else None,
                                )
                            )  # fmt: skip
                        for seq in range(1, 6):
                            await conn.execute(
                                LoggedMove.__table__.insert().values(
                                    match_id=match_id,
                                    seq=seq,
                                    seat=seq % 2,
                                    move="m",
                                    events=[],
                                    created_at=now,
                                )
                            )
            finally:
                await engine.dispose()

        asyncio.run(before())
        upgrade_to_head(url)

        async def after() -> None:
            engine = make_engine(url)
            try:
                async with make_sessionmaker(engine)() as db:
                    ann = await db.get(PlayerGameStats, (901, "toy"))
                    assert ann is not None and (ann.played, ann.won, ann.rank_sum) == (3, 2, 4)
                    versus = await db.get(OpponentStats, (901, "toy", 902))
                    assert versus is not None and (versus.played, versus.won, versus.lost) == (3, 2, 1)
                    tally = dict(
                        (
                            await db.execute(
                                select(GameTally.key, GameTally.count).where(GameTally.game == "toy")
                            )
                        )
                        .tuples()
                        .all()
                    )
                    assert tally == {"matches": 3, "decisions": 15, "win:0": 2, "win:1": 1}
                    # Counted once: the match-end path finds them counted already.
                    match = await db.get(Match, 1)
                    assert match is not None
                    seats = list(await db.scalars(select(MatchSeat).where(MatchSeat.match_id == 1)))
                    assert not await tallies.record(db, match, seats)
            finally:
                await engine.dispose()

        asyncio.run(after())
