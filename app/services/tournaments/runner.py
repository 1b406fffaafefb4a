"""Running a tournament: pairing a round, closing it when its last match ends, the podium.

``advance`` is called whenever a tournament match may have ended (the move path, a
resignation, the clock's round). It takes the tournament row's lock, and the next round's row
is unique per (tournament, number): two servers that see the last two matches of a round end
at once pair the next round exactly once (the second waits for the lock, then finds the round
paired; without row locks, SQLite, the unique row refuses the second).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.async_play import MatchControl, Rating, TimeoutPolicy
from app.db.matches import public_version
from app.db.models import Match, MatchSeat, MatchStatus
from app.db.tournaments import (
    Tournament,
    TournamentMatch,
    TournamentPlayer,
    TournamentRound,
    TournamentStatus,
)
from app.db.types import utcnow
from app.engine.registry import get_game
from app.engine.rng import Rng, new_seed
from app.services import live, notify
from app.services._rows import lock_row
from app.services.tournaments import knockout, round_robin, standings, swiss
from app.services.tournaments.notices import ENDED, PAIRED

ENDED_STATES = (MatchStatus.FINISHED, MatchStatus.ABORTED)


@dataclass
class PlayedTable:
    round: int
    table_no: int
    players: list[int]
    match_id: int | None
    status: str
    ranks: list[int] | None
    scores: list[float] | None
    timed_out: list[int]
    """User ids who lost the match on time."""


async def lock_tournament(db: AsyncSession, tournament_id: int) -> Tournament | None:
    """The tournament under its row's write lock (SQLite: the database's write lock)."""
    return await lock_row(db, Tournament, tournament_id, Tournament.current_round)


async def entrants(db: AsyncSession, tournament_id: int) -> list[TournamentPlayer]:
    rows = await db.scalars(
        select(TournamentPlayer)
        .where(TournamentPlayer.tournament_id == tournament_id)
        .order_by(TournamentPlayer.seed, TournamentPlayer.joined_at, TournamentPlayer.user_id)
        .execution_options(populate_existing=True)
    )
    return list(rows)


async def played_tables(db: AsyncSession, t: Tournament) -> list[PlayedTable]:
    """Every table of every round so far with its match's state and result."""
    rounds = list(
        await db.scalars(
            select(TournamentRound)
            .where(TournamentRound.tournament_id == t.id)
            .order_by(TournamentRound.number)
            .execution_options(populate_existing=True)
        )
    )
    links = {
        (tm.round, tm.table_no): tm.match_id
        for tm in await db.scalars(select(TournamentMatch).where(TournamentMatch.tournament_id == t.id))
    }
    # Only the columns a table needs (a match's state text is large and never read here).
    mine = TournamentMatch.tournament_id == t.id
    matches = {
        row.id: row
        for row in await db.execute(
            select(Match.id, Match.status, Match.result)
            .join(TournamentMatch, TournamentMatch.match_id == Match.id)
            .where(mine)
        )
    }
    controls = {
        row.match_id: row
        for row in await db.execute(
            select(MatchControl.match_id, MatchControl.conclusion, MatchControl.timed_out)
            .join(TournamentMatch, TournamentMatch.match_id == MatchControl.match_id)
            .where(mine)
        )
    }
    out = []
    for r in rounds:
        for no, players in enumerate(r.tables):
            match_id = links.get((r.number, no))
            if match_id is None:
                out.append(PlayedTable(r.number, no, list(players), None, "bye", None, None, []))
                continue
            m = matches[match_id]
            control = controls.get(match_id)
            ranks = scores = None
            if m.status == MatchStatus.FINISHED and m.result:
                ranks = [int(x) for x in m.result["ranks"]]
                scores = [float(x) for x in m.result.get("scores", [0.0] * len(ranks))]
            elif m.status == MatchStatus.ABORTED:
                ranks = [1] * len(players)  # nobody played it out: a draw for everyone
            late = []
            if control is not None and control.conclusion == "timeout":
                late = [players[s] for s in control.timed_out if s < len(players)]
            out.append(PlayedTable(r.number, no, list(players), match_id, m.status, ranks, scores, late))
    return out


def total_rounds(t: Tournament) -> int | None:
    if t.format == "round_robin" and t.final_per_group:
        return None  # the final stage is a knockout: until one is left
    if t.format == "swiss" or (t.format == "round_robin" and t.table_size > 2):
        return t.rounds
    if t.format == "round_robin":
        return len(t.plan)
    return None  # knockout: until one is left


def group_rounds(t: Tournament) -> int:
    """How many rounds the groups play (a round robin; 0 for the other formats)."""
    return len(t.plan) if t.format == "round_robin" else 0


