"""How matches end beyond their rules, and what happens whenever a match changes.

- ``after_commit`` is the hook the move path calls inside its transaction after a committed
  decision: notifications, and for a finished match the resignations' ranks and the ratings.
- ``resign``, ``offer_draw``/``answer_draw`` (two-player games), ``vote_end`` (the vote timeout
  policy), ``rematch``.
- ``play_for`` plays the game's ``timeout_move`` for a seat (a timed-out or resigned seat).

Every change to a match is ``UPDATE ... WHERE version = :seen`` (``bump_version``), so it
happens once however many workers try; and each takes the match row's lock first
(``lock_match``), so two at once queue instead of deadlocking. A seat that resigned decides
nothing any more: no draw, no vote (the server plays its turns).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from app.db.async_play import MatchControl, TimeoutPolicy
from app.db.models import LoggedMove, Match, MatchSeat, MatchStatus, User
from app.db.store import Store
from app.db.store.records import ControlRow
from app.db.types import utcnow
from app.engine.protocol import Event, Move, Seat
from app.engine.registry import get_game
from app.engine.turn import Decision, Turn, current_state, decide
from app.services import live, lobby, notify, ratings, results
from app.services._db import use_case
from app.services._rows import bump_version, load_match, load_seats, lock_match, seat_of, summary, user_names
from app.services.errors import Conflict, Forbidden
from app.services.limits import Limits
from app.services.play.standings import RESIGNED, resigned_last
from app.services.play_schemas import ClockOut
from app.services.schemas import MatchSummary

MAX_AUTO_DECISIONS = 200
_CHANGED = "the match changed at the same moment: please try again"


# --- the hook of the move path ----------------------------------------------------------


async def after_commit(db: AsyncSession, match: Match, seats: Sequence[MatchSeat]) -> set[int]:
    """Inside the transaction of a committed change: ranks, ratings, notifications.

    Returns the users to nudge after the commit.
    """
    if match.status == MatchStatus.FINISHED:
        control = await db.get(MatchControl, match.id)
        if control is not None and control.resigned and match.result:
            await _rank_resigned_last(db, match, seats, [int(s) for s in control.resigned])
        await ratings.rate_match(db, match, seats)
    return await notify.record_turn(db, match, seats)


# --- controls ---------------------------------------------------------------------------


async def control_of(db: AsyncSession, match_id: int, *, lock: bool = False) -> MatchControl:
    """The match's control row, made (no clock) when missing."""
    control = await db.get(MatchControl, match_id, populate_existing=True, with_for_update=lock)
    if control is None:
        control = MatchControl(
            match_id=match_id,
            days_per_move=None,
            policy=TimeoutPolicy.TIMEOUT_MOVE,
            extension_days=0,
            timed_out=[],
            late=[],
            votes=[],
            resigned=[],
        )
        db.add(control)
        await db.flush()
    return control


