"""Profile a running server: ``uvicorn bench.profile_app:create --factory`` (one worker).

The whole process is sampled by pyinstrument from start-up to shutdown; the report is written
to ``$BENCH_PROFILE`` (text, or HTML when the name ends in ``.html``).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from pyinstrument import Profiler

from app.main import create_app


def create() -> FastAPI:
    app = create_app()
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with inner(app):
            profiler = Profiler(interval=0.001, async_mode="disabled")
            profiler.start()
            try:
                yield
            finally:
                profiler.stop()
                target = Path(os.environ.get("BENCH_PROFILE", "profile.txt"))
                session = profiler.last_session
                if session is not None:  # every frame, for pyinstrument --load=… --show-all
                    session.save(str(target.with_suffix(".pyisession")))
                if target.suffix == ".html":
                    target.write_text(profiler.output_html())
                else:
                    target.write_text(profiler.output_text(unicode=True, show_all=False))

    app.router.lifespan_context = lifespan
    return app
