"""The app factory: ``uvicorn app.main:create_app --factory``.

The lifespan makes the database engine, the session factory and the live-update broker, runs
the clock round of asynchronous play (time controls, mails) in the background, and closes them
again. Migrations are not run here (``drachenhort migrate`` / ``serve`` do).
"""

from __future__ import annotations

import gc
import importlib
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

import app.games  # noqa: F401 - importing registers every game
from app import log_records
from app.bots import shutdown_pool
from app.config import LOCAL_URL, Settings, get_settings
from app.db.session import dispose, make_engine, make_sessionmaker
from app.db.store import store_for
from app.services import bot_turns, clocks, sessions
from app.services.live import Broker
from app.services.records.store import MAX_RECORD_BYTES
from app.web import errors
from app.web.address_guard import AddressGuard
from app.web.api import decisions as api_decisions
from app.web.api import router as api_router
from app.web.limits import BodyLimits
from app.web.pages import (
    accounts,
    community,
    hosting,
    lobby,
    match_end,
    matches,
    records,
    replays,
    social,
    tournaments,
)
from app.web.pages.records import RECORD_UPLOADS
from app.web.security import SecurityMiddleware
from app.web.sse import router as sse_router
from app.web.templating import TEMPLATE_DIR

STATIC_DIR = TEMPLATE_DIR.parent / "static"
EXTRA_GAMES_ENV = "DRACHENHORT_EXTRA_GAMES"
log = logging.getLogger(__name__)


GC_THRESHOLDS = (50_000, 20, 100)
"""The cycle collector's thresholds while the app serves (Python's default: 700, 10, 10).

A request allocates thousands of objects, so by default the youngest generation was collected
several times within each request, and what requests in flight held survived into the older
generations, whose passes then grew with the number of requests in flight. Measured with
``bench/run.py --only load --confirm in-move --no-peer`` (1 worker, 15 s): 10 × 3 tables 343 →
473 committed turns/s, server CPU 2.87 → 2.05 ms a turn, mover p99 162 → 53 ms; 50 × 3 360 →
448 turns/s, 2.66 → 2.13 ms. Garbage in cycles lives a little longer (a few MB at most)."""


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the application; ``settings`` default to the environment's."""
    settings = settings or get_settings()
    log_records.install()
    _import_extra_games(os.environ.get(EXTRA_GAMES_ENV, ""))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings.database_url, pool_size=settings.db_pool_size)
        app.state.engine = engine
        app.state.sessionmaker = make_sessionmaker(engine)
        store = store_for(engine, pool_size=settings.move_pool_size)
        app.state.broker = await Broker.start(settings)
        sessions.listen(app.state.broker)
        app.state.broker.catch_up_from(store.versions)
        if settings.smtp_enabled and not settings.base_url:
            log.warning("mail is on but DRACHENHORT_BASE_URL is not set: mail links point to %s", LOCAL_URL)
        # What lives once the app has started (modules, routes, templates, rules tables) lives until
        # it stops: frozen, the collector's full passes no longer walk it (they paused the event loop
        # for ~80 ms under load, ~45 ms frozen).
        gc.collect()
        gc.freeze()
        thresholds = gc.get_threshold()
        gc.set_threshold(*GC_THRESHOLDS)
        try:
            async with (
                clocks.running(app.state.sessionmaker, settings),
                bot_turns.running(app.state.sessionmaker, think_ms=settings.bot_think_ms),
            ):
                yield
        finally:
            await app.state.broker.stop()
            await dispose(engine)
            shutdown_pool()
            gc.set_threshold(*thresholds)
            gc.unfreeze()

    app = FastAPI(
        title="Drachenhort",
        summary="Turn-based board games with friends: the JSON API",
        version="0.1.0",
        lifespan=lifespan,
        docs_url="/api/docs",
        redoc_url=None,
        openapi_url="/api/openapi.json",
        swagger_ui_oauth2_redirect_url="/api/docs/oauth2-redirect",
        telemetry=None if settings.opentelemetry else {"tracing": False, "metrics": False, "logs": False},
    )
    app.state.settings = settings
    errors.install(app)
    # Outside the error handlers (which answer their refusals), inside the security headers.
    app.add_middleware(AddressGuard)
    app.add_middleware(
        BodyLimits,
        max_bytes=settings.max_body_bytes,
        timeout_seconds=settings.body_timeout_seconds,
        larger=dict.fromkeys(RECORD_UPLOADS, MAX_RECORD_BYTES + 64 * 1024),  # the form's other fields
    )
    app.add_middleware(SecurityMiddleware, base_url=settings.base_url)
    app.include_router(api_decisions)  # first (app.web.api.moves says why)
    app.include_router(matches.decisions)  # the same for the pages
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        """Liveness for load balancers and the test server: the process serves requests."""
        return {"status": "ok"}

    for router in (
        api_router,
        sse_router,
        accounts.router,
        lobby.router,
        matches.router,
        replays.router,
        records.router,
        match_end.router,
        community.router,
        social.router,
        hosting.router,
        tournaments.router,
    ):
        app.include_router(router)
    return app


def _import_extra_games(modules: str) -> None:
    """Import the modules named in DRACHENHORT_EXTRA_GAMES (a test server offers its toy game)."""
    for name in (m.strip() for m in modules.split(",")):
        if name:
            importlib.import_module(name)
