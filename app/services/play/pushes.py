"""What a live stream sends after a commit: its viewer's new view, built once per process.

Streams hear "match 42 is at version 17, its log grew after seq 130" (``live.Nudge``); each
needs its viewer's view of version 17 with the lines after 130. The process that wrote the
decision holds that version already; any other process reads it once, however many of its
streams wait for it. Each (seat, locale) view is built once per version and shared by every
stream of that viewer (a player's phone and desktop; all spectators alike). A seat only ever
gets its own view: what is built for one seat never goes to another.
"""

from __future__ import annotations

import asyncio

from app.db.store import Store
from app.engine.protocol import Seat
from app.services.play import loaded as kept
from app.services.play.loaded import LoadedMatch
from app.services.play.views import match_view
from app.services.schemas import MatchView


async def match_at(store: Store, match_id: int, version: int) -> LoadedMatch:
    """The match at committed ``version`` or later: the kept one, else one shared read."""
    known = kept.cache_of(store).get(match_id)
    if known is not None and known.row.committed_version >= version:
        return known
    key = (id(store), match_id)
    loading = _loading.get(key)
    if loading is None:
        loading = asyncio.ensure_future(kept.load_from(store, match_id))
        _loading[key] = loading
        loading.add_done_callback(lambda _: _loading.pop(key, None))
    # Shielded: a stream that goes away while waiting must not cancel the others' read.
    return await asyncio.shield(loading)


def seat_view(loaded: LoadedMatch, seat: Seat | None, locale: str, log_after: int | None) -> MatchView:
    """The view of ``seat`` with the lines after ``log_after`` (what every push is made of)."""
    return loaded.built(
        ("view", seat, locale, log_after), lambda: match_view(loaded, seat, locale, log_after=log_after)
    )


def json_view(loaded: LoadedMatch, seat: Seat | None, locale: str, log_after: int | None) -> str:
    """The view of ``seat`` as the JSON API sends it, with the lines after ``log_after``."""
    return loaded.built(
        ("json", seat, locale, log_after),
        lambda: seat_view(loaded, seat, locale, log_after).model_dump_json(),
    )


def keep_view(
    loaded: LoadedMatch, seat: Seat, locale: str, log_after: int | None, view: MatchView, text: str
) -> None:
    """``seat_view`` and ``json_view`` of ``seat`` made already (the answer to the decision that
    made ``loaded``): the mover's own pushes, JSON or page, build neither again."""
    loaded.rendered.setdefault(("view", seat, locale, log_after), view)
    loaded.rendered.setdefault(("json", seat, locale, log_after), text)


_loading: dict[tuple[int, int], asyncio.Future[LoadedMatch]] = {}
