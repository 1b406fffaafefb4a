"""Statistics pages on a database of 100,000 finished matches played by the engines.

``python -m bench.stats [--matches 100000] [--distinct 12] [--repeat 20]``

1. A fresh PostgreSQL database (``drachenhort_bench_stats``), migrated.
2. Distinct random self-play games per game and table size, by the engines
   (``app.engine.turn.decide`` with random legal decisions, as ``app.engine.selfplay``), each
   with its final state, result and length. 100,000 matches reuse them with players drawn from a
   pool (a few play a lot), a year of finishing times; written with COPY: matches, seats, each
   match's last logged decision (its sequence number is the match's length; the earlier rows
   are left out to keep the database small), ratings and rating history computed with the real
   OpenSkill model in finishing order.
3. Every match counted by the real match-end path (``tallies.record``): time and statements.
4. The app in-process (its lifespan, httpx's ASGI transport): each statistics page and API
   call timed ``--repeat`` times, with the SQL statements it sent (counted on the engine).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import statistics
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from alembic import command
from sqlalchemy import event, select

from app.config import Settings
from app.db.migrate import alembic_config, upgrade_to_head
from app.db.models import Match, MatchSeat
from app.db.session import make_engine, make_sessionmaker
from app.engine.protocol import Move
from app.engine.registry import get_game
from app.engine.rng import Rng
from app.engine.selfplay import derive_seed
from app.engine.turn import Turn, decide
from app.main import create_app
from app.services import names, results, tallies
from app.services.ratings import MODEL, is_rated
from bench import pgstats

DATABASE = "drachenhort_bench_stats"
CONFIGS = [
    ("draco", 2, 5), ("draco", 3, 4), ("draco", 4, 2), ("draco", 5, 1),
    ("drachenland", 2, 3), ("drachenland", 3, 2), ("drachenland", 4, 1),
    ("felsental", 2, 4),
]  # fmt: skip
"""(game, players, weight): how often each kind of table finishes."""
MATCH_COLUMNS = [
    "id", "game", "ruleset", "options", "players", "status", "version", "committed_version", "state",
    "rng_counter", "pending", "to_act", "result", "created_by", "invite_token", "fixed_order",
    "created_at", "updated_at", "started_at", "finished_at", "turn_started_at",
]  # fmt: skip
SEAT_COLUMNS = ["match_id", "seat", "user_id", "score", "rank"]
MOVE_COLUMNS = ["match_id", "seq", "seat", "move", "events", "created_at"]
HISTORY_COLUMNS = [
    "user_id", "game", "match_id", "rank", "mu_before", "sigma_before", "mu_after", "sigma_after",
    "created_at",
]  # fmt: skip
PEOPLE = 600
HEAVY = 4
"""Players who sit at a tenth of all matches each (the cost of a long history)."""


@dataclass(frozen=True)
class Played:
    game: str
    players: int
    ruleset: str
    state: str
    result: dict[str, Any]
    decisions: int
    last_seat: int
    last_move: str


def self_play(game_slug: str, players: int, number: int) -> Played:
    """One complete game with uniformly random legal decisions (``selfplay.play_random_game``
    without the invariant checks), keeping what a finished match stores."""
    game = get_game(game_slug)
    options = game.info.normalise_options({})
    seed = derive_seed(f"bench-stats:{game_slug}:{players}", number)
    chooser = Rng(derive_seed(f"bench-stats-chooser:{game_slug}:{players}", number))
    rng = Rng(seed)
    state = game.setup(players, options, rng)
    turn = Turn(state, rng.counter)
    decisions, last = 0, (0, "")
    while (outcome := game.outcome(state)) is None:
        seat = min(game.to_act(state))
        move: Move = chooser.choice(game.legal_moves(state, seat))
        step = decide(game, turn, seat, move, seed, state)
        turn, state = step.turn, step.state
        decisions += 1
        last = (seat, str(move))
    return Played(
        game_slug,
        players,
        game.info.ruleset,
        game.format_position(turn.committed),
        results.stored(outcome),
        decisions,
        *last,
    )


async def build(matches: int, sample: int, distinct: int, rnd: random.Random) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    started = time.perf_counter()
    pool: dict[tuple[str, int], list[Played]] = {}
    for game, players, _ in CONFIGS:
        count = max(2, distinct // 3) if game == "drachenland" else distinct
        pool[(game, players)] = [self_play(game, players, n) for n in range(count)]
    figures["distinct_games"] = sum(len(v) for v in pool.values())
    figures["self_play_s"] = round(time.perf_counter() - started, 1)

    conn = await pgstats.connect(pgstats.dsn(DATABASE))
    try:
        now = datetime.now(UTC) - timedelta(days=30)  # long past the clock round's re-rating window
        first = now - timedelta(days=365)
        people = [f"pl{n:04d}{secrets.token_hex(2)}" for n in range(PEOPLE)]
        base = int(await conn.fetchval("SELECT COALESCE(MAX(id), 0) FROM users"))  # the bots
        await conn.copy_records_to_table(
            "users",
            records=[
                (base + i, name, names.key(name), names.skeleton(name), "x", "en", False, None, first)
                for i, name in enumerate(people, start=1)
            ],
            columns=[
                "id",
                "name",
                "name_key",
                "name_skeleton",
                "password_hash",
                "locale",
                "is_admin",
                "bot_level",
                "created_at",
            ],
        )
        await conn.execute(f"SELECT setval('users_id_seq', {base + PEOPLE})")
        weights = [w for _, _, w in CONFIGS]
        heavy = list(range(base + 1, base + HEAVY + 1))
        everybody = range(base + 1, base + PEOPLE + 1)
        match_rows, seat_rows, move_rows = [], [], []
        ratings: dict[tuple[int, str], tuple[float, float, int]] = {}
        history = []
        step = (now - first) / matches
        for match_id in range(1, matches + 1):
            game, players, _ = rnd.choices(CONFIGS, weights)[0]
            played = rnd.choice(pool[(game, players)])
            seated = rnd.sample(everybody, players)
            if rnd.random() < 0.4:  # the heavy players meet often
                seated[0] = rnd.choice(heavy)
                if players > 1 and rnd.random() < 0.5:
                    seated[1] = rnd.choice([h for h in heavy if h != seated[0]])
                if len(set(seated)) != len(seated):
                    seated = rnd.sample(everybody[HEAVY:], players)
            finished_at = first + step * match_id
            started_at = finished_at - timedelta(days=rnd.uniform(3, 40))
            match_rows.append(
                (
                    match_id, game, played.ruleset, "{}", players, "finished", 1000, 1, played.state, 0,
                    "[]", "[]", json.dumps(played.result), seated[0], secrets.token_hex(8), True,
                    started_at, finished_at, started_at, finished_at, finished_at,
                )
            )  # fmt: skip
            for seat, user in enumerate(seated):
                seat_rows.append(
                    (
                        match_id,
                        seat,
                        user,
                        float(played.result["scores"][seat]),
                        int(played.result["ranks"][seat]),
                    )
                )
            move_rows.append(
                (match_id, played.decisions, played.last_seat, played.last_move, "[]", finished_at)
            )
            if is_rated(game, {}):
                ranks = [int(r) for r in played.result["ranks"]]
                before = [ratings.get((u, game), (MODEL.mu, MODEL.sigma, 0)) for u in seated]
                after = MODEL.rate(
                    [[MODEL.rating(mu=m, sigma=s)] for m, s, _ in before], ranks=[float(r) for r in ranks]
                )
                for user, rank, (mu, sigma, n), [new] in zip(seated, ranks, before, after, strict=True):
                    ratings[(user, game)] = (new.mu, new.sigma, n + 1)
                    history.append((user, game, match_id, rank, mu, sigma, new.mu, new.sigma, finished_at))
        started = time.perf_counter()
        split = matches - sample
        await conn.copy_records_to_table(
            "matches",
            records=match_rows[:split],
            columns=MATCH_COLUMNS,
        )
        await conn.copy_records_to_table(
            "seats", records=[r for r in seat_rows if r[0] <= split], columns=SEAT_COLUMNS
        )
        await conn.copy_records_to_table("moves", records=move_rows[:split], columns=MOVE_COLUMNS)
        await conn.copy_records_to_table(
            "ratings",
            records=[(u, g, mu, s, n, now) for (u, g), (mu, s, n) in ratings.items()],
            columns=["user_id", "game", "mu", "sigma", "games", "updated_at"],
        )
        await conn.copy_records_to_table(
            "rating_history",
            records=[h for h in history if h[2] <= split],
            columns=HISTORY_COLUMNS,
        )
        await conn.execute(f"SELECT setval('matches_id_seq', {matches})")
        await conn.execute("ANALYZE")
        figures["copy_s"] = round(time.perf_counter() - started, 1)
        figures["rated_rows"] = len(history)
        figures["people"] = PEOPLE
        later = {
            "matches": match_rows[split:],
            "seats": [r for r in seat_rows if r[0] > split],
            "moves": move_rows[split:],
            "rating_history": [h for h in history if h[2] > split],
        }
        return figures | {"people_names": people[:HEAVY], "later": later}
    finally:
        await conn.close()


async def tally_all(url: str, first: int, matches: int) -> dict[str, Any]:
    """Matches ``first``.. ``matches`` through ``tallies.record`` (the match-end path), in
    finishing order, a commit per 500."""
    engine = make_engine(url, pool_size=2)
    statements = 0

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def count(*_: Any) -> None:
        nonlocal statements
        statements += 1

    maker = make_sessionmaker(engine)
    spent, counted = 0.0, 0
    try:
        for low in range(first, matches + 1, 500):
            async with maker() as db:
                rows = list(
                    await db.scalars(select(Match).where(Match.id.between(low, low + 499)).order_by(Match.id))
                )
                seats: dict[int, list[MatchSeat]] = {}
                for s in await db.scalars(
                    select(MatchSeat).where(MatchSeat.match_id.between(low, low + 499))
                ):
                    seats.setdefault(s.match_id, []).append(s)
                before = statements
                started = time.perf_counter()
                for match in rows:
                    await tallies.record(db, match, sorted(seats[match.id], key=lambda s: s.seat))
                await db.commit()
                spent += time.perf_counter() - started
                counted += statements - before
    finally:
        await engine.dispose()
    await _analyze()
    done = matches - first + 1
    return {"ms": round(spent * 1000 / done, 3), "statements": round(counted / done, 2)}


async def _analyze() -> None:
    conn = await pgstats.connect(pgstats.dsn(DATABASE))
    try:
        await conn.execute("ANALYZE")
    finally:
        await conn.close()


async def measure(
    url: str, heavy: list[str], light: str, repeat: int
) -> list[tuple[str, float, float, float]]:
    settings = Settings(database_url=url, secret_key=secrets.token_hex(16), data_dir="var/bench-stats")
    app = create_app(settings)
    rows = []
    async with app.router.lifespan_context(app):
        statements = 0

        @event.listens_for(app.state.engine.sync_engine, "before_cursor_execute")
        def count(*_: Any) -> None:
            nonlocal statements
            statements += 1

        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            a, b = heavy[0], heavy[1]
            paths = [
                ("baseline: GET /healthz (no database)", "/healthz"),
                ("baseline: rules page (no database)", "/games/draco/rules"),
                ("profile page (heavy player)", f"/users/{a}"),
                ("profile page (light player)", f"/users/{light}"),
                ("GET /api/users/{heavy}/stats", f"/api/users/{a}/stats"),
                ("GET /api/users/{light}/stats", f"/api/users/{light}/stats"),
                ("head-to-head page (heavy vs heavy)", f"/users/{a}/versus/{b}"),
                ("GET /api/users/{a}/versus/{b} page 50", f"/api/users/{a}/versus/{b}?page=50"),
                ("GET /api/users/{heavy}/versus/{light}", f"/api/users/{a}/versus/{light}"),
                ("search page ?q=pl00", "/people?q=pl00"),
                ("GET /api/users?q=PL01", "/api/users?q=PL01"),
                ("game statistics page (draco)", "/games/draco/stats"),
                ("GET /api/games/drachenland/stats", "/api/games/drachenland/stats"),
            ]
            for label, path in paths:
                times, counts = [], []
                for _ in range(repeat):
                    before = statements
                    started = time.perf_counter()
                    answer = await client.get(path)
                    times.append((time.perf_counter() - started) * 1000)
                    counts.append(statements - before)
                    assert answer.status_code == 200, (path, answer.status_code, answer.text[:300])
                times.sort()
                rows.append(
                    (
                        label,
                        statistics.median(times),
                        times[int(0.95 * (len(times) - 1))],
                        statistics.median(counts),
                    )
                )
    return rows


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--distinct", type=int, default=12)
    parser.add_argument("--sample", type=int, default=1000, help="the newest matches, counted one by one")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--reuse", action="store_true", help="measure a database kept by --keep")
    args = parser.parse_args()
    rnd = random.Random(22)
    if args.reuse:
        await _measure_and_print(pgstats.sqlalchemy_url(DATABASE), await _heavy_players(), args.repeat)
        return
    await pgstats.fresh_database(DATABASE)
    url = pgstats.sqlalchemy_url(DATABASE)
    try:
        await asyncio.to_thread(command.upgrade, alembic_config(url), "0007")
        built = await build(args.matches, args.sample, args.distinct, rnd)
        heavy, later = built.pop("people_names"), built.pop("later")
        print(f"built: {args.matches} finished matches from {built['distinct_games']} distinct engine games "
              f"(self-play {built['self_play_s']} s, COPY {built['copy_s']} s), {built['people']} people, "
              f"{built['rated_rows']} rating-history rows")  # fmt: skip
        started = time.perf_counter()
        await asyncio.to_thread(upgrade_to_head, url)
        print(
            f"revision 0008 counted the first {args.matches - args.sample} in SQL: "
            f"{time.perf_counter() - started:.1f} s"
        )
        conn = await pgstats.connect(pgstats.dsn(DATABASE))
        try:
            await conn.copy_records_to_table("matches", records=later["matches"], columns=MATCH_COLUMNS)
            await conn.copy_records_to_table("seats", records=later["seats"], columns=SEAT_COLUMNS)
            await conn.copy_records_to_table("moves", records=later["moves"], columns=MOVE_COLUMNS)
            await conn.copy_records_to_table(
                "rating_history", records=later["rating_history"], columns=HISTORY_COLUMNS
            )
            await conn.execute("ANALYZE")
        finally:
            await conn.close()
        tallied = await tally_all(url, args.matches - args.sample + 1, args.matches)
        print(
            f"match end (tallies.record) for the last {args.sample}: {tallied['ms']} ms and "
            f"{tallied['statements']} statements per match"
        )
        await _measure_and_print(url, heavy, args.repeat)
    finally:
        if not args.keep:
            await pgstats.drop_database(DATABASE)


async def _measure_and_print(url: str, heavy: list[str], repeat: int) -> None:
    light = await _light_player(heavy)
    rows = await measure(url, heavy, light, repeat)
    print(f"{'request':44} {'median ms':>10} {'p95 ms':>8} {'SQL statements':>15}")
    for label, median, p95, count in rows:
        print(f"{label:44} {median:10.1f} {p95:8.1f} {count:15.0f}")
    await _sizes(heavy)


async def _heavy_players() -> list[str]:
    conn = await pgstats.connect(pgstats.dsn(DATABASE))
    try:
        rows = await conn.fetch("SELECT name FROM users WHERE name LIKE 'pl%' ORDER BY id LIMIT $1", HEAVY)
        return [r["name"] for r in rows]
    finally:
        await conn.close()


async def _light_player(heavy: list[str]) -> str:
    conn = await pgstats.connect(pgstats.dsn(DATABASE))
    try:
        name: str = await conn.fetchval(
            "SELECT u.name FROM users u JOIN player_game_stats p ON p.user_id = u.id "
            "WHERE u.name LIKE 'pl%' AND u.name <> ALL($1::text[]) "
            "GROUP BY u.name ORDER BY SUM(p.played) LIMIT 1",
            heavy,
        )
        return name
    finally:
        await conn.close()


async def _sizes(heavy: list[str]) -> None:
    conn = await pgstats.connect(pgstats.dsn(DATABASE))
    try:
        played = await conn.fetchval(
            "SELECT SUM(played) FROM player_game_stats p JOIN users u ON u.id = p.user_id WHERE u.name = $1",
            heavy[0],
        )
        together = await conn.fetchval(
            "SELECT SUM(o.played) FROM opponent_stats o JOIN users a ON a.id = o.user_id "
            "JOIN users b ON b.id = o.other_id "
            "WHERE a.name = $1 AND b.name = $2",
            heavy[0],
            heavy[1],
        )
        counts = {
            t: await conn.fetchval(f"SELECT COUNT(*) FROM {t}")
            for t in (
                "matches",
                "seats",
                "player_game_stats",
                "opponent_stats",
                "game_tallies",
                "rating_history",
            )
        }
        print(
            f"heavy player {heavy[0]}: {played} finished matches, {together} with {heavy[1]}; rows: {counts}"
        )
    finally:
        await conn.close()


if __name__ == "__main__":
    asyncio.run(main())
