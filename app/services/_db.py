"""Shared plumbing for use cases: database outages become ``Unavailable``."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from sqlalchemy import exc

from app.services.errors import Unavailable

P = ParamSpec("P")
R = TypeVar("R")

log = logging.getLogger(__name__)

_OUTAGES = (exc.OperationalError, exc.InterfaceError, exc.DisconnectionError, exc.TimeoutError, OSError)


def use_case(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Mark a public service function; a lost or locked database becomes ``Unavailable``."""

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except _OUTAGES as error:
            log.warning("database unavailable in %s: %s", fn.__qualname__, error)
            raise Unavailable("the database is not reachable just now, please retry") from error

    return wrapper
