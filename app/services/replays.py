"""Replays: any step of a started match, rebuilt from its seed and move log, as a seat saw it.

A step is a decision a player would count: each logged decision, except that a confirm
belongs to the step it ends (the decision before it, by the same seat). Step numbers only
ever grow as a match goes on, so a link to ``?step=N`` keeps showing the same position.

What a step costs does not grow with the match. Each process keeps, per match, a
``ReplayIndex``: where every step ends (four bytes a step), a checkpoint every
``CHECKPOINT_EVERY`` decisions (the state in the game's own storage notation, a few hundred
bytes, and the Rng counter) and the last state it built. A step then reads the decisions after
the nearest checkpoint (two columns) and the ``LOG_PAGE`` decisions its log shows, and applies
at most ``CHECKPOINT_EVERY - 1`` decisions; the next step of an autoplay starts from the state
the step before built (one or two decisions).

Why a per-process index rather than snapshots stored in the database: applying decisions is
cheap (~15 us each in Drachenland); what cost ~200 ms of CPU and ~450 KB a request at step
2,800 was reading, describing and sending the whole log. Measured by ``bench/replay_step.py``
on a finished 3,600-decision match (PostgreSQL): 2-3 ms of CPU and 13-18 KB at step 10, 1,000
and 2,800 alike. The first step asked of a match in a process builds its index (one read of the
(seat, move) columns, one rebuild up to that step: ~65 ms there, once). Stored snapshots would
save that once-per-process cost but need the move path to write them (a cost on every decision), or a
GET that writes, and a migration; the log stays the only truth and every checkpoint is rebuilt
from it. ``MAX_INDEXES`` bounds the memory: the index of a 3,700-decision match holds 74
checkpoints and ~3,100 step ends, ~40 KB.
"""

from __future__ import annotations

import weakref
from array import array
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import cast

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import ImportedMatch, LoggedMove, Match, MatchStatus, User
from app.db.store import Store, store_of
from app.db.store.records import LogRow
from app.engine.protocol import CONFIRM, Game, Move, Seat
from app.engine.registry import get_game
from app.engine.replay import ReplayStep, resume, setup_step
from app.services._db import use_case
from app.services._rows import load_match, load_seats_named, seat_of, seat_outs
from app.services.errors import Conflict
from app.services.play.log import LoggedRow, visible
from app.services.play.views import LOG_PAGE
from app.services.schemas import MatchStatusName, ReplayView

CHECKPOINT_EVERY = 50
"""Decisions between two kept states: a step applies at most this many minus one."""
MAX_INDEXES = 256
"""Matches a process keeps an index of (least recently used first out)."""

_ENDED = (MatchStatus.FINISHED, MatchStatus.ABORTED)
NO_SUCH_STEP = "there is no such step in this match (yet)"


@use_case
async def replay(
    db: AsyncSession, *, match_id: int, viewer_id: int | None, step: int | None, locale: str
) -> ReplayView:
    """The match after ``step`` steps (0 = the setup; None = the last step), as the viewer saw it.

    A step beyond the steps so far is a ``Conflict`` (it may exist later in a running match).
    The answer's log holds the lines of the newest ``LOG_PAGE`` decisions up to the step;
    earlier ones come page by page from the match's log (``log_before``).
    """
    match = await load_match(db, match_id)
    if match.status not in (MatchStatus.ACTIVE, *_ENDED) or match.seed is None:
        raise Conflict("this match has not started: there is nothing to replay")
    seats, names = await load_seats_named(db, match_id)
    viewer_seat = seat_of(seats, viewer_id)
    game = get_game(match.game, match.ruleset)  # rebuilt from the setup of its own ruleset
    index = await _index(db, match)
    steps = len(index.ends)
    if step is None:
        step = steps
    if not 0 <= step <= steps:
        raise Conflict(NO_SUCH_STEP)  # a fixed reason: the pages show it translated
    upto = index.ends[step - 1] if step else 0
    start = index.ends[step - 2] if step > 1 else 0
    state = await _state_after(db, match, game, index, upto)
    rows = [LoggedRow.from_row(row) for row in await _log_rows(db, match_id, upto - LOG_PAGE, upto)]
    step_rows = [row for row in rows if row.seq > start]
    outs = seat_outs(seats, names)
    imported = await db.get(ImportedMatch, match.id) if match.status in _ENDED else None
    importer: str | None = None
    if imported is not None:
        outs = [o.model_copy(update={"name": imported.names[o.seat]}) for o in outs]
        importer = await db.scalar(select(User.name).where(User.id == imported.imported_by))
    return ReplayView(
        match_id=match.id,
        game=match.game,
        status=cast(MatchStatusName, match.status),
        step=step,
        steps=steps,
        view=game.view(state.state, viewer_seat),
        log=visible(game, rows, viewer_seat, locale),
        log_before=rows[0].seq - 1 if rows else 0,
        step_log=visible(game, step_rows, viewer_seat, locale),
        seat=step_rows[0].seat if step_rows else None,
        move=step_rows[0].move if step_rows else None,
        viewer_seat=viewer_seat,
        seats=outs,
        imported=imported is not None,
        imported_by=importer,
    )


def step_ends(decisions: Sequence[tuple[int, str]]) -> list[int]:
    """Where each step ends in the logged (seat, move) list: the index after its last decision."""
    ends = array("i")
    _extend_step_ends(ends, None, 0, decisions)
    return list(ends)