async def start(db: AsyncSession, t: Tournament) -> list[int]:
    """Seed the players by rating, draw the round robin's plan, pair round one (in the
    caller's transaction). Returns the users to nudge after the commit."""
    players = await entrants(db, t.id)
    ratings = {
        r.user_id: r.mu - 3 * r.sigma
        for r in await db.scalars(
            select(Rating).where(Rating.game == t.game, Rating.user_id.in_([p.user_id for p in players]))
        )
    }
    ordered = sorted(players, key=lambda p: (-ratings.get(p.user_id, 0.0), p.joined_at, p.user_id))
    for i, p in enumerate(ordered):
        p.seed = i
    ids = [p.user_id for p in ordered]
    now = utcnow()
    t.status, t.started_at = TournamentStatus.RUNNING, now
    if t.format == "round_robin":
        t.plan = _round_robin_plan(t, ids)
    return await _pair(db, t, 1, ids, [], [])


def _round_robin_plan(t: Tournament, ids: list[int]) -> list[list[list[int]]]:
    groups = round_robin.groups(ids, t.group_size or len(ids))
    per_group: list[list[list[list[int]]]] = []
    for g, members in enumerate(groups):
        if t.table_size == 2:
            per_group.append(
                [[[a] if b is None else [a, b] for a, b in r] for r in round_robin.circle_rounds(members)]
            )
        else:
            seed = int(t.seed[:8], 16) + g
            per_group.append(round_robin.table_rounds(members, t.table_size, t.rounds or 1, seed=seed))
    count = max(len(rounds) for rounds in per_group)
    return [[table for rounds in per_group if r < len(rounds) for table in rounds[r]] for r in range(count)]


async def advance(db: AsyncSession, tournament_id: int) -> bool:
    """Close the current round if its last match has ended and pair the next one, or finish
    the tournament (one transaction, committed here). True when this call did it."""
    t = await lock_tournament(db, tournament_id)
    if t is None or t.status != TournamentStatus.RUNNING:
        await db.rollback()
        return False
    tables = await played_tables(db, t)
    current = [p for p in tables if p.round == t.current_round]
    if any(p.match_id is not None and p.status not in ENDED_STATES for p in current):
        await db.rollback()
        return False
    players = await entrants(db, t.id)
    by_user = {p.user_id: p for p in players}
    if t.timeout_action == "withdraw":
        for p in current:
            for user_id in p.timed_out:
                if by_user[user_id].withdrawn_in is None:
                    by_user[user_id].withdrawn_in = t.current_round
    active = [p.user_id for p in players if p.withdrawn_in is None]
    try:
        users = await _pair(db, t, t.current_round + 1, active, tables, players)
    except IntegrityError:
        await db.rollback()  # another server paired this round first
        return False
    await db.commit()
    await nudge(users)
    return True


async def _pair(
    db: AsyncSession,
    t: Tournament,
    number: int,
    active: list[int],
    tables: list[PlayedTable],
    players: Sequence[TournamentPlayer],
) -> list[int]:
    """Pair round ``number`` (or finish the tournament when there is none)."""
    new_tables = _next_tables(t, number, active, tables, players)
    if new_tables is None:
        return await _finish(db, t, tables, players)
    db.add(TournamentRound(tournament_id=t.id, number=number, tables=new_tables, created_at=utcnow()))
    await db.flush()  # the unique (tournament, number): a second pairing of this round stops here
    t.current_round = number
    users = await _create_matches(
        db, t, number, [(no, table) for no, table in enumerate(new_tables) if len(table) >= 2]
    )
    if not users:
        # Only byes (everybody else withdrew): the round is over at once.
        return users + await _pair(
            db,
            t,
            number + 1,
            active,
            [*tables, *(_bye(number, i, tb) for i, tb in enumerate(new_tables))],
            players,
        )
    return users


def _bye(number: int, no: int, table: list[int]) -> PlayedTable:
    return PlayedTable(number, no, table, None, "bye", None, None, [])


