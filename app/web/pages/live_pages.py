"""What the pages' live stream (``/sse/live``) sends, rendered for its viewer.

An ``area`` event is exactly what the page would get by fetching ``/matches/{id}/area`` with
the log seq it has: the board area for the viewer's seat (its log list holding only the lines
after that seq) and the clock panel under it. Events are built and framed once per version,
seat, locale and log seq and shared by every stream of that viewer (the version's clock is read
once for all of them), so they carry no session: the forms in them get their CSRF token from
the page (static/js/live.js), and nothing in the area or clock templates may depend on who is
watching beyond the seat.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from functools import lru_cache

import orjson
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.matches import public_version
from app.db.store import Store
from app.services import conclusions
from app.services.errors import NotFound
from app.services.play import loaded as kept
from app.services.play import pushes
from app.services.play.loaded import LoadedMatch
from app.services.play_schemas import BadgeOut, ClockOut
from app.services.schemas import UserOut
from app.web.live_response import framed
from app.web.pages.matches import shared_area
from app.web.templating import render_string


async def versions(db: AsyncSession, match_ids: Sequence[int], user: UserOut | None) -> dict[str, int]:
    """The version of each match as the viewer sees it now (a tab behind it fetches its area)."""
    seen: dict[str, int] = {}
    for match_id in match_ids:
        try:
            loaded = await kept.load(db, match_id)
        except NotFound:
            continue
        seat = loaded.seat_of(user.id if user else None)
        acting = seat is not None and seat in loaded.row.to_act
        seen[str(match_id)] = loaded.row.version if acting else public_version(loaded.row.committed_version)
    return seen


async def area_event(
    store: Store,
    loaded: LoadedMatch,
    user: UserOut | None,
    locale: str,
    log_after: int | None,
) -> bytes:
    """The ``area`` event of one version for this viewer (``{"match", "version", "area",
    "clock"}``), framed: built once for all the streams of that viewer."""
    seat = loaded.seat_of(user.id if user else None)
    clock = await _clock(store, loaded)
    return loaded.built(
        ("area event", seat, locale, log_after),
        lambda: framed("area", _area(loaded, seat, locale, log_after, clock)),
    )


async def _clock(store: Store, loaded: LoadedMatch) -> ClockOut:
    """The clock of this version, read once for all its streams. A commit wakes every stream
    of the match at once: each reading it (two statements) queued a thousand spectators'
    reads on the pool, which took seconds (``bench/streams.py``). A failed read is forgotten,
    so the next stream tries again."""
    reading: asyncio.Future[ClockOut] | None = loaded.rendered.get("clock")
    if reading is None:
        reading = loaded.rendered["clock"] = asyncio.ensure_future(
            conclusions.clock_of(store, match=loaded.row)
        )

        def forget_failure(done: asyncio.Future[ClockOut]) -> None:
            if done.cancelled() or done.exception() is not None:
                loaded.rendered.pop("clock", None)

        reading.add_done_callback(forget_failure)
    # Shielded: a stream that goes away while waiting must not cancel the others' read.
    return await asyncio.shield(reading)


def badge_event(badge: BadgeOut, locale: str) -> bytes:
    """The ``me`` event, framed: the header's two badges."""
    return _badge_event(badge.your_turn, badge.unread, locale)


@lru_cache(maxsize=1024)
def _badge_event(your_turn: int, unread: int, locale: str) -> bytes:
    """Made once per pair of counts and language: every seated player's page stream sends one
    when a turn moves on, and most say the same few counts."""
    badge = BadgeOut(your_turn=your_turn, unread=unread)
    return framed(
        "me",
        orjson.dumps(
            {
                "turn": render_string(locale, "lobby/_badge.html", {"count": your_turn}),
                "unread": render_string(locale, "play/_unread.html", {"badge": badge}),
            }
        ).decode(),
    )


def _area(loaded: LoadedMatch, seat: int | None, locale: str, log_after: int | None, clock: ClockOut) -> str:
    view = pushes.seat_view(loaded, seat, locale, log_after)
    area = shared_area(loaded, seat, locale, log_after)
    shared = {"user": None, "csrf_token": "", "page_locale": locale}
    panel = render_string(locale, "play/_clock.html", {"match": view, "clock": clock, **shared})
    # orjson: a tenth of the json module's time for the ~20 KB of an area (UTF-8, not \u escapes).
    return orjson.dumps({"match": loaded.id, "version": view.version, "area": area, "clock": panel}).decode()