class Timed(Protocol):
    """What a clock needs of its match (a ``Match`` row, or a version the live path holds)."""

    @property
    def id(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def turn_started_at(self) -> datetime | None: ...


Controlled = MatchControl | ControlRow
"""A time control as the session holds it, or as the move path's store read it."""


@use_case
async def get_clock(db: AsyncSession, *, match_id: int) -> ClockOut:
    """The match's time control, deadline and concessions, read in this session: a use case that
    has just changed them answers with its change before it commits."""
    match = await load_match(db, match_id)
    control = await db.get(MatchControl, match_id, populate_existing=True)
    return _unclocked(match_id) if control is None else clock_out(match, control)


async def clock_of(store: Store, *, match: Timed) -> ClockOut:
    """The clock of ``match`` as that row has it, on the move path's store with no session: a
    live push has the version it shows already, so only the time control is read."""
    control = await store.control(match.id)
    return _unclocked(match.id) if control is None else clock_out(match, control)


def _unclocked(match_id: int) -> ClockOut:
    return ClockOut(
        match_id=match_id,
        days_per_move=None,
        policy=TimeoutPolicy.TIMEOUT_MOVE,
        deadline=None,
        timed_out=[],
        late=[],
        votes=[],
        resigned=[],
        draw_offer_by=None,
        conclusion=None,
        rematch_of=None,
        rematch_id=None,
    )


def clock_out(match: Timed, control: Controlled) -> ClockOut:
    """The clock a time control gives ``match`` now (its deadline included)."""
    from app.services.clocks import deadline  # clocks builds on this module

    late_now = match.turn_started_at is not None and control.late_for == match.turn_started_at
    return ClockOut(
        match_id=match.id,
        days_per_move=control.days_per_move,
        policy=control.policy,
        deadline=deadline(match, control),
        timed_out=list(control.timed_out),
        late=list(control.late) if late_now and match.status == MatchStatus.ACTIVE else [],
        votes=list(control.votes) if late_now and match.status == MatchStatus.ACTIVE else [],
        resigned=list(control.resigned),
        draw_offer_by=control.draw_offer_by if match.status == MatchStatus.ACTIVE else None,
        conclusion=control.conclusion,
        rematch_of=control.rematch_of,
        rematch_id=control.rematch_id,
    )


# --- playing for a seat -------------------------------------------------------------------


async def play_for(
    db: AsyncSession, match: Match, seats: Sequence[MatchSeat], seat: Seat, *, now: datetime | None = None
) -> bool:
    """Play ``timeout_move`` for ``seat`` until it has handed the turn on (one transaction).

    The seat's own pending decisions are kept and committed with it. False when another
    transaction changed the match first (nothing was done).
    """
    game = get_game(match.game)
    assert match.state is not None and match.seed is not None
    turn = Turn(
        game.parse_position(match.state),
        match.rng_counter,
        tuple(
            Decision(p["seat"], Move.parse(p["move"]), tuple(Event.from_json(e) for e in p["events"]))
            for p in match.pending
        ),
    )
    committed: list[Decision] = []
    for _ in range(MAX_AUTO_DECISIONS):
        state = current_state(game, turn, match.seed)
        if game.outcome(state) is not None or seat not in game.to_act(state):
            break
        step = decide(game, turn, seat, game.timeout_move(state, seat), match.seed, state)
        turn = step.turn
        committed.extend(step.committed)
    if not committed:
        return False
    now = now or utcnow()
    to_act = sorted(game.to_act(turn.committed))
    values: dict[str, Any] = {
        "state": game.format_position(turn.committed),
        "rng_counter": turn.rng_counter,
        "pending": [
            {"seat": d.seat, "move": str(d.move), "events": [e.to_json() for e in d.events]}
            for d in turn.pending
        ],
        "to_act": to_act,
        "updated_at": now,
    }
    if to_act != list(match.to_act):
        values["turn_started_at"] = now
    outcome = game.outcome(turn.committed)
    if outcome is not None:
        values |= {
            "status": MatchStatus.FINISHED,
            "finished_at": now,
            "result": results.stored(outcome),
            "to_act": [],
        }
    if not await bump_version(db, match, match.version, **values):
        return False
    last_seq = await db.scalar(select(func.max(LoggedMove.seq)).where(LoggedMove.match_id == match.id))
    db.add_all(
        LoggedMove(
            match_id=match.id,
            seq=(last_seq or 0) + i,
            seat=d.seat,
            move=str(d.move),
            events=[e.to_json() for e in d.events],
            created_at=now,
        )
        for i, d in enumerate(committed, start=1)
    )
    if outcome is not None:
        for row in seats:
            row.score = outcome.scores[row.seat]
            row.rank = outcome.ranks[row.seat]
    await db.flush()
    return True


# --- ending a match -----------------------------------------------------------------------


async def finish(
    db: AsyncSession,
    match: Match,
    seats: Sequence[MatchSeat],
    control: MatchControl,
    *,
    ranks: Sequence[int],
    conclusion: str,
    now: datetime | None = None,
) -> bool:
    """End a running match with these ranks (scores 0: the rules did not end it); rated."""
    now = now or utcnow()
    result = results.concluded(ranks, conclusion, control.resigned)
    if not await bump_version(
        db,
        match,
        match.version,
        status=MatchStatus.FINISHED,
        finished_at=now,
        updated_at=now,
        result=result,
        to_act=[],
        pending=[],
    ):
        return False
    for row in seats:
        row.score, row.rank = 0.0, ranks[row.seat]
    control.conclusion = conclusion
    control.draw_offer_by = None
    await db.flush()
    await ratings.rate_match(db, match, seats)
    await notify.record_turn(db, match, seats)
    return True


async def abort(
    db: AsyncSession,
    match: Match,
    seats: Sequence[MatchSeat],
    control: MatchControl,
    *,
    conclusion: str,
    now: datetime | None = None,
) -> bool:
    """Abort a running (or open) match: no result, unrated."""
    now = now or utcnow()
    if not await bump_version(
        db,
        match,
        match.version,
        status=MatchStatus.ABORTED,
        finished_at=now,
        updated_at=now,
        to_act=[],
        pending=[],
    ):
        return False
    control.conclusion = conclusion
    await db.flush()
    await notify.record_turn(db, match, seats)
    return True


async def publish(match: Match, seats: Sequence[MatchSeat], users: set[int] | None = None) -> None:
    """After the commit: nudge the match's viewers and its players' badges (with the public
    version: ``version`` counts another seat's pending decisions too)."""
    await live.publish_match(match.id, match.committed_version)
    await notify.nudge({s.user_id for s in seats if s.user_id is not None} | (users or set()))


# --- resign, draw, vote -----------------------------------------------------------------


@use_case
async def check_resign(db: AsyncSession, *, match_id: int, user_id: int) -> MatchSummary:
    """The match the user may resign from (what ``resign`` would refuse, raised the same way)."""
    match, seats, seat = await running_seat(db, match_id, user_id)
    control = await db.get(MatchControl, match_id, populate_existing=True)
    if control is not None and seat in control.resigned:
        raise Conflict("you have resigned already")
    return summary(match, seats, await user_names(db, seats), user_id)


@use_case
async def resign(db: AsyncSession, *, match_id: int, user_id: int) -> ClockOut:
    """Concede. With one opponent left the match ends (you last); otherwise the server plays
    your remaining turns with the game's ``timeout_move`` and you rank last."""
    match, seats, seat = await running_seat(db, match_id, user_id, lock=True)
    control = await control_of(db, match_id)
    if seat in control.resigned:
        raise Conflict("you have resigned already")
    resigned = [*control.resigned, seat]
    remaining = [s.seat for s in seats if s.seat not in resigned]
    if len(remaining) == 1:
        # Later resignations rank better than earlier ones; the one left wins.
        ranks = [0] * len(seats)
        ranks[remaining[0]] = 1
        for place, s in enumerate(reversed(resigned), start=2):
            ranks[s] = place
        control.resigned = resigned
        if not await finish(db, match, seats, control, ranks=ranks, conclusion="resigned"):
            await db.rollback()
            raise Conflict(_CHANGED)
    else:
        control.resigned = resigned
        if seat in match.to_act and not await play_for(db, match, seats, seat):
            await db.rollback()
            raise Conflict(_CHANGED)
        if match.status == MatchStatus.FINISHED:
            await _rank_resigned_last(db, match, seats, resigned)
            await ratings.rate_match(db, match, seats)
        if not await bump_version(db, match, match.version, updated_at=utcnow()):
            await db.rollback()
            raise Conflict(_CHANGED)
    await notify.clear_turn(db, user_id, match_id)
    users = await notify.record_turn(db, match, seats)
    await db.commit()
    await publish(match, seats, users)
    if match.status == MatchStatus.FINISHED:
        from app.services.tournaments import hooks  # tournaments build on this module

        await hooks.match_ended(db, match_id)
    return await get_clock(db, match_id=match_id)


@use_case
async def offer_draw(db: AsyncSession, *, match_id: int, user_id: int) -> ClockOut:
    """Offer a draw (two-player games); the opponent accepts or declines."""
    match, seats, seat = await running_seat(db, match_id, user_id, lock=True)
    if len(seats) != 2:
        raise Conflict("a draw can be offered in two-player games only")
    control = await control_of(db, match_id)
    _refuse_resigned(control, seat)
    if control.draw_offer_by is not None:
        raise Conflict("a draw is on offer already")
    control.draw_offer_by = seat
    if not await bump_version(db, match, match.version, updated_at=utcnow()):
        await db.rollback()
        raise Conflict(_CHANGED)
    opponent = next(s.user_id for s in seats if s.seat != seat)
    users = await notify.record(db, [opponent] if opponent else [], match_id, notify.DRAW_OFFERED, utcnow())
    await db.commit()
    await publish(match, seats, users)
    return await get_clock(db, match_id=match_id)


@use_case
async def answer_draw(db: AsyncSession, *, match_id: int, user_id: int, accept: bool) -> ClockOut:
    """Accept (the match ends drawn: both rank first) or decline the opponent's offer;
    the one who offered may withdraw it (``accept=False``)."""
    match, seats, seat = await running_seat(db, match_id, user_id, lock=True)
    control = await control_of(db, match_id)
    _refuse_resigned(control, seat)
    if control.draw_offer_by is None:
        raise Conflict("no draw is on offer")
    if accept and control.draw_offer_by == seat:
        raise Conflict("your opponent has to accept your offer")
    if accept:
        done = await finish(db, match, seats, control, ranks=[1, 1], conclusion="draw")
    else:
        control.draw_offer_by = None
        done = await bump_version(db, match, match.version, updated_at=utcnow())
    if not done:
        await db.rollback()
        raise Conflict(_CHANGED)
    await db.commit()
    await publish(match, seats)
    return await get_clock(db, match_id=match_id)


@use_case
async def vote_end(db: AsyncSession, *, match_id: int, user_id: int) -> ClockOut:
    """Vote to end a match whose seats to act ran out of time (the vote policy).

    When every other player has voted, the match ends: the late seats rank last, the others
    share first place.
    """
    match, seats, seat = await running_seat(db, match_id, user_id, lock=True)
    control = await control_of(db, match_id)
    _refuse_resigned(control, seat)
    if control.policy != TimeoutPolicy.VOTE or not control.late or control.late_for != match.turn_started_at:
        raise Conflict("nobody is out of time in this match")
    if seat in control.late:
        raise Forbidden("you are the one out of time: play your turn instead")
    voters = [s.seat for s in seats if s.seat not in control.late and s.seat not in control.resigned]
    votes = sorted({*control.votes, seat})
    control.votes = votes
    if set(voters) <= set(votes):
        late = set(control.late)
        ranks = [len(seats) - len(late) + 1 if s.seat in late else 1 for s in seats]
        done = await finish(db, match, seats, control, ranks=ranks, conclusion="vote")
    else:
        done = await bump_version(db, match, match.version, updated_at=utcnow())
    if not done:
        await db.rollback()
        raise Conflict(_CHANGED)
    await db.commit()
    await publish(match, seats)
    return await get_clock(db, match_id=match_id)


@use_case
async def rematch(
    db: AsyncSession, *, match_id: int, user_id: int, limits: Limits = Limits()
) -> MatchSummary:
    """Offer the same players a new match with the same options and time control.

    The one who asks sits down, the others are invited; asking again returns the same rematch.
    """
    match = await load_match(db, match_id)
    seats = (await load_seats(db, [match_id]))[match_id]
    if seat_of(seats, user_id) is None:
        raise Forbidden("only the players of this match can ask for a rematch")
    if match.status not in (MatchStatus.FINISHED, MatchStatus.ABORTED):
        raise Conflict("a rematch is offered once the match is over")
    control = await control_of(db, match_id)
    if control.rematch_id is not None:
        return await lobby.get_summary(db, match_id=control.rematch_id, viewer_id=user_id)
    days, policy = control.days_per_move, control.policy
    names = await user_names(db, seats)
    others = [s.user_id for s in seats if s.user_id is not None and s.user_id != user_id]
    bot_rows = await db.execute(select(User.id, User.bot_level).where(User.id.in_(others)))
    levels = {user: level for user, level in bot_rows.tuples()}
    # People are invited again; bots are not invited but seated (the table's first bot's level).
    bots = next((levels[u] for u in others if levels.get(u)), None)
    await db.commit()
    new = await lobby.create_match(
        db,
        creator_id=user_id,
        game=match.game,
        seats=match.players,
        options=dict(match.options),
        invite=[names[u] for u in others if not levels.get(u)],
        fixed_order=False,
        bots=bots,
        limits=limits,
    )
    # lobby.create_match commits on its own: the link and the clock follow in a second step,
    # a versioned change of the new table like any other (the clock's, ``clocks``).
    new_match = await lock_match(db, new.id)
    if not await bump_version(db, new_match, new_match.version, updated_at=utcnow()):
        raise Conflict(_CHANGED)  # cannot happen under the lock; rolled back with the session
    new_control = await control_of(db, new.id)
    new_control.days_per_move, new_control.policy, new_control.rematch_of = days, policy, match_id
    claimed = await db.execute(
        update(MatchControl)
        .where(MatchControl.match_id == match_id, MatchControl.rematch_id.is_(None))
        .values(rematch_id=new.id)
    )
    if getattr(claimed, "rowcount", 0) != 1:
        # Another player asked at the same moment: theirs stands, ours is called off.
        await db.rollback()
        await lobby.cancel_match(db, match_id=new.id, user_id=user_id)
        other = await db.scalar(select(MatchControl.rematch_id).where(MatchControl.match_id == match_id))
        assert other is not None
        return await lobby.get_summary(db, match_id=other, viewer_id=user_id)
    invited = list(await db.scalars(select(MatchSeat.reserved_for).where(MatchSeat.match_id == new.id)))
    users = await notify.record(
        db, [u for u in invited if u is not None], new.id, notify.INVITED, new.created_at
    )
    await db.commit()
    await notify.nudge(users | {s.user_id for s in seats if s.user_id is not None})
    await live.publish_match(match_id, match.committed_version)
    return new


# --- helpers ------------------------------------------------------------------------------


async def running_seat(
    db: AsyncSession, match_id: int, user_id: int, *, lock: bool = False
) -> tuple[Match, list[MatchSeat], Seat]:
    """The running match, its seats and the user's seat (Forbidden, Conflict otherwise).

    ``lock``: for a change, the match row is locked first (``lock_match``).
    """
    match = await (lock_match(db, match_id) if lock else load_match(db, match_id))
    seats = (await load_seats(db, [match_id]))[match_id]
    seat = seat_of(seats, user_id)
    if seat is None:
        raise Forbidden("you do not play in this match")
    if match.status != MatchStatus.ACTIVE:
        raise Conflict("this match is not running")
    return match, seats, seat


def _refuse_resigned(control: MatchControl, seat: Seat) -> None:
    if seat in control.resigned:
        raise Conflict(RESIGNED)


async def _rank_resigned_last(
    db: AsyncSession, match: Match, seats: Sequence[MatchSeat], resigned: Sequence[int]
) -> None:
    """Move resigned seats behind everybody else (later resignations rank better)."""
    assert match.result is not None
    ranks = resigned_last([int(r) for r in match.result["ranks"]], resigned)
    result = {**match.result, "ranks": ranks, "resigned": list(resigned)}
    await db.execute(
        update(Match)
        .where(Match.id == match.id)
        .values(result=result)
        .execution_options(synchronize_session=False)
    )
    set_committed_value(match, "result", result)
    for row in seats:
        row.rank = ranks[row.seat]
    await db.flush()