def _next_tables(
    t: Tournament,
    number: int,
    active: list[int],
    tables: list[PlayedTable],
    players: Sequence[TournamentPlayer],
) -> list[list[int]] | None:
    """The tables of round ``number``; None when the tournament is over."""
    if len(active) < 2:
        return None
    total = total_rounds(t)
    if total is not None and number > total:
        return None
    if t.format == "swiss":
        seeds = sorted(active, key=lambda u: _seed(players, u))
        games = [
            (p.players[0], p.players[1], standings.table_points(p.ranks)[0] if p.ranks else None)
            for p in tables
            if len(p.players) == 2
        ]
        byes = {p.players[0] for p in tables if len(p.players) == 1}
        bonus: dict[int, float] = {}
        for p in tables:
            if len(p.players) == 1:
                bonus[p.players[0]] = bonus.get(p.players[0], 0.0) + 1.0
        paired = swiss.pair_round(swiss.players_from_history(seeds, games, byes, bonus))
        return [list(pair) for pair in paired.pairs] + ([[paired.bye]] if paired.bye is not None else [])
    if t.format == "round_robin" and number <= len(t.plan):
        out = []
        for table in t.plan[number - 1]:
            left = [u for u in table if u in active]
            if left:
                out.append(left)
        return out
    if t.format == "round_robin":
        if not t.final_per_group:
            return None
        if number == len(t.plan) + 1:
            return _knockout_start(t, number, _group_qualifiers(t, tables, players, active))
        return _knockout_next(t, number, active, tables, players)
    if number == 1:
        return _knockout_start(t, number, sorted(active, key=lambda u: _seed(players, u)))
    return _knockout_next(t, number, active, tables, players)


def _knockout_start(t: Tournament, number: int, seeded: list[int]) -> list[list[int]] | None:
    """A bracket's first round for ``seeded`` (strongest first)."""
    if len(seeded) < 2:
        return None
    if t.table_size == 2:
        return [[a] if b is None else [a, b] for a, b in knockout.first_round(seeded)]
    return _shuffled_seats(t, number, knockout.tables(seeded, t.table_size))


def _group_qualifiers(
    t: Tournament, tables: list[PlayedTable], players: Sequence[TournamentPlayer], active: list[int]
) -> list[int]:
    """The best ``final_per_group`` of each group (by the group's standings, withdrawn players
    passed over), seeded for the final stage: every group's winner, then every runner-up, ..."""
    assert t.final_per_group
    by_seed = sorted((p.user_id for p in players if p.seed is not None), key=lambda u: _seed(players, u))
    groups = round_robin.groups(by_seed, t.group_size or len(by_seed))
    ranked_groups = []
    for members in groups:
        inside = set(members)
        own = [p for p in tables if set(p.players) <= inside]
        rows = compute_standings(t, own, [p for p in players if p.user_id in inside], final=False)
        ranked_groups.append([r.player for r in rows if r.player in active][: t.final_per_group])
    return knockout.advancing(ranked_groups, t.final_per_group)


def _knockout_next(
    t: Tournament,
    number: int,
    active: list[int],
    tables: list[PlayedTable],
    players: Sequence[TournamentPlayer],
) -> list[list[int]] | None:
    """The next round of a bracket: the winners (two-player) or the best ``advance`` of each
    table go on; None after the final."""
    last = [p for p in tables if p.round == number - 1]
    if len(last) == 1:
        return None  # that was the final
    ranked = [_ranked(p, players) for p in last]
    if t.table_size == 2:
        winners = [r[0] for r in ranked if r and r[0] in active]
        if len(winners) < 2:
            return None
        return [[a] if b is None else [a, b] for a, b in knockout.next_round(winners)]
    going_on = [u for u in knockout.advancing(ranked, t.advance) if u in active]
    if len(going_on) < 2:
        return None
    return _shuffled_seats(t, number, knockout.tables(going_on, t.table_size))


def _shuffled_seats(t: Tournament, number: int, tables: list[list[int]]) -> list[list[int]]:
    """Multi-player seat order is drawn (seeded by the tournament), not left to the seeding."""
    out = []
    for no, table in enumerate(tables):
        order = list(table)
        random.Random(f"{t.seed}:{number}:{no}").shuffle(order)
        out.append(order)
    return out


def _seed(players: Sequence[TournamentPlayer], user_id: int) -> int:
    return next((p.seed for p in players if p.user_id == user_id and p.seed is not None), 10**6)


def _ranked(p: PlayedTable, players: Sequence[TournamentPlayer]) -> list[int]:
    """A table's players best first (a draw goes to the better seed); a bye: its player."""
    if p.ranks is None:
        return list(p.players)
    order = sorted(
        range(len(p.players)), key=lambda i: (p.ranks[i] if p.ranks else 0, _seed(players, p.players[i]))
    )
    return [p.players[i] for i in order]


