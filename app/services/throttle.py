"""Throttles: attempts counted per key, atomically and before the work they guard.

A login costs an argon2 check, so it is counted first: ``claim`` increments the key's count
in the database and takes the turn only if the key is not blocked, all in one short
transaction that holds the row (PostgreSQL's row lock, SQLite's write lock) until it is
decided, so thirty attempts at once are counted one after another, never read together.
Past a policy's free attempts every further one blocks the key for a growing delay
(``first_delay`` doubled each time, at most ``max_delay``): a guesser slows down without
bound, yet nothing locks anybody out for good; a key quiet for ``forget_after`` starts
afresh. ``release`` gives a claimed attempt back (a login that turned out right).

What one user creates is limited in two more ways, with the same table and the same holding
of a key's row: ``spend`` takes from a ``Quota`` (at most so many per window: chat lines a
minute, invitations an hour) in the transaction of what it pays for, and ``at_most`` counts
what exists (open tables, running bot matches) while it holds the user's key, so a hundred
creations at once are counted one after another and the last sees all the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Select, case, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from app.db.models import Throttle
from app.db.types import utcnow
from app.services.errors import RateLimited

NOT_BLOCKED = datetime(2000, 1, 1, tzinfo=UTC)
"""``blocked_until`` of a key that may go: long past, not "now" (a request that computed its
``now`` a moment earlier and then waited for the row would otherwise see it as blocked)."""


@dataclass(frozen=True, slots=True)
class Policy:
    free: int
    """Attempts before the first delay."""
    first_delay: timedelta
    max_delay: timedelta
    forget_after: timedelta

    def delay(self, attempts: int) -> timedelta:
        """How long the key waits after its ``attempts``-th counted attempt."""
        if attempts < self.free:
            return timedelta(0)
        doubled: timedelta = self.first_delay * 2 ** min(attempts - self.free, 30)
        return min(self.max_delay, doubled)


async def claim(db: AsyncSession, keys: list[tuple[str, Policy]], reason: str) -> None:
    """Count one attempt under every key, or raise ``RateLimited`` (nothing counted) when any
    of them is blocked. Commits (or rolls back) before returning."""
    now = utcnow()
    try:
        for key, _ in keys:
            await _ensure(db, key, now)
        for key, policy in keys:
            counted = (
                await db.execute(
                    update(Throttle)
                    .where(Throttle.key == key, Throttle.blocked_until <= now)
                    .values(attempts=_counted(policy, now), last_at=now)
                    .returning(Throttle.attempts)
                )
            ).scalar_one_or_none()
            if counted is None:
                until = await db.scalar(select(Throttle.blocked_until).where(Throttle.key == key))
                await db.rollback()
                raise RateLimited(reason, retry_after=_seconds((until or now) - now))
            delay = policy.delay(counted)
            if delay:
                await db.execute(
                    update(Throttle).where(Throttle.key == key).values(blocked_until=now + delay)
                )
        await db.commit()
    except BaseException:
        await db.rollback()
        raise


async def release(db: AsyncSession, key: str) -> None:
    """Give back one counted attempt (and its delay) under ``key``; commits."""
    await db.execute(
        update(Throttle)
        .where(Throttle.key == key, Throttle.attempts > 0)
        .values(attempts=Throttle.attempts - 1, blocked_until=NOT_BLOCKED)
    )
    await db.commit()


async def forget(db: AsyncSession, key: str) -> None:
    """Start ``key`` afresh (a successful login clears its name's count from that address)."""
    await db.execute(
        update(Throttle).where(Throttle.key == key).values(attempts=0, blocked_until=NOT_BLOCKED)
    )
    await db.commit()


@dataclass(frozen=True, slots=True)
class Quota:
    """At most ``per`` under one key in a fixed window of ``window`` (which starts with the
    first spending after the last window ended)."""

    per: int
    window: timedelta


COUNT_RETRY_AFTER = 60
"""``Retry-After`` of a count limit: the count falls when a table starts or ends, which no
clock foretells; a minute is a polite time to look again."""


async def spend(db: AsyncSession, key: str, quota: Quota, reason: str, amount: int = 1) -> None:
    """Take ``amount`` from ``key``'s quota in the caller's transaction (it is spent when the
    caller commits its work, so a refused or failed creation spends nothing), or roll back and
    raise ``RateLimited`` with the seconds until the quota's window ends.

    A quota's row keeps its window's start in ``last_at`` and what was spent in it in
    ``attempts``; one UPDATE decides and holds the row, so spenders at once are counted one
    after another."""
    now = utcnow()
    try:
        await _ensure(db, key, now)
        fresh = Throttle.last_at <= now - quota.window
        spent = (
            await db.execute(
                update(Throttle)
                .where(Throttle.key == key, fresh | (Throttle.attempts + amount <= quota.per))
                .values(
                    attempts=case((fresh, amount), else_=Throttle.attempts + amount),
                    last_at=case((fresh, now), else_=Throttle.last_at),
                )
                .returning(Throttle.attempts)
            )
        ).scalar_one_or_none()
        if spent is None or spent > quota.per:
            started = await db.scalar(select(Throttle.last_at).where(Throttle.key == key))
            await db.rollback()
            raise RateLimited(reason, retry_after=_seconds((started or now) + quota.window - now))
    except BaseException:
        await db.rollback()
        raise


async def at_most(db: AsyncSession, key: str, counted: Select[tuple[int]], limit: int, reason: str) -> None:
    """Inside the transaction that has just added one more of something (flushed, not yet
    committed): raise ``RateLimited`` (and roll it back) when ``counted`` now exceeds ``limit``.

    ``key``'s row is held until the transaction ends (PostgreSQL's row lock, SQLite's write
    lock), so creations under one key at once are counted one after another."""
    await _ensure(db, key, utcnow())
    await db.execute(update(Throttle).where(Throttle.key == key).values(last_at=utcnow()))
    if (await db.scalar(counted) or 0) > limit:
        await db.rollback()
        raise RateLimited(reason, retry_after=COUNT_RETRY_AFTER)


async def _ensure(db: AsyncSession, key: str, now: datetime) -> None:
    insert = pg_insert if db.bind.dialect.name == "postgresql" else sqlite_insert
    await db.execute(
        insert(Throttle)
        .values(key=key, attempts=0, last_at=now, blocked_until=NOT_BLOCKED)
        .on_conflict_do_nothing(index_elements=["key"])
    )


def _counted(policy: Policy, now: datetime) -> ColumnElement[int]:
    return case((Throttle.last_at <= now - policy.forget_after, 1), else_=Throttle.attempts + 1)


def _seconds(wait: timedelta) -> int:
    return max(1, int(wait.total_seconds() + 0.999))
