"""Wires asynchronous play into an app: its page routers and the background clock round.

``install(app)`` is called once by the app factory; the clock task starts and stops with the
app's lifespan (after the database and broker exist).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from fastapi import FastAPI

from app.services import clocks
from app.web.api import play as play_api
from app.web.pages import community, hosting, match_end

ROUTERS = (play_api.router, match_end.router, community.router, hosting.router)


def install(app: FastAPI, *, run_clocks: bool = True) -> None:
    """Add the routers and (unless ``run_clocks`` is False) the clock task; idempotent."""
    if getattr(app.state, "async_play_installed", False):
        return
    app.state.async_play_installed = True
    for router in ROUTERS:
        app.include_router(router)
    if not run_clocks:
        return
    inner: Callable[[Any], AbstractAsyncContextManager[Any]] = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: Any) -> AsyncIterator[Any]:
        async with inner(app_) as state, clocks.running(app_.state.sessionmaker, app_.state.settings):
            yield state

    app.router.lifespan_context = lifespan


def create_app() -> FastAPI:
    """``app.main.create_app`` with asynchronous play installed (until the factory calls ``install``)."""
    from app.main import create_app as create_platform_app

    app = create_platform_app()
    install(app)
    return app