def compute_standings(
    t: Tournament, tables: list[PlayedTable], players: Sequence[TournamentPlayer], *, final: bool = True
) -> list[standings.Standing]:
    """Everybody's standing, best first. A knockout (and a round robin's final stage, unless
    ``final`` is False) ranks by the round reached, then the place in it, then as before."""
    done = [
        standings.Table(tuple(p.players), tuple(p.ranks), tuple(p.scores or ()))
        for p in tables
        if p.ranks is not None and len(p.players) >= 2
    ]
    byes: dict[int, int] = {}
    if t.format != "knockout":
        for p in tables:
            if len(p.players) == 1 and p.round <= (group_rounds(t) or p.round):
                byes[p.players[0]] = byes.get(p.players[0], 0) + 1
    rows = standings.compute([p.user_id for p in players], done, byes, fmt=t.format, seed=t.seed)
    first_final = group_rounds(t) + 1
    if t.format == "knockout" or (final and t.final_per_group and t.format == "round_robin"):
        reached: dict[int, int] = {}
        place_in_last: dict[int, int] = {}
        for p in tables:
            if p.round < first_final:
                continue  # the groups: their order stays as the points put it
            for i, u in enumerate(_ranked(p, players)):
                if p.round >= reached.get(u, 0):
                    reached[u] = p.round
                    place_in_last[u] = i
        before = {row.player: i for i, row in enumerate(rows)}
        for row in rows:
            row.reached = reached.get(row.player, 0)
        tie = (lambda u: _seed(players, u)) if t.format == "knockout" else before.__getitem__
        rows.sort(key=lambda r: (-reached.get(r.player, 0), place_in_last.get(r.player, 0), tie(r.player)))
        for place, row in enumerate(rows, start=1):
            row.place = place
    return rows


async def _finish(
    db: AsyncSession, t: Tournament, tables: list[PlayedTable], players: Sequence[TournamentPlayer]
) -> list[int]:
    t.status, t.finished_at = TournamentStatus.FINISHED, utcnow()
    t.podium = [row.player for row in compute_standings(t, tables, players)[:3]]
    last_match = max((p.match_id for p in tables if p.match_id is not None), default=None)
    users = [p.user_id for p in players]
    if last_match is not None:
        # A notification belongs to a match: the tournament's last one (it names the podium).
        await notify.record_new(db, [(u, last_match, ENDED, t.finished_at) for u in users], mailed={ENDED})
    return users


async def _create_matches(
    db: AsyncSession, t: Tournament, number: int, seated: list[tuple[int, list[int]]]
) -> list[int]:
    """The round's matches in a few batched statements (not a dozen round trips per match):
    ordinary matches, started at once with their seats in table order, on the tournament's
    clock (a late seat forfeits the match), tagged with the round. The seats to act get their
    your-turn notification, every player a paired one. Returns the players."""
    if not seated:
        return []
    game = get_game(t.game)
    now = utcnow()
    matches = []
    for _, table in seated:
        seed = new_seed()
        rng = Rng(seed)
        state = game.setup(len(table), t.options, rng)
        matches.append(
            Match(
                game=t.game,
                ruleset=game.info.ruleset,
                options=dict(t.options),
                players=len(table),
                status=MatchStatus.ACTIVE,
                seed=seed,
                # As if opened, then started: the start is the first committed change.
                version=public_version(1),
                committed_version=1,
                state=game.format_position(state),
                rng_counter=rng.counter,
                pending=[],
                to_act=sorted(game.to_act(state)),
                created_by=t.created_by,
                invite_token=secrets.token_urlsafe(16),
                fixed_order=True,
                created_at=now,
                updated_at=now,
                started_at=now,
                turn_started_at=now,
            )
        )
    db.add_all(matches)
    await db.flush()  # one INSERT ... RETURNING for the round's matches
    notices: list[tuple[int, int, str, datetime]] = []
    for (no, table), match in zip(seated, matches, strict=True):
        db.add(
            MatchControl(
                match_id=match.id,
                days_per_move=t.days_per_move,
                policy=TimeoutPolicy.FORFEIT,
                extension_days=0,
                timed_out=[],
                late=[],
                votes=[],
                resigned=[],
            )
        )
        db.add_all(MatchSeat(match_id=match.id, seat=i, user_id=u) for i, u in enumerate(table))
        db.add(TournamentMatch(match_id=match.id, tournament_id=t.id, round=number, table_no=no))
        notices += [(table[s], match.id, notify.YOUR_TURN, now) for s in match.to_act]
        notices += [(u, match.id, PAIRED, now) for u in table]
    await db.flush()
    # The paired notice is the one mailed (it names the opponents and links the match); the
    # first mover's your-turn notice would say less a second time.
    await notify.record_new(db, notices, mailed={PAIRED})
    return [u for _, table in seated for u in table]


async def nudge(users: Sequence[int]) -> None:
    for user_id in sorted(set(users)):
        await live.publish_user(user_id)
