"""Counting a finished match into the statistics tables (``app.db.stats``).

``record`` runs inside the transaction that records a match's end (``ratings.rate_match``
calls it, which every way a match ends goes through), with a handful of statements whatever
the table size: the match's marker, one upsert for its players, one for each pair of them,
one for the game's counters. Counters only ever grow by ``x = x + excluded.x``, so two
matches ending at once never lose each other's counts; the marker's primary key makes a
second count of one match impossible.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import case, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.matches import LoggedMove, Match, MatchSeat, MatchStatus
from app.db.stats import GameTally, OpponentStats, PlayerGameStats, TalliedMatch
from app.engine.registry import UnknownGame, get_game

MATCHES, DECISIONS, SECONDS = "matches", "decisions", "seconds"
WIN, SUMMIT = "win:", "summit:"


async def record(db: AsyncSession, match: Match, seats: Sequence[MatchSeat]) -> bool:
    """Count the finished ``match`` once (False: counted before, or nothing to count)."""
    if match.status != MatchStatus.FINISHED or not match.result:
        return False
    insert = _insert(db)
    marked = await db.execute(
        insert(TalliedMatch)
        .values(match_id=match.id)
        .on_conflict_do_nothing(index_elements=["match_id"])
        .returning(TalliedMatch.match_id)
    )
    if marked.scalar_one_or_none() is None:
        return False
    ranks = [int(r) for r in match.result["ranks"]]
    scored = "conclusion" not in match.result
    scores = [float(s) for s in match.result.get("scores", [0.0] * len(ranks))]
    people = [(s.seat, s.user_id) for s in seats if s.user_id is not None]
    if people:
        await _players(
            db, match.game, [(u, ranks[seat], scores[seat] if scored else None) for seat, u in people]
        )
    pairs = [(a, b, ranks[sa], ranks[sb]) for sa, a in people for sb, b in people if a != b]
    if pairs:
        await _pairs(db, match.game, pairs)
    await _game(db, match, ranks, scored)
    return True


async def note_ratings(db: AsyncSession, game: str, ordinals: dict[int, float]) -> None:
    """After a rated match: raise each player's best rating where the new one is higher."""
    table = PlayerGameStats.__table__
    for user_id, value in ordinals.items():
        await db.execute(
            update(PlayerGameStats)
            .where(
                PlayerGameStats.user_id == user_id,
                PlayerGameStats.game == game,
                or_(table.c.best_rating.is_(None), table.c.best_rating < value),
            )
            .values(best_rating=value)
        )


async def _players(db: AsyncSession, game: str, rows: list[tuple[int, int, float | None]]) -> None:
    table = PlayerGameStats.__table__
    statement = _insert(db)(PlayerGameStats).values(
        [
            {
                "user_id": user,
                "game": game,
                "played": 1,
                "won": int(rank == 1),
                "rank_sum": rank,
                "scored": int(score is not None),
                "score_sum": score or 0.0,
                "streak": int(rank == 1),
                "best_streak": int(rank == 1),
            }
            for user, rank, score in _distinct(rows)
        ]
    )
    new = statement.excluded
    streak = case((new.won > 0, table.c.streak + 1), else_=0)
    await db.execute(
        statement.on_conflict_do_update(
            index_elements=["user_id", "game"],
            set_={
                "played": table.c.played + 1,
                "won": table.c.won + new.won,
                "rank_sum": table.c.rank_sum + new.rank_sum,
                "scored": table.c.scored + new.scored,
                "score_sum": table.c.score_sum + new.score_sum,
                # Both read the row before this update: the streak goes on or starts again.
                "streak": streak,
                "best_streak": case((table.c.best_streak < streak, streak), else_=table.c.best_streak),
            },
        )
    )


async def _pairs(db: AsyncSession, game: str, pairs: list[tuple[int, int, int, int]]) -> None:
    table = OpponentStats.__table__
    seen: set[tuple[int, int]] = set()
    values = []
    for a, b, rank_a, rank_b in pairs:
        if (a, b) in seen:
            continue  # one person in two seats (a test table): counted once
        seen.add((a, b))
        values.append(
            {
                "user_id": a,
                "game": game,
                "other_id": b,
                "played": 1,
                "won": int(rank_a < rank_b),
                "lost": int(rank_a > rank_b),
                "drawn": int(rank_a == rank_b),
            }
        )
    statement = _insert(db)(OpponentStats).values(values)
    new = statement.excluded
    await db.execute(
        statement.on_conflict_do_update(
            index_elements=["user_id", "game", "other_id"],
            set_={
                "played": table.c.played + 1,
                "won": table.c.won + new.won,
                "lost": table.c.lost + new.lost,
                "drawn": table.c.drawn + new.drawn,
            },
        )
    )


async def _game(db: AsyncSession, match: Match, ranks: list[int], scored: bool) -> None:
    counts: dict[str, float] = {MATCHES: 1}
    # The last decision's number: one step down the primary key, however long the match.
    decisions = await db.scalar(select(func.max(LoggedMove.seq)).where(LoggedMove.match_id == match.id))
    counts[DECISIONS] = float(decisions or 0)
    if match.started_at is not None and match.finished_at is not None:
        counts[SECONDS] = max(0.0, (match.finished_at - match.started_at).total_seconds())
    for seat, rank in enumerate(ranks):
        if rank == 1:
            counts[f"{WIN}{seat}"] = 1
    if scored:
        for dragon in _summit(match):
            counts[f"{SUMMIT}{dragon}"] = 1
    table = GameTally.__table__
    statement = _insert(db)(GameTally).values(
        [{"game": match.game, "players": match.players, "key": k, "count": v} for k, v in counts.items()]
    )
    await db.execute(
        statement.on_conflict_do_update(
            index_elements=["game", "players", "key"],
            set_={"count": table.c.count + statement.excluded.count},
        )
    )


def _summit(match: Match) -> list[str]:
    """Draco: the dragons on the summit in the final state (other games: none)."""
    if match.game != "draco" or match.state is None:
        return []
    from app.games.draco.board import DRAGONS  # only Draco has a summit

    try:
        state: Any = get_game(match.game).parse_position(match.state)
    except (UnknownGame, ValueError):
        return []
    return [DRAGONS[i].value for i in range(len(state.positions)) if state.on_summit(i)]


def _distinct(rows: list[tuple[int, int, float | None]]) -> list[tuple[int, int, float | None]]:
    """One row per person (an upsert may not touch a row twice)."""
    seen: dict[int, tuple[int, int, float | None]] = {}
    for row in rows:
        seen.setdefault(row[0], row)
    return list(seen.values())


def _insert(db: AsyncSession) -> Any:
    return pg_insert if db.bind.dialect.name == "postgresql" else sqlite_insert
