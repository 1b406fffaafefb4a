"""Tournaments from sign-up to podium through the services, with real matches played on the
move path (random legal moves), on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.async_play import MatchControl, Notification
from app.db.models import Match, MatchSeat, MatchStatus
from app.db.tournaments import TournamentRound
from app.db.types import utcnow
from app.services import clocks, conclusions
from app.services._rows import load_seats, lock_match
from app.services.errors import Conflict, Forbidden, InvalidInput, RateLimited
from app.services.schemas import UserOut
from app.services.tournaments import jobs, notices, runner, service
from tests.conftest import MakeUser
from tests.tournaments.support import play_all, play_round, play_to_the_end, round_matches, seated


async def _tournament(
    db: AsyncSession, make_user: MakeUser, count: int, **kwargs: object
) -> tuple[int, dict[int, UserOut]]:
    creator = await make_user()
    settings = {"name": "Test cup", "game": "toy", "options": {}, "table_size": 2, "places": count}
    settings.update(kwargs)
    tournament_id = await service.create_tournament(db, creator_id=creator.id, **settings)  # type: ignore[arg-type]
    users = {}
    for _ in range(count):
        user = await make_user()
        users[user.id] = user
        await service.sign_up(db, tournament_id=tournament_id, user_id=user.id)
    return tournament_id, users


def _pairs(t: service.TournamentOut) -> list[frozenset[str]]:
    return [frozenset(table.players) for r in t.rounds for table in r.tables if len(table.players) == 2]


async def test_swiss_with_an_odd_field_runs_from_sign_up_to_podium(
    db: AsyncSession, make_user: MakeUser
) -> None:
    tournament_id, users = await _tournament(db, make_user, 5, format="swiss", rounds=3)
    t = await service.get_tournament(db, tournament_id=tournament_id, viewer_id=None)
    assert t.status == "running" and t.current_round == 1  # full: started at once
    paired = await db.scalar(
        select(func.count()).where(Notification.kind == notices.PAIRED, Notification.user_id.in_(users))
    )
    assert paired == 4  # four paired in round one, one bye
    await play_all(db, tournament_id, users)
    t = await service.get_tournament(db, tournament_id=tournament_id, viewer_id=None)
    assert t.status == "finished" and len(t.rounds) == 3
    byes = [table.players[0] for r in t.rounds for table in r.tables if table.match_id is None]
    assert len(byes) == 3 and len(set(byes)) == 3, "one bye a round, never twice to one player"
    pairs = _pairs(t)
    assert len(pairs) == len(set(pairs)), "nobody meets twice"
    assert len(t.podium) == 3 and t.podium == [s.name for s in t.standings[:3]]
    assert sum(s.points for s in t.standings) == 2 * 3 + 3  # a point per game and per bye
    top = t.standings[0]
    names = {u.name for u in users.values()}
    assert top.name in names and all(s.buchholz >= 0 for s in t.standings)
    ended = await db.scalar(select(func.count()).where(Notification.kind == notices.ENDED))
    assert ended is not None and ended >= 5
    # Tournament matches are ordinary rated matches.
    for r in t.rounds:
        for table in r.tables:
            if table.match_id is not None:
                match = await db.get(Match, table.match_id)
                assert match is not None and match.status == MatchStatus.FINISHED


async def test_round_robin_two_player_and_multi_player_tables(db: AsyncSession, make_user: MakeUser) -> None:
    tournament_id, users = await _tournament(db, make_user, 4, format="round_robin")
    await play_all(db, tournament_id, users)
    t = await service.get_tournament(db, tournament_id=tournament_id, viewer_id=None)
    assert t.status == "finished" and len(t.rounds) == 3
    assert sorted(Counter(_pairs(t)).values()) == [1] * 6  # everybody met everybody once
    tournament_id, users = await _tournament(db, make_user, 6, format="round_robin", table_size=3, rounds=2)
    await play_all(db, tournament_id, users, seed=5)
    t = await service.get_tournament(db, tournament_id=tournament_id, viewer_id=None)
    assert t.status == "finished" and len(t.rounds) == 2
    assert all(len(table.players) == 3 for r in t.rounds for table in r.tables)
    met = Counter(
        frozenset(p) for r in t.rounds for table in r.tables for p in itertools.combinations(table.players, 2)
    )
    # Two tables of three twice: each second-round table holds two who met (pigeonhole), no more.
    assert max(met.values()) == 2 and list(met.values()).count(2) == 2
    assert sum(s.points for s in t.standings) == 2 * 2 * 3  # 3 placement points a table


async def test_knockout_bracket_with_byes_and_a_multi_player_final_table(
    db: AsyncSession, make_user: MakeUser
) -> None:
    tournament_id, users = await _tournament(db, make_user, 6, format="knockout")
    await play_all(db, tournament_id, users)
    t = await service.get_tournament(db, tournament_id=tournament_id, viewer_id=None)
    assert t.status == "finished"
    assert [len(r.tables) for r in t.rounds] == [4, 2, 1]  # 8-bracket with two byes, semis, final
    final = t.rounds[-1].tables[0]
    assert final.ranks is not None
    # A draw at the top goes to the better seed, so the winner is one of those ranked first.
    best = min(final.ranks)
    winners = {name for name, rank in zip(final.players, final.ranks, strict=True) if rank == best}
    assert t.podium[0] in winners and t.standings[0].reached == 3
    tournament_id, users = await _tournament(db, make_user, 8, format="knockout", table_size=4, advance=2)
    await play_all(db, tournament_id, users, seed=9)
    t = await service.get_tournament(db, tournament_id=tournament_id, viewer_id=None)
    assert [len(r.tables) for r in t.rounds] == [2, 1]
    assert len(t.rounds[1].tables[0].players) == 4  # the best two of each table at the final table
    assert t.status == "finished" and t.podium[0] in t.rounds[1].tables[0].players


async def test_a_timeout_forfeits_the_match_and_the_next_round_is_paired(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    tournament_id, users = await _tournament(db, make_user, 4, format="swiss", rounds=2, days_per_move=2)
    first, second = await round_matches(db, tournament_id, 1)

    await play_to_the_end(db, first, await seated(db, first, users), 3)
    late_match = await db.get(Match, second, populate_existing=True)
    assert late_match is not None and late_match.to_act
    late_seat = late_match.to_act[0]
    report = await clocks.tick(
        sessionmaker, now=utcnow() + timedelta(days=3 + clocks.VACATION_DAYS_PER_YEAR + 1)
    )
    assert second in report.forfeited and tournament_id in report.tournaments
    db.expire_all()
    ended = await db.get(Match, second, populate_existing=True)
    assert ended is not None and ended.status == MatchStatus.FINISHED and ended.result is not None
    assert ended.result["ranks"][late_seat] == 2 and ended.result["conclusion"] == "timeout"
    t = await service.get_tournament(db, tournament_id=tournament_id, viewer_id=None)
    assert t.current_round == 2 and len(t.rounds[1].tables) == 2  # a forfeit does not withdraw


async def test_a_timeout_withdraws_when_the_creator_chose_so(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    tournament_id, users = await _tournament(
        db, make_user, 4, format="swiss", rounds=2, days_per_move=1, timeout_action="withdraw"
    )
    first, second = await round_matches(db, tournament_id, 1)
    late_match = await db.get(Match, second, populate_existing=True)
    assert late_match is not None
    seats = (await load_seats(db, [second]))[second]
    late_user = users[next(s.user_id for s in seats if s.seat == late_match.to_act[0] and s.user_id)]

    await play_to_the_end(db, first, await seated(db, first, users), 4)
    await clocks.tick(sessionmaker, now=utcnow() + timedelta(days=1 + clocks.VACATION_DAYS_PER_YEAR + 1))
    t = await service.get_tournament(db, tournament_id=tournament_id, viewer_id=None)
    assert t.current_round == 2
    paired = [name for table in t.rounds[1].tables for name in table.players]
    assert late_user.name not in paired and len(paired) == 3  # withdrawn; the odd one out has a bye
    assert next(e for e in t.entrants if e.name == late_user.name).withdrawn_in == 1


async def test_a_player_withdraws_mid_tournament(db: AsyncSession, make_user: MakeUser) -> None:
    tournament_id, users = await _tournament(db, make_user, 4, format="swiss", rounds=3)
    await play_round(db, tournament_id, users, 11)
    t = await service.get_tournament(db, tournament_id=tournament_id, viewer_id=None)
    assert t.current_round == 2
    quitter = next(u for u in users.values() if u.name == t.rounds[1].tables[0].players[0])
    await service.withdraw(db, tournament_id=tournament_id, user_id=quitter.id)
    with pytest.raises(Conflict):
        await service.withdraw(db, tournament_id=tournament_id, user_id=quitter.id)
    resigned = await db.get(Match, t.rounds[1].tables[0].match_id, populate_existing=True)
    assert resigned is not None and resigned.status == MatchStatus.FINISHED
    await play_all(db, tournament_id, users, seed=12)
    t = await service.get_tournament(db, tournament_id=tournament_id, viewer_id=None)
    assert t.status == "finished"
    assert quitter.name not in [n for table in t.rounds[2].tables for n in table.players]
    assert next(s for s in t.standings if s.name == quitter.name).withdrawn


async def test_two_servers_ending_a_round_at_once_pair_the_next_round_once(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    tournament_id, _users = await _tournament(db, make_user, 4, format="swiss", rounds=2)
    # The round's two matches end by the clock's forfeit path (no hook of their own), so the
    # round is over and nobody has paired the next one yet.
    for match_id in await round_matches(db, tournament_id, 1):
        match = await lock_match(db, match_id)
        seats = (await load_seats(db, [match_id]))[match_id]
        control = await conclusions.control_of(db, match_id)
        assert await conclusions.finish(db, match, seats, control, ranks=[1, 2], conclusion="timeout")
        await db.commit()
    sessions = [sessionmaker() for _ in range(2)]
    try:
        done = await asyncio.gather(*(runner.advance(s, tournament_id) for s in sessions))
    finally:
        for s in sessions:
            await s.close()
    assert sorted(done) == [False, True]
    rounds = await db.scalar(select(func.count()).where(TournamentRound.tournament_id == tournament_id))
    assert rounds == 2
    assert len(await round_matches(db, tournament_id, 2)) == 2


async def test_two_last_matches_ending_at_once_through_the_move_path(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    tournament_id, users = await _tournament(db, make_user, 4, format="swiss", rounds=2)

    async def play(match_id: int, seed: int) -> None:
        async with sessionmaker() as own:
            await play_to_the_end(own, match_id, await seated(own, match_id, users), seed)

    await asyncio.gather(*(play(m, i) for i, m in enumerate(await round_matches(db, tournament_id, 1))))
    await jobs.settle()
    rounds = await db.scalar(select(func.count()).where(TournamentRound.tournament_id == tournament_id))
    assert rounds == 2 and len(await round_matches(db, tournament_id, 2)) == 2


async def test_the_move_that_ends_a_round_is_answered_before_the_next_round_is_paired(
    db: AsyncSession, make_user: MakeUser
) -> None:
    tournament_id, users = await _tournament(db, make_user, 4, format="swiss", rounds=2)
    for i, match_id in enumerate(await round_matches(db, tournament_id, 1)):
        await play_to_the_end(db, match_id, await seated(db, match_id, users), 20 + i)
    # The last move has been answered; its pairing is still to come (in the background).
    rounds = await db.scalar(select(func.count()).where(TournamentRound.tournament_id == tournament_id))
    assert rounds == 1
    await jobs.settle()
    rounds = await db.scalar(select(func.count()).where(TournamentRound.tournament_id == tournament_id))
    assert rounds == 2 and len(await round_matches(db, tournament_id, 2)) == 2


async def test_a_pairing_lost_with_a_restart_is_made_by_the_clock_round(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    tournament_id, users = await _tournament(db, make_user, 4, format="swiss", rounds=2)
    for i, match_id in enumerate(await round_matches(db, tournament_id, 1)):
        await play_to_the_end(db, match_id, await seated(db, match_id, users), 30 + i)
    await jobs.abandon()  # the worker stops before its pairing task ran
    db.expire_all()
    t = await service.get_tournament(db, tournament_id=tournament_id, viewer_id=None)
    assert t.current_round == 1 and all(table.status == "finished" for table in t.rounds[0].tables)
    report = await clocks.tick(sessionmaker)  # what a worker runs when it starts, and every 30 s
    assert tournament_id in report.tournaments
    t = await service.get_tournament(db, tournament_id=tournament_id, viewer_id=None)
    assert t.current_round == 2 and len(t.rounds[1].tables) == 2


async def test_bad_input_and_limits(db: AsyncSession, make_user: MakeUser) -> None:
    creator = await make_user()
    base = {
        "name": "Cup",
        "game": "toy",
        "options": {},
        "table_size": 2,
        "places": 8,
        "format": "swiss",
        "rounds": 3,
    }
    for bad in (
        {"format": "ladder"},
        {"rounds": None},
        {"rounds": 8},
        {"places": 1},
        {"places": 1000},
        {"table_size": 3},
        {"game": "chess"},
        {"name": " "},
        {"days_per_move": 15},
        {"timeout_action": "shrug"},
        {"start_when_full": False},
        {"signup_until": utcnow() - timedelta(hours=1)},
    ):
        with pytest.raises(InvalidInput):
            await service.create_tournament(db, creator_id=creator.id, **{**base, **bad})  # type: ignore[arg-type]
    for _ in range(service.OPEN_PER_CREATOR):
        await service.create_tournament(db, creator_id=creator.id, **base)  # type: ignore[arg-type]
    with pytest.raises(RateLimited):
        await service.create_tournament(db, creator_id=creator.id, **base)  # type: ignore[arg-type]
    organiser = await make_user()
    private = await service.create_tournament(db, creator_id=organiser.id, **{**base, "public": False})  # type: ignore[arg-type]
    stranger = await make_user()
    with pytest.raises(Forbidden):
        await service.sign_up(db, tournament_id=private, user_id=stranger.id)
    with pytest.raises(Forbidden):
        await service.start_now(db, tournament_id=private, user_id=stranger.id)
    with pytest.raises(Conflict):  # a Swiss of three rounds needs four players
        await service.start_now(db, tournament_id=private, user_id=organiser.id)


async def test_the_sign_up_deadline_starts_or_cancels(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    creator = await make_user()
    common = {"game": "toy", "options": {}, "table_size": 2, "places": 8, "format": "knockout"}
    deadline = utcnow() + timedelta(days=1)
    starts = await service.create_tournament(
        db,
        creator_id=creator.id,
        name="Starts",
        signup_until=deadline,
        start_when_full=False,
        **common,  # type: ignore[arg-type]
    )
    empty = await service.create_tournament(
        db,
        creator_id=creator.id,
        name="Empty",
        signup_until=deadline,
        start_when_full=False,
        **common,  # type: ignore[arg-type]
    )
    for _ in range(3):
        await service.sign_up(db, tournament_id=starts, user_id=(await make_user()).id)
    report = await clocks.tick(sessionmaker, now=deadline + timedelta(minutes=1))
    assert {starts, empty} <= set(report.tournaments)
    assert (await service.get_tournament(db, tournament_id=starts, viewer_id=None)).status == "running"
    assert (await service.get_tournament(db, tournament_id=empty, viewer_id=None)).status == "cancelled"
    seats = await db.scalar(
        select(func.count()).select_from(MatchSeat).join(Match).where(Match.game == "toy")
    )
    assert seats
    _ = MatchControl


async def test_round_robin_groups_then_a_knockout_final_stage_to_the_podium(
    db: AsyncSession, make_user: MakeUser
) -> None:
    # Eight players in two groups of four; the best two of each go on to a knockout final
    # (semi-finals: each group winner against the other group's runner-up, then the final).
    creator = await make_user()
    base = {"name": "Groups", "game": "toy", "options": {}, "table_size": 2, "places": 8}
    for bad in (
        {"final_per_group": 2},  # no groups
        {"final_per_group": 4, "group_size": 4},  # everybody would go on
        {"final_per_group": 0, "group_size": 4},
    ):
        with pytest.raises(InvalidInput):
            await service.create_tournament(db, creator_id=creator.id, format="round_robin", **base, **bad)  # type: ignore[arg-type]
    tournament_id, users = await _tournament(
        db, make_user, 8, format="round_robin", group_size=4, final_per_group=2
    )
    await play_all(db, tournament_id, users, seed=41)
    t = await service.get_tournament(db, tournament_id=tournament_id, viewer_id=None)
    assert t.status == "finished" and t.group_rounds == 3 and t.total_rounds is None
    assert [len(r.tables) for r in t.rounds] == [4, 4, 4, 2, 1]
    first_round = t.rounds[0].tables  # group one's two tables, then group two's
    group_of = {name: i // 2 for i, table in enumerate(first_round) for name in table.players}
    group_points: Counter[str] = Counter()
    for r in t.rounds[:3]:
        for table in r.tables:
            assert table.ranks is not None
            drawn = len(set(table.ranks)) == 1
            for name, rank in zip(table.players, table.ranks, strict=True):
                group_points[name] += 0.5 if drawn else 1.0 if rank < max(table.ranks) else 0.0
    semis = t.rounds[3].tables
    assert all({group_of[a] for a in table.players} == {0, 1} for table in semis)
    assert all(len(table.players) == 2 for table in semis)
    final = t.rounds[4].tables[0]
    semi_players = {name for table in semis for name in table.players}
    assert set(final.players) <= semi_players and final.ranks is not None
    assert set(t.podium[:2]) == set(final.players)
    if final.ranks[0] != final.ranks[1]:
        assert t.podium[0] == final.players[final.ranks.index(1)]
    for name in semi_players:  # the best two of each group by the group's points went on
        others = [n for n in group_of if group_of[n] == group_of[name] and n not in semi_players]
        assert all(group_points[name] >= group_points[n] for n in others)
    # Everybody who reached the final stage ranks above everybody who did not.
    assert {s.name for s in t.standings[:4]} == semi_players
