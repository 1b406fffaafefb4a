"""Matches as the move path holds them: parsed once per version and kept per process.

Every read still asks the database (one statement: the match row, its seats and the log rows
after the newest one kept), but a match whose committed state did not change is not parsed
again, its log lines are not described again, and its per-seat game views are built once.
A decision may even skip that read: when the cached match is at the version the client saw,
the versioned write itself proves the cache right (or fails, and the decision reloads).
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import MatchStatus
from app.db.store import Store, store_of
from app.db.store.records import MatchRow
from app.engine.protocol import JSON, Event, Game, Move, Seat, State
from app.engine.registry import UnknownGame, get_game
from app.engine.turn import Decision, Turn, current_state
from app.services._rows import MAX_ID
from app.services.errors import NotFound
from app.services.play.log import LoggedRow

T = TypeVar("T")

LOG_KEEP = 200
"""Newest logged decisions kept per cached match (a view shows at most these)."""
MAX_MATCHES = 512
"""Matches a process keeps parsed (least recently used first out)."""


@dataclass(slots=True)
class LoadedMatch:
    """One version of a match: its row, its parsed turn and the newest part of its log."""

    row: MatchRow
    game: Game | None
    """None only for a game this server does not know (a match of a removed game)."""
    turn: Turn | None
    """The committed state with the pending decisions; None before the match starts."""
    log: list[LoggedRow]
    """The newest logged decisions (at most ``LOG_KEEP``), complete up to this version."""
    _current: State | None = None
    _game_views: dict[Seat | None, JSON] = field(default_factory=dict)
    rendered: dict[Any, Any] = field(default_factory=dict)
    """What was built from this version for its viewers (pushes), keyed by their builder."""

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def last_seq(self) -> int:
        return self.log[-1].seq if self.log else 0

    @property
    def log_is_complete(self) -> bool:
        """True when the kept rows start at the first decision of the match."""
        return not self.log or self.log[0].seq == 1

    @property
    def is_running(self) -> bool:
        return self.row.status == MatchStatus.ACTIVE

    def seat_of(self, user_id: int | None) -> Seat | None:
        if user_id is None:
            return None
        return next((s.seat for s in self.row.seats if s.user_id == user_id), None)

    def current(self) -> State:
        """The committed state with the pending decisions applied (the acting seat's state)."""
        assert self.game is not None and self.turn is not None and self.row.seed is not None
        if self._current is None:
            self._current = current_state(self.game, self.turn, self.row.seed)
        return self._current

    def built(self, key: Any, build: Callable[[], T]) -> T:
        """``build()`` once for this version and ``key`` (which names what, and for whom)."""
        found = self.rendered.get(key)
        if found is None:
            found = self.rendered[key] = build()
        return cast(T, found)

    def game_view(self, state: State, seat: Seat | None) -> JSON:
        """``game.view`` of the committed state (kept) or of a seat's pending state (not kept)."""
        assert self.game is not None and self.turn is not None
        if state is not self.turn.committed:
            return self.game.view(state, seat)
        view = self._game_views.get(seat)
        if view is None:
            view = self._game_views[seat] = self.game.view(state, seat)
        return view


def cache_of(store: Store) -> OrderedDict[int, LoadedMatch]:
    cache = _caches.get(store)
    if cache is None:
        cache = _caches[store] = OrderedDict()
    return cache


def cached(db: AsyncSession, match_id: int, version: int) -> LoadedMatch | None:
    """The kept match if it is at ``version`` (it may still be out of date: writes check)."""
    found = cache_of(store_of(db)).get(match_id)
    return found if found is not None and found.row.version == version else None


async def load(db: AsyncSession, match_id: int) -> LoadedMatch:
    """The match as the database has it now (one statement), reusing what is kept."""
    return await load_from(store_of(db), match_id)


async def load_from(store: Store, match_id: int) -> LoadedMatch:
    """``load`` on a store (for the live streams, which hold no session)."""
    if not 1 <= match_id <= MAX_ID:
        # Before any lookup: PostgreSQL refuses ids beyond its integer column outright.
        raise NotFound(f"there is no match {match_id}")
    cache = cache_of(store)
    known = cache.get(match_id)
    got = await store.load(match_id, log_after=known.last_seq if known else 0, log_limit=LOG_KEEP)
    if got is None:
        cache.pop(match_id, None)
        raise NotFound(f"there is no match {match_id}")
    if known is not None and known.row.seed != got.match.seed:
        known = None  # the id names another match now (a recreated database): start afresh
        got = await store.load(match_id, log_after=0, log_limit=LOG_KEEP) or got
    rows = [LoggedRow.from_row(r) for r in got.log]
    if known is not None and known.row == got.match and not rows:
        loaded = known
    else:
        loaded = _loaded(got.match, known, rows)
    remember(store, loaded)
    return loaded


def remember(store: Store, loaded: LoadedMatch) -> None:
    """Keep ``loaded`` (only what the database has committed)."""
    cache = cache_of(store)
    cache[loaded.id] = loaded
    cache.move_to_end(loaded.id)
    while len(cache) > MAX_MATCHES:
        cache.popitem(last=False)


def forget(db: AsyncSession, match_id: int | None = None) -> None:
    """Drop one kept match, or all of them (tests, and changes made outside the move path)."""
    cache = cache_of(store_of(db))
    if match_id is None:
        cache.clear()
    else:
        cache.pop(match_id, None)


def advanced(
    loaded: LoadedMatch, row: MatchRow, turn: Turn, current: State | None, new_rows: Sequence[LoggedRow]
) -> LoadedMatch:
    """``loaded`` after a decision this process wrote itself (no database read)."""
    log = loaded.log + list(new_rows)
    same = loaded.turn is not None and turn.committed is loaded.turn.committed
    return LoadedMatch(
        row=row,
        game=loaded.game,
        turn=turn,
        log=log[-LOG_KEEP:],
        _current=current,
        _game_views=loaded._game_views if same else {},
    )


def parse_pending(raw: Sequence[dict[str, Any]]) -> tuple[Decision, ...]:
    return tuple(
        Decision(p["seat"], Move.parse(p["move"]), tuple(Event.from_json(e) for e in p["events"]))
        for p in raw
    )


def pending_json(pending: Sequence[Decision]) -> list[dict[str, Any]]:
    return [{"seat": d.seat, "move": str(d.move), "events": [e.to_json() for e in d.events]} for d in pending]


def _loaded(row: MatchRow, known: LoadedMatch | None, rows: list[LoggedRow]) -> LoadedMatch:
    try:
        game: Game | None = get_game(row.game, row.ruleset)
    except UnknownGame:
        game = None
    if known is not None and rows and rows[0].seq != known.last_seq + 1:
        known_log: list[LoggedRow] = []  # more was logged than one read returns: keep the newest
    else:
        known_log = known.log if known is not None else []
    log = (known_log + rows)[-LOG_KEEP:]
    turn = None
    views: dict[Seat | None, JSON] = {}
    if game is not None and row.state is not None and row.seed is not None:
        if known is not None and known.turn is not None and known.row.state == row.state:
            committed, views = known.turn.committed, known._game_views
        else:
            committed = game.parse_position(row.state)
        turn = Turn(committed, row.rng_counter, parse_pending(row.pending))
    return LoadedMatch(row=row, game=game, turn=turn, log=log, _game_views=views)


_caches: weakref.WeakKeyDictionary[Store, OrderedDict[int, LoadedMatch]] = weakref.WeakKeyDictionary()
