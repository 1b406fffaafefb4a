"""Bot seats take their turns through the same door as people.

A bot is a user without a login (``users.bot_level``, migration 0005). When a commit makes it a
bot's turn, the worker that committed wakes its ``BotRunner``, which reads the match again, gives
the bot an observation of its seat (``app.bots.observe``: the seat's view and legal moves,
never the state) and submits the bot's move with ``app.services.play.decisions``, exactly as
a person's: validation, versioned write, request id, log, live news, notifications.

Nothing about a bot's turn lives only in memory: the runner finds bot turns in the database
(a sweep at start and every ``SWEEP_SECONDS``), so a worker that dies while its bot thinks
loses nothing; another worker, or this one after a restart, takes the turn up again. The
request id is ``bot:<match>:<version>`` (a form no client can send, so no player can use a
bot's next id first) and the search seed follows from the same pair, so a decision taken
twice (two workers' sweeps) is applied once: the second gets the first's answer, or a stale
version, and the loop reads the match again.

Random and easy bots decide inline (microseconds); normal and strong search in the process
pool of ``app.bots.pool``, so the event loop keeps serving meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import zlib
from collections.abc import AsyncIterator
from datetime import timedelta

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.bots import Level, budget_for, decide, decide_async, observe
from app.db.matches import public_version
from app.db.models import Match, MatchSeat, MatchStatus, User
from app.db.store.records import MatchRow
from app.db.types import utcnow
from app.engine.protocol import CONFIRM, Move, Seat
from app.services.errors import Conflict, DomainError, StaleVersion, Unavailable
from app.services.play import loaded as kept
from app.services.play.loaded import LoadedMatch

LEVELS = (Level.EASY, Level.NORMAL, Level.STRONG)
"""What the lobby offers (``random`` is for tournaments only)."""
SWEEP_SECONDS = 15.0
STUCK_AFTER = timedelta(seconds=60)
"""A bot turn older than this was lost by a worker (a bot's whole turn takes seconds)."""
MAX_DECISIONS = 2_000
"""Per wake-up: a match of bots only ends long before (a guard against a loop, not a limit)."""
MAX_STALE = 20
"""Decisions overtaken in one wake-up before the runner leaves the match to the sweep."""
INLINE = (Level.RANDOM, Level.EASY)

log = logging.getLogger(__name__)
_current: BotRunner | None = None


class BotRunner:
    """Plays the bot seats of one process's matches; ``wake`` after a commit, a sweep for the rest."""

    def __init__(
        self, sessionmaker: async_sessionmaker[AsyncSession], *, think_ms: float | None = None
    ) -> None:
        self._sessionmaker = sessionmaker
        self._think_ms = think_ms
        self.bots: dict[int, Level] = {}
        """Bot user id -> level (a fixed set: migration 0005 made them)."""
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()

    async def load_bots(self) -> None:
        async with self._sessionmaker() as db:
            rows = await db.execute(select(User.id, User.bot_level).where(User.bot_level.is_not(None)))
            self.bots = {user_id: Level(level) for user_id, level in rows.tuples() if level}

    def bot_to_act(self, row: MatchRow) -> tuple[Seat, int, Level] | None:
        """The first seat to act that a bot holds, with the bot's user id and level."""
        if row.status != MatchStatus.ACTIVE:
            return None
        for seat in row.seats:
            if seat.seat in row.resigned:
                continue  # conceded: the clock round plays it, not a bot
            if seat.seat in row.to_act and seat.user_id is not None and seat.bot is not None:
                return seat.seat, seat.user_id, Level(seat.bot)  # a bot, or a stand-in for a person
        return None

    def wake(self, match_id: int) -> None:
        """Play the match's bot turns now (in the background; at most one task per match)."""
        task = self._tasks.get(match_id)
        if task is not None and not task.done():
            self._again.add(match_id)  # the running task looks again before it ends
            return
        self._tasks[match_id] = asyncio.create_task(self._run(match_id), name=f"bot-turns-{match_id}")

    async def _run(self, match_id: int) -> None:
        try:
            while True:
                self._again.discard(match_id)
                await self.play(match_id)
                if match_id not in self._again:
                    return
        except Unavailable:
            log.warning("bot turns of match %s wait for the database (the sweep resumes them)", match_id)
        except Exception:  # a bug must not end the runner; the sweep tries again
            log.exception("bot turns of match %s failed", match_id)
        finally:
            self._tasks.pop(match_id, None)

    async def play(self, match_id: int) -> int:
        """Take every decision of the match's bots until a person is to act; the count taken."""
        from app.services.play import decisions  # decisions wakes runners: imported late

        taken = stale = 0
        while taken < MAX_DECISIONS and stale < MAX_STALE:
            async with self._sessionmaker() as db:
                loaded = await kept.load(db, match_id)
                actor = self.bot_to_act(loaded.row)
                if actor is None or loaded.game is None or loaded.turn is None:
                    return taken
                seat, user_id, level = actor
                version = seen_version(loaded, seat)
                move = await self._decide(loaded, seat, level, version)
                request_id = decisions.ServerRequestId.of("bot", match_id, version)
                try:
                    if move == CONFIRM:
                        await decisions.confirm_turn(
                            db,
                            match_id=match_id,
                            user_id=user_id,
                            expected_version=version,
                            request_id=request_id,
                            locale="en",
                        )
                    else:
                        await decisions.submit_move(
                            db,
                            match_id=match_id,
                            user_id=user_id,
                            move=str(move),
                            expected_version=version,
                            request_id=request_id,
                            locale="en",
                            then_confirm=True,  # a confirm left alone needs no thinking
                        )
                except (StaleVersion, Conflict):
                    stale += 1  # someone (a person, another worker) moved first: read again
                    continue
                except DomainError as error:
                    log.warning("bot of match %s seat %s was refused: %s", match_id, seat, error)
                    return taken
                taken += 1
        return taken

    async def _decide(self, loaded: LoadedMatch, seat: Seat, level: Level, version: int) -> Move:
        assert loaded.game is not None and loaded.turn is not None
        turn = loaded.turn
        # The bot's own pending decisions are part of what it sees; anybody else's are not.
        own_pending = turn.pending_seat in (None, seat)
        state = loaded.current() if own_pending else turn.committed
        # The events of the kept log (the newest decisions) and of its own pending decisions:
        # ``observe`` keeps those its seat was shown (the determinisers count from them).
        events = [e for row in loaded.log for e in row.events]
        if own_pending:
            events += [e for decision in turn.pending for e in decision.events]
        obs = observe(loaded.game, state, seat, loaded.row.players, events, options=loaded.row.options)
        seed = zlib.crc32(f"{loaded.id}:{version}".encode())
        budget = budget_for(level, self._think_ms)
        if level in INLINE:
            return decide(obs, level, seed, budget)
        return await decide_async(obs, level, seed, budget)

    async def sweep(self, *, stuck_only: bool = True) -> list[int]:
        """Wake every running match whose bot is to act (``stuck_only``: for a while already)."""
        if not self.bots:
            return []
        query = (
            select(Match.id, Match.to_act, MatchSeat.seat)
            .join(MatchSeat, MatchSeat.match_id == Match.id)
            .where(
                Match.status == MatchStatus.ACTIVE,
                or_(MatchSeat.user_id.in_(self.bots), MatchSeat.stand_in.is_not(None)),
            )
        )
        if stuck_only:
            query = query.where(Match.turn_started_at < utcnow() - STUCK_AFTER)
        async with self._sessionmaker() as db:
            rows = (await db.execute(query)).tuples().all()
        woken = sorted({match_id for match_id, to_act, seat in rows if seat in (to_act or [])})
        for match_id in woken:
            self.wake(match_id)
        return woken

    async def settle(self) -> None:
        """Wait until no bot is thinking (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    async def stop(self) -> None:
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)


def seen_version(loaded: LoadedMatch, seat: Seat) -> int:
    """The match version ``seat`` sees (the acting seat its private one, others the public one)."""
    if loaded.turn is not None and loaded.turn.pending_seat == seat:
        return loaded.row.version
    return public_version(loaded.row.committed_version)


def current() -> BotRunner | None:
    return _current


def after_commit(loaded: LoadedMatch) -> None:
    """Called by the move path after every write: wake the bots if one is to act now."""
    runner = _current
    if runner is not None and runner.bot_to_act(loaded.row) is not None:
        runner.wake(loaded.id)


def after_start(match_id: int) -> None:
    """Called by the lobby when a match starts (a bot may move first)."""
    if _current is not None:
        _current.wake(match_id)


@contextlib.asynccontextmanager
async def running(
    sessionmaker: async_sessionmaker[AsyncSession], *, think_ms: float | None = None
) -> AsyncIterator[BotRunner]:
    """The process's runner for an app's lifespan: bot turns found at start, then swept."""
    global _current
    runner = BotRunner(sessionmaker, think_ms=think_ms)
    _current = runner

    async def sweeping() -> None:
        stuck_only = False  # at start every waiting bot turn is taken up
        while True:
            try:
                if not runner.bots:
                    await runner.load_bots()
                await runner.sweep(stuck_only=stuck_only)
                stuck_only = True
            except Exception as error:  # the database is down: the server answers 503 meanwhile
                log.warning("bot sweep failed: %s", error)
            await asyncio.sleep(SWEEP_SECONDS)

    sweeper = asyncio.create_task(sweeping(), name="drachenhort-bot-sweep")
    try:
        yield runner
    finally:
        sweeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sweeper
        await runner.stop()
        if _current is runner:
            _current = None
