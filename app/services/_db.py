"""Shared plumbing for use cases: database outages become ``Unavailable``."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

import asyncpg  # type: ignore[import-untyped]
from sqlalchemy import exc

from app.services.errors import Unavailable

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


def use_case(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Mark a public service function; a lost or locked database becomes ``Unavailable``."""

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except exc.DBAPIError as error:
            if not is_outage(error):
                raise
            log.warning("database unavailable in %s: %s", fn.__qualname__, error)
            raise Unavailable("the database is not reachable just now, please retry") from error
        except _OUTAGES as error:
            log.warning("database unavailable in %s: %s", fn.__qualname__, error)
            raise Unavailable("the database is not reachable just now, please retry") from error

    return wrapper
