"""Ratings: OpenSkill Plackett-Luce per game, in the transaction that ends a match, once."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.async_play import Rating, RatingChange
from app.services import clocks, conclusions, ratings
from app.services._rows import load_seats
from app.services.errors import NotFound
from tests.conftest import MakeUser
from tests.services.async_support import load, play_to_end
from tests.support.db import start_toy_match

MODEL = PlackettLuce()


async def test_a_resignation_rates_like_openskill_for_a_known_result(
    db: AsyncSession, make_user: MakeUser
) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    await conclusions.resign(db, match_id=match_id, user_id=alice.id)
    assert (await load(db, match_id)).result == {
        "scores": [0.0, 0.0],
        "ranks": [2, 1],
        "conclusion": "resigned",
        "resigned": [0],
    }
    [[a], [b]] = MODEL.rate([[MODEL.rating()], [MODEL.rating()]], ranks=[2, 1])
    table = {r.game: r for r in await ratings.user_ratings(db, user_id=bob.id)}
    assert table["toy"].mu == pytest.approx(b.mu) and table["toy"].sigma == pytest.approx(b.sigma)
    assert table["toy"].games == 1 and table["toy"].ordinal == pytest.approx(b.mu - 3 * b.sigma)
    [alice_rating] = await ratings.user_ratings(db, user_id=alice.id)
    assert alice_rating.mu == pytest.approx(a.mu) and alice_rating.mu < 25 < b.mu

    # A second match starts from the first one's ratings.
    rematch_id = await start_toy_match(db, [alice, bob])
    await conclusions.resign(db, match_id=rematch_id, user_id=bob.id)
    [[a2], [b2]] = MODEL.rate([[a], [b]], ranks=[1, 2])
    [alice_rating] = await ratings.user_ratings(db, user_id=alice.id)
    assert alice_rating.mu == pytest.approx(a2.mu) and alice_rating.sigma == pytest.approx(a2.sigma)
    history = await ratings.history(db, user_id=bob.id, game="toy")
    assert [(p.match_id, p.rank) for p in history] == [(match_id, 1), (rematch_id, 2)]
    assert history[1].mu_after == pytest.approx(b2.mu) and history[1].mu_before == pytest.approx(b.mu)


async def test_a_three_player_match_played_out_is_rated_by_placement(
    db: AsyncSession, make_user: MakeUser
) -> None:
    players = [await make_user() for _ in range(3)]
    match_id = await start_toy_match(db, players)
    match = await play_to_end(db, match_id)
    assert match.status == "finished" and match.result is not None
    ranks = match.result["ranks"]
    expected = MODEL.rate([[MODEL.rating()] for _ in players], ranks=[float(r) for r in ranks])
    for player, [want] in zip(players, expected, strict=True):
        [got] = await ratings.user_ratings(db, user_id=player.id)
        assert (got.mu, got.sigma) == (pytest.approx(want.mu), pytest.approx(want.sigma))
    seats = (await load_seats(db, [match_id]))[match_id]
    assert [s.rank for s in seats] == ranks


async def test_a_match_is_rated_once(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    await conclusions.resign(db, match_id=match_id, user_id=alice.id)
    match = await load(db, match_id)
    seats = (await load_seats(db, [match_id]))[match_id]
    assert await ratings.rate_match(db, match, seats) == []
    await db.commit()
    count = await db.scalar(select(func.count()).where(RatingChange.match_id == match_id))
    assert count == 2
    [rating] = await ratings.user_ratings(db, user_id=bob.id)
    assert rating.games == 1


async def test_an_accepted_draw_rates_as_a_tie(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    await conclusions.offer_draw(db, match_id=match_id, user_id=alice.id)
    await conclusions.answer_draw(db, match_id=match_id, user_id=bob.id, accept=True)
    [[a], _] = MODEL.rate([[MODEL.rating()], [MODEL.rating()]], ranks=[1, 1])
    [alice_rating] = await ratings.user_ratings(db, user_id=alice.id)
    [bob_rating] = await ratings.user_ratings(db, user_id=bob.id)
    assert alice_rating.mu == pytest.approx(a.mu) == pytest.approx(bob_rating.mu) == pytest.approx(25.0)
    assert alice_rating.sigma == pytest.approx(a.sigma)
    assert alice_rating.sigma < MODEL.rating().sigma


def test_felsental_is_rated_per_two_leg_match_only() -> None:
    import app.games  # noqa: F401 - registers the games

    assert ratings.is_rated("felsental", {"legs": 2})
    assert ratings.is_rated("felsental", {})
    assert not ratings.is_rated("felsental", {"legs": 1})
    assert ratings.is_rated("toy", {})
    assert not ratings.is_rated("no-such-game", {})


async def test_an_aborted_match_is_not_rated(db: AsyncSession, make_user: MakeUser) -> None:
    from app.services import admin

    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    await admin.create_admin(db, name=alice.name, password="irrelevant-here")
    await admin.abort_match(db, admin_id=alice.id, match_id=match_id)
    assert await db.scalar(select(func.count()).where(RatingChange.match_id == match_id)) == 0


async def test_the_ranking_lists_players_by_ordinal(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    await conclusions.resign(db, match_id=match_id, user_id=bob.id)
    table = await ratings.ranking(db, game="toy")
    names = [row.name for row in table]
    assert names.index(alice.name) < names.index(bob.name)
    ordinals = [row.rating.ordinal for row in table]
    assert ordinals == sorted(ordinals, reverse=True)
    assert [row.position for row in table] == list(range(1, len(table) + 1))
    with pytest.raises(NotFound):
        await ratings.ranking(db, game="no-such-game")


async def test_the_clock_round_rates_a_match_whose_ratings_a_crash_lost(
    db: AsyncSession, sessionmaker: async_sessionmaker[AsyncSession], make_user: MakeUser
) -> None:
    players = [await make_user() for _ in range(2)]
    match_id = await start_toy_match(db, players)
    await play_to_end(db, match_id)
    # As if the process died between the finishing commit and the ratings' own transaction.
    await db.execute(delete(RatingChange).where(RatingChange.match_id == match_id))
    await db.execute(delete(Rating).where(Rating.user_id.in_([p.id for p in players])))
    await db.commit()

    report = await clocks.tick(sessionmaker)
    assert match_id in report.rated
    count = await db.scalar(select(func.count()).where(RatingChange.match_id == match_id))
    assert count == 2
    assert match_id not in (await clocks.tick(sessionmaker)).rated  # once
