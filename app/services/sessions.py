"""Who a session token belongs to, kept per process for a short while.

Every request asks (``accounts.user_for_token``); asking the database every time cost a query
per request. A kept answer is used for at most ``KEEP_SECONDS``, and dropped at once, in every
process, when the account's sessions or settings change (log out, disabled, new password,
language): ``changed`` sends the news through the live broker, whose listener drops what
this process kept.
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from app.db.store import Store, store_of
from app.db.types import utcnow
from app.services import live
from app.services.live import Nudge
from app.services.schemas import UserOut

KEEP_SECONDS = 30.0
MAX_KEPT = 10_000


@dataclass(frozen=True, slots=True)
class _Kept:
    user: UserOut
    expires_at: datetime
    until: float
    """``time.monotonic()`` after which the database is asked again."""


def kept_user(db: AsyncSession, token: str) -> UserOut | None:
    """The user this process kept for ``token``, if still fresh."""
    return kept_in(store_of(db), token)


def kept_in(store: Store, token: str) -> UserOut | None:
    """``kept_user`` without a database session (a live stream asks before every event)."""
    found = _kept_of(store).get(token)
    if found is not None and found.until > time.monotonic() and found.expires_at > utcnow():
        return found.user
    return None


def keep(db: AsyncSession, token: str, user: UserOut | None, expires_at: datetime | None) -> None:
    """Keep what the database said of ``token`` (None: nothing valid)."""
    kept = _kept_of(store_of(db))
    if user is None or expires_at is None:
        kept.pop(token, None)
        return
    if len(kept) >= MAX_KEPT:
        kept.clear()
    kept[token] = _Kept(user, expires_at, time.monotonic() + KEEP_SECONDS)


async def changed(user_id: int) -> None:
    """The user's sessions or account changed: every process forgets what it kept of them."""
    forget(user_id)
    await live.publish(Nudge("account", user_id))


def forget(user_id: int) -> None:
    for kept in _all.values():
        for token in [t for t, k in kept.items() if k.user.id == user_id]:
            del kept[token]


def listen(broker: live.Broker) -> None:
    """Let news of other processes drop what this process kept (the app lifespan calls it);
    after the news was interrupted, drop everything (what it would have said is not known)."""
    broker.listen("account", lambda nudge: forget(nudge.id))
    broker.on_reconnect(forget_everyone)


def forget_everyone() -> None:
    for kept in _all.values():
        kept.clear()


def _kept_of(store: Store) -> dict[str, _Kept]:
    kept = _all.get(store)
    if kept is None:
        kept = _all[store] = {}
    return kept


_all: weakref.WeakKeyDictionary[Store, dict[str, _Kept]] = weakref.WeakKeyDictionary()
