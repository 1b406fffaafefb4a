"""Shared plumbing for use cases: database outages become ``Unavailable``, a transaction lost
to a concurrent one (deadlock, serialisation) a ``Conflict``."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

import asyncpg  # type: ignore[import-untyped]
from sqlalchemy import exc
from sqlalchemy.ext.asyncio import AsyncSession

from app.services.errors import Conflict, DomainError, Unavailable

P = ParamSpec("P")
R = TypeVar("R")

log = logging.getLogger(__name__)

_OUTAGES = (exc.OperationalError, exc.InterfaceError, exc.DisconnectionError, exc.TimeoutError, OSError)
# What asyncpg raises while PostgreSQL restarts or the network drops; SQLAlchemy wraps most
# of these in a plain DBAPIError.
_DRIVER_OUTAGES = (
    asyncpg.PostgresConnectionError,  # class 08: connection exceptions
    asyncpg.OperatorInterventionError,  # class 57: admin shutdown, crash, cannot connect now
    asyncpg.TooManyConnectionsError,
    asyncpg.InterfaceError,  # includes ConnectionDoesNotExistError
    asyncpg.InternalClientError,  # "cannot switch to state ..." on a connection that died
    OSError,
)


def is_outage(error: BaseException) -> bool:
    """True when ``error`` means the database cannot be reached (retrying later may work)."""
    if isinstance(error, _OUTAGES):
        return True
    if isinstance(error, exc.DBAPIError):
        if error.connection_invalidated:
            return True
        cause: BaseException | None = error.orig
        while cause is not None:
            if isinstance(cause, _DRIVER_OUTAGES):
                return True
            cause = cause.__cause__
    return False


_CONTENTION = {"40P01", "40001"}
"""PostgreSQL's deadlock victim and serialisation failure: rolled back, fine to try again."""
CHANGED_MEANWHILE = "this changed at the same moment: please try again"


def is_contention(error: exc.DBAPIError) -> bool:
    """True when the database rolled the transaction back to resolve a conflict with another."""
    cause: BaseException | None = error.orig
    while cause is not None:
        if getattr(cause, "sqlstate", None) in _CONTENTION or getattr(cause, "pgcode", None) in _CONTENTION:
            return True
        cause = cause.__cause__
    return False


_LOCKED_IN = "drachenhort.locked_in"


def hold_lock(db: AsyncSession) -> None:
    """Note that the session's transaction now holds a row lock (released at its end)."""
    db.info[_LOCKED_IN] = db.sync_session.get_transaction()


def _holds_lock(db: AsyncSession) -> bool:
    transaction = db.sync_session.get_transaction()
    return transaction is not None and db.info.get(_LOCKED_IN) is transaction


def use_case(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Mark a public service function; a lost or locked database becomes ``Unavailable``.

    A refusal (any other ``DomainError``) after a row lock (``hold_lock``) rolls the session
    back: a use case that locked a match and then said no keeps nobody waiting while its
    caller goes on with the same session.
    """

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except Unavailable:
            raise
        except DomainError:
            session = kwargs.get("db", args[0] if args else None)
            if isinstance(session, AsyncSession) and _holds_lock(session):
                await session.rollback()
            raise
        except exc.DBAPIError as error:
            if is_contention(error):
                # The lock order (``_rows.lock_match``) should make this impossible; should a
                # path still miss it, its user is asked to try again rather than shown a 500.
                log.warning("transaction of %s lost to a concurrent one: %s", fn.__qualname__, error)
                raise Conflict(CHANGED_MEANWHILE) from error
            if not is_outage(error):
                raise
            log.warning("database unavailable in %s: %s", fn.__qualname__, error)
            raise Unavailable("the database is not reachable just now, please retry") from error
        except _OUTAGES as error:
            log.warning("database unavailable in %s: %s", fn.__qualname__, error)
            raise Unavailable("the database is not reachable just now, please retry") from error

    return wrapper
