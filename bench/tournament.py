"""A Swiss tournament of Duell im Felsental on PostgreSQL: time to pair a round and to serve
the standings page.

N players (default 256) sign up, the creator starts it, and round by round every match ends,
either played through the move path with random legal moves (``--play moves``: the way
players end them; the last decision of a round is answered first, then the next round is
paired in the background: "ending move" times that request, "pair" the background pairing
after it) or decided through the same ending the clock uses (``--play decide``: a random
result, then the round closed with ``runner.advance``, timed).
After each round the standings page (``GET /tournaments/{id}``, in process over ASGI with
the app's own lifespan) is fetched and timed.

    TEST_DATABASE_URL=postgresql+asyncpg://postgres@127.0.0.1:5432/postgres \
        .venv/bin/python -m bench.tournament [--players 256] [--rounds 8] [--play moves]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import secrets
import statistics
import time
from collections.abc import Iterator
from datetime import timedelta

import httpx
from sqlalchemy import select, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine

import app.games  # noqa: F401 - registers the games
from app.config import Settings
from app.db.migrate import upgrade_to_head
from app.db.models import Match, MatchSeat, MatchStatus, User
from app.db.tournaments import TournamentMatch
from app.db.types import utcnow
from app.main import create_app
from app.services import conclusions, play
from app.services._rows import load_seats, lock_match
from app.services.tournaments import jobs, runner, service


async def _users(db: AsyncSession, count: int) -> list[int]:
    tag = secrets.token_hex(3)
    rows = [
        User(name=f"p{tag}{i:03d}", name_key=f"p{tag}{i:03d}", password_hash="-", locale="en")
        for i in range(count + 1)
    ]
    db.add_all(rows)
    await db.commit()
    return [u.id for u in rows]


async def _round_matches(db: AsyncSession, tid: int, number: int) -> list[int]:
    return list(
        await db.scalars(
            select(TournamentMatch.match_id).where(
                TournamentMatch.tournament_id == tid, TournamentMatch.round == number
            )
        )
    )


async def _play(db: AsyncSession, match_id: int, rng: random.Random) -> float:
    """Random legal decisions until the end; returns the time of the last (ending) request."""
    seats = {s.seat: s.user_id or 0 for s in (await load_seats(db, [match_id]))[match_id]}
    view = await play.get_match(db, match_id=match_id, viewer_id=seats[0], locale="en")
    last = 0.0
    for _ in range(20_000):
        if view.status != "active":
            return last
        mover = seats[view.to_act[0]]
        if view.viewer_seat != view.to_act[0]:
            view = await play.get_match(db, match_id=match_id, viewer_id=mover, locale="en")
        started = time.perf_counter()
        answer = await play.submit_move(
            db,
            match_id=match_id,
            user_id=mover,
            move=rng.choice(view.legal),
            expected_version=view.version,
            request_id=secrets.token_hex(8),
            locale="en",
        )
        last = time.perf_counter() - started
        view = answer.match
    raise AssertionError(f"match {match_id} did not end")


async def _decide(db: AsyncSession, match_id: int, rng: random.Random) -> None:
    match = await lock_match(db, match_id)
    seats = (await load_seats(db, [match_id]))[match_id]
    control = await conclusions.control_of(db, match_id)
    ranks = rng.choice([[1, 2], [2, 1], [1, 2], [2, 1], [1, 1]])
    assert await conclusions.finish(db, match, seats, control, ranks=ranks, conclusion="draw")
    await db.commit()


async def run(players: int, rounds: int, mode: str, url: str) -> None:
    engine = create_async_engine(url, pool_size=5)
    sessions = async_sessionmaker(engine, expire_on_commit=False)
    rng = random.Random(1)
    async with sessions() as db:
        ids = await _users(db, players)
        creator, entrants = ids[0], ids[1:]
        tid = await service.create_tournament(
            db,
            creator_id=creator,
            name="Bench Swiss",
            game="felsental",
            options={},
            table_size=2,
            format="swiss",
            rounds=rounds,
            places=players,
            signup_until=utcnow() + timedelta(days=1),
            start_when_full=False,  # the creator's start is what round one's pairing times
        )
        for user_id in entrants:
            await service.sign_up(db, tournament_id=tid, user_id=user_id)
        started = time.perf_counter()
        await service.start_now(db, tournament_id=tid, user_id=creator)
        pair_times = [time.perf_counter() - started]
    app = create_app(Settings(database_url=url, secret_key="bench-secret-key-not-for-production-0123456789"))
    page_times: list[float] = []
    api_times: list[float] = []
    decisions_per_match: list[int] = []
    ending_times: list[float] = []
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client,
    ):
        for number in range(1, rounds + 1):
            async with sessions() as db:
                matches = await _round_matches(db, tid, number)
                round_started = time.perf_counter()
                ending = 0.0
                for match_id in matches:
                    if mode == "moves":
                        ending = await _play(db, match_id, rng)
                        count = await db.scalar(select(Match.committed_version).where(Match.id == match_id))
                        decisions_per_match.append(int(count or 0))
                    else:
                        await _decide(db, match_id, rng)
                played = time.perf_counter() - round_started
                started = time.perf_counter()
                if mode == "decide":
                    assert await runner.advance(db, tid) or number == rounds
                else:
                    ending_times.append(ending)
                    await jobs.settle()  # the pairing the ending move left to the background
                if number < rounds:
                    pair_times.append(time.perf_counter() - started)
            for path, bucket in ((f"/tournaments/{tid}", page_times), (f"/api/tournaments/{tid}", api_times)):
                started = time.perf_counter()
                response = await client.get(path)
                bucket.append(time.perf_counter() - started)
                assert response.status_code == 200, response.text[:300]
            print(
                f"round {number}: {len(matches)} matches ended in {played:.1f} s"
                f"{f' (the last move answered in {ending * 1000:.0f} ms)' if mode == 'moves' else ''}; "
                f"pairing {'the next' if number < rounds else 'none (last)'}"
                f"{f': {pair_times[-1] * 1000:.0f} ms' if number < rounds else ''}; "
                f"standings page {page_times[-1] * 1000:.0f} ms, JSON {api_times[-1] * 1000:.0f} ms",
                flush=True,
            )
    async with sessions() as db:
        t = await service.get_tournament(db, tournament_id=tid, viewer_id=None)
        finished = await db.scalar(
            select(Match.id).join(MatchSeat).where(Match.status == MatchStatus.FINISHED).limit(1)
        )
    await engine.dispose()
    print()
    print(f"{players} players, {rounds} rounds, Felsental, matches ended by {mode}; status {t.status}")
    print(f"podium: {', '.join(t.podium)}")
    print(
        f"pair a round (and create its {players // 2} matches): {_ms(statistics.median(pair_times))} median,"
        f" max {_ms(max(pair_times))} (round 1 by the creator's start: {_ms(pair_times[0])})"
    )
    print(
        f"standings page: median {_ms(statistics.median(page_times))}, max {_ms(max(page_times))};"
        f" JSON: median {_ms(statistics.median(api_times))}, max {_ms(max(api_times))}"
    )
    if ending_times:
        print(
            f"the move ending a round answered: median {_ms(statistics.median(ending_times))},"
            f" max {_ms(max(ending_times))}"
        )
    if decisions_per_match:
        print(f"decisions per match: median {statistics.median(decisions_per_match):.0f}")
    assert finished is not None


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


@contextlib.contextmanager
def _fresh_database() -> Iterator[str]:
    """A new PostgreSQL database on TEST_DATABASE_URL's server, migrated, dropped afterwards."""
    server = os.environ.get("TEST_DATABASE_URL", "")
    if not server.startswith("postgresql"):
        raise SystemExit("set TEST_DATABASE_URL to a PostgreSQL server (postgresql+asyncpg://...)")
    name = f"drachenhort_bench_{secrets.token_hex(4)}"
    url = make_url(server).set(database=name).render_as_string(hide_password=False)

    async def admin(statement: str) -> None:
        engine = create_async_engine(server, isolation_level="AUTOCOMMIT")
        async with engine.connect() as connection:
            await connection.execute(text(statement))
        await engine.dispose()

    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    try:
        upgrade_to_head(url)
        yield url
    finally:
        asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--play", choices=("moves", "decide"), default="moves")
    args = parser.parse_args()
    with _fresh_database() as url:
        asyncio.run(run(args.players, args.rounds, args.play, url))


if __name__ == "__main__":
    main()