def _extend_step_ends(
    ends: array[int], last_seat: Seat | None, first: int, decisions: Iterable[tuple[int, str]]
) -> Seat | None:
    """Add the steps of ``decisions`` (logged from index ``first`` on) to ``ends``.

    ``last_seat`` is the seat of the decision before them; the seat of the last one is returned.
    """
    confirm = str(CONFIRM)
    for index, (seat, move) in enumerate(decisions, start=first + 1):
        if move == confirm and ends and last_seat == seat:
            ends[-1] = index
        else:
            ends.append(index)
        last_seat = seat
    return last_seat


@dataclass(slots=True)
class ReplayIndex:
    """What a process keeps of one match to answer any step of it without rebuilding the rest."""

    seed: bytes
    """The match's secret seed: an index of another match under a reused id never matches."""
    decisions: int = 0
    """Logged decisions read so far (seqs 1..decisions)."""
    last_seat: Seat | None = None
    ends: array[int] = field(default_factory=lambda: array("i"))
    complete: bool = False
    """The match had ended when the decisions were read: no more will come."""
    checkpoints: dict[int, tuple[str, int]] = field(default_factory=dict)
    """Decision index (a multiple of ``CHECKPOINT_EVERY``) -> (state notation, Rng counter)."""
    recent: ReplayStep | None = None
    """The last state built: the next step of an autoplay starts here."""


async def _index(db: AsyncSession, match: Match) -> ReplayIndex:
    """The match's kept index, brought up to its newest logged decision."""
    assert match.seed is not None
    indexes = _indexes_of(store_of(db))
    index = indexes.get(match.id)
    if index is None or index.seed != match.seed:
        index = indexes[match.id] = ReplayIndex(seed=match.seed)
    indexes.move_to_end(match.id)
    while len(indexes) > MAX_INDEXES:
        indexes.popitem(last=False)
    if not index.complete:
        ended = match.status in _ENDED  # read before the log: nothing is logged after the end
        new = await _decisions(db, match.id, index.decisions, None)
        # Another request may have read some of them meanwhile (each awaits the database).
        fresh = [(seat, move) for seq, seat, move in new if seq > index.decisions]
        index.last_seat = _extend_step_ends(index.ends, index.last_seat, index.decisions, fresh)
        index.decisions += len(fresh)
        index.complete = ended
    return index


async def _state_after(
    db: AsyncSession, match: Match, game: Game, index: ReplayIndex, upto: int
) -> ReplayStep:
    """The state after ``upto`` logged decisions, from the nearest kept state before it."""
    assert match.seed is not None
    base = _nearest(game, match, index, upto)
    moves = [(seat, Move.parse(move)) for _, seat, move in await _decisions(db, match.id, base.index, upto)]
    last = base
    for last in resume(game, match.seed, base, moves):
        if last.index % CHECKPOINT_EVERY == 0 and last.index not in index.checkpoints:
            index.checkpoints[last.index] = (game.format_position(last.state), last.rng_counter)
    index.recent = last
    return last


def _nearest(game: Game, match: Match, index: ReplayIndex, upto: int) -> ReplayStep:
    """The kept state closest before ``upto``: the last one built, a checkpoint or the setup."""
    assert match.seed is not None
    recent = index.recent
    mark = max((i for i in index.checkpoints if i <= upto), default=0)
    if recent is not None and mark <= recent.index <= upto:
        return recent
    if mark == 0:
        return setup_step(game, match.players, match.options, match.seed)
    notation, counter = index.checkpoints[mark]
    return ReplayStep(mark, game.parse_position(notation), None, None, (), counter)


async def _decisions(
    db: AsyncSession, match_id: int, after: int, upto: int | None
) -> list[tuple[int, Seat, str]]:
    """(seq, seat, move) of the logged decisions after seq ``after`` (up to ``upto``), in order."""
    query = select(LoggedMove.seq, LoggedMove.seat, LoggedMove.move).where(
        LoggedMove.match_id == match_id, LoggedMove.seq > after
    )
    if upto is not None:
        query = query.where(LoggedMove.seq <= upto)
    result = await db.execute(query.order_by(LoggedMove.seq))
    return [(seq, seat, move) for seq, seat, move in result.all()]


async def _log_rows(db: AsyncSession, match_id: int, after: int, upto: int) -> list[LogRow]:
    """The logged decisions with seq in (``after``, ``upto``], events included, in order."""
    query = (
        select(LoggedMove.seq, LoggedMove.seat, LoggedMove.move, LoggedMove.events)
        .where(LoggedMove.match_id == match_id, LoggedMove.seq > after, LoggedMove.seq <= upto)
        .order_by(LoggedMove.seq)
    )
    return [
        LogRow(seq, seat, move, tuple(events)) for seq, seat, move, events in (await db.execute(query)).all()
    ]


def _indexes_of(store: Store) -> OrderedDict[int, ReplayIndex]:
    """One LRU of indexes per database (tests run several; match ids repeat across them)."""
    indexes = _indexes.get(store)
    if indexes is None:
        indexes = _indexes[store] = OrderedDict()
    return indexes


_indexes: weakref.WeakKeyDictionary[Store, OrderedDict[int, ReplayIndex]] = weakref.WeakKeyDictionary()
