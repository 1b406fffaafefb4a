"""Statistics kept when a match ends: per player and game, head-to-head, per game for everyone."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.stats import GameTally
from app.services import conclusions, ratings, stats, tallies
from app.services._rows import load_seats
from app.services.errors import InvalidInput, NotFound
from tests.conftest import MakeUser
from tests.services.async_support import load, play_to_end
from tests.support.db import play_to_the_end, start_toy_match


async def test_a_players_statistics_count_each_finished_match_once(
    db: AsyncSession, make_user: MakeUser
) -> None:
    alice, bob, carol = await make_user(), await make_user(), await make_user()
    # alice wins, wins, loses, wins (by resignations), then a played-out three-player match.
    for loser, winner in ((bob, alice), (carol, alice), (alice, bob), (bob, alice)):
        match_id = await start_toy_match(db, [alice, loser if loser is not alice else winner])
        await conclusions.resign(db, match_id=match_id, user_id=loser.id)
    played_out = await start_toy_match(db, [alice, bob, carol])
    finished = await play_to_end(db, played_out)
    assert finished.result is not None
    alice_rank = finished.result["ranks"][0]
    # Asking again (the clock round does after a crash) counts nothing twice.
    assert not await tallies.record(db, finished, (await load_seats(db, [played_out]))[played_out])
    await ratings.rate_finished(db, match_id=played_out)

    out = await stats.player_stats(db, name=alice.name.upper())
    [toy] = out.games
    wins = 3 + (alice_rank == 1)
    assert (toy.game, toy.played, toy.won) == ("toy", 5, wins)
    assert toy.win_rate == pytest.approx(wins / 5, abs=1e-4)
    assert toy.average_rank == pytest.approx((1 + 1 + 2 + 1 + alice_rank) / 5, abs=0.01)
    assert toy.best_streak == 2
    assert toy.streak == (2 if alice_rank == 1 else 0)
    assert toy.average_score is not None  # the played-out match has scores
    assert toy.rated_matches == 5 and toy.rating is not None and toy.best_rating is not None
    assert toy.best_rating >= toy.rating - 1e-9
    assert len(toy.rating_history) == 5
    assert [p.match_id for p in toy.rating_history][-1] == played_out
    favourites = {o.name: o for o in toy.favourite_opponents}
    assert favourites[bob.name].played == 4 and favourites[carol.name].played == 2
    assert toy.favourite_opponents[0].name == bob.name


async def test_head_to_head_counts_wins_losses_draws_and_pages_the_matches(
    db: AsyncSession, make_user: MakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stats, "VERSUS_PAGE", 2)
    alice, bob, carol = await make_user(), await make_user(), await make_user()
    ids = []
    for loser in (bob, alice, bob):
        match_id = await start_toy_match(db, [alice, bob])
        await conclusions.resign(db, match_id=match_id, user_id=loser.id)
        ids.append(match_id)
    drawn = await start_toy_match(db, [bob, alice])
    await conclusions.offer_draw(db, match_id=drawn, user_id=bob.id)
    await conclusions.answer_draw(db, match_id=drawn, user_id=alice.id, accept=True)
    other = await start_toy_match(db, [alice, carol])
    await conclusions.resign(db, match_id=other, user_id=carol.id)
    await start_toy_match(db, [alice, bob])  # running: not in the head-to-head

    first = await stats.versus(db, name=alice.name, other=bob.name)
    assert (first.played, first.won, first.lost, first.drawn) == (4, 2, 1, 1)
    assert [(g.game, g.played) for g in first.games] == [("toy", 4)]
    assert [m.id for m in first.matches] == [drawn, ids[2]] and first.more
    second = await stats.versus(db, name=alice.name, other=bob.name, page=2)
    assert [m.id for m in second.matches] == [ids[1], ids[0]] and not second.more
    mirrored = await stats.versus(db, name=bob.name, other=alice.name)
    assert (mirrored.won, mirrored.lost, mirrored.drawn) == (1, 2, 1)
    with pytest.raises(InvalidInput):
        await stats.versus(db, name=alice.name, other=alice.name)
    with pytest.raises(NotFound):
        await stats.versus(db, name=alice.name, other="nobody-at-all-here")


async def test_game_statistics_count_seat_wins_length_and_dracos_summit(
    db: AsyncSession, make_user: MakeUser
) -> None:
    before = await stats.game_stats(db, game="draco")
    before_two = next((t for t in before.tables if t.players == 2), None)
    players = [await make_user(), await make_user()]
    match_id = await start_toy_match(db, players, game="draco")
    await play_to_the_end(db, match_id, players, seed=5)
    match = await load(db, match_id)
    assert match.status == "finished" and match.result is not None
    after = await stats.game_stats(db, game="draco")
    two = next(t for t in after.tables if t.players == 2)
    assert two.matches == (before_two.matches if before_two else 0) + 1
    winners = [seat for seat, rank in enumerate(match.result["ranks"]) if rank == 1]
    for seat in winners:
        old = before_two.seat_wins[seat].wins if before_two else 0
        assert two.seat_wins[seat].wins == old + 1
    # The third dragon on the summit ends Draco: three colours counted once more.
    old_summit = sum(d.count for d in before_two.summit) if before_two else 0
    assert sum(d.count for d in two.summit) == old_summit + 3
    assert two.average_decisions > 0
    count = await db.scalar(
        select(func.count()).where(
            GameTally.game == "draco", GameTally.players == 2, GameTally.key == "matches"
        )
    )
    assert count == 1
    with pytest.raises(NotFound):
        await stats.game_stats(db, game="chess")
