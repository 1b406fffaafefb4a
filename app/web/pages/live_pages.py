"""What the pages' live stream (``/sse/live``) sends, rendered for its viewer.

An ``area`` event is exactly what the page would get by fetching ``/matches/{id}/area`` with
the log seq it has: the board area for the viewer's seat (its log list holding only the lines
after that seq) and the clock panel under it. Fragments are built once per version, seat,
locale and log seq and shared by every stream of that viewer, so they carry no session: the
forms in them get their CSRF token from the page (static/js/live.js), and nothing in the
area or clock templates may depend on who is watching beyond the seat.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from app.db.matches import public_version
from app.services import conclusions
from app.services.errors import NotFound
from app.services.play import loaded as kept
from app.services.play.loaded import LoadedMatch
from app.services.play.views import match_view
from app.services.play_schemas import BadgeOut, ClockOut
from app.services.schemas import UserOut
from app.web.pages.matches import area_context
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
    db: AsyncSession, loaded: LoadedMatch, user: UserOut | None, locale: str, log_after: int | None
) -> str:
    """The ``area`` event of one version for this viewer: ``{"match", "version", "html"}``."""
    seat = loaded.seat_of(user.id if user else None)
    clock = loaded.rendered.get("clock")
    if clock is None:
        clock = loaded.rendered["clock"] = await conclusions.get_clock(db, match_id=loaded.id)
    return loaded.built(
        ("area", seat, locale, log_after), lambda: _area(loaded, seat, locale, log_after, clock)
    )


def badge_event(badge: BadgeOut, locale: str) -> str:
    """The ``me`` event: the header's two badges."""
    return json.dumps(
        {
            "turn": render_string(locale, "lobby/_badge.html", {"count": badge.your_turn}),
            "unread": render_string(locale, "play/_unread.html", {"badge": badge}),
        }
    )


def _area(loaded: LoadedMatch, seat: int | None, locale: str, log_after: int | None, clock: ClockOut) -> str:
    view = match_view(loaded, seat, locale, log_after=log_after)
    shared = {"user": None, "csrf_token": "", "page_locale": locale}
    area = render_string(locale, "match/_area.html", {**area_context(view, locale), **shared})
    panel = render_string(locale, "play/_clock.html", {"match": view, "clock": clock, **shared})
    return json.dumps({"match": loaded.id, "version": view.version, "area": area, "clock": panel})
