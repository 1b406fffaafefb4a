"""The lobby: games on offer, creating, joining, leaving and cancelling matches, match lists."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import Select, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from app.db.async_play import TimeoutPolicy, UserSettings
from app.db.models import Match, MatchSeat, MatchStatus, User
from app.db.types import utcnow
from app.engine.protocol import IllegalMove
from app.engine.registry import UnknownGame, all_games, get_game
from app.engine.rng import Rng, new_seed
from app.services import bot_turns, friends, live, names, notify, throttle
from app.services._db import use_case
from app.services._rows import (
    bump_version,
    has_control_characters,
    is_member,
    is_token,
    load_match,
    load_seats,
    seat_of,
    summary,
    user_names,
)
from app.services.errors import Conflict, Forbidden, InvalidInput, NotFound
from app.services.limits import (
    TOO_MANY_BOT_MATCHES,
    TOO_MANY_INVITATIONS,
    TOO_MANY_TABLES,
    Limits,
    invitations_key,
    tables_key,
)
from app.services.schemas import GameOut, MatchSummary, OptionOut

MatchOrder = Literal["oldest", "recent"]
FINISHED_PAGE = 50
OPEN_PAGE = 20
"""Open tables per lobby page (newest first; further pages on request)."""
MAX_PAGE = 10_000
_CHANGED = "the match changed at the same moment: please try again"


def list_games(locale: str = "en") -> list[GameOut]:
    """Every registered game with its player counts and options."""
    return [
        GameOut(
            slug=game.slug,
            title=game.info.title.get(locale) or game.info.title.get("en") or game.slug,
            titles=dict(game.info.title),
            min_players=game.info.min_players,
            max_players=game.info.max_players,
            options=[
                OptionOut(
                    key=o.key,
                    label=o.label.get(locale) or o.label.get("en") or o.key,
                    labels=dict(o.label),
                    choices=list(o.choices),
                    default=o.default,
                )
                for o in game.info.options
            ],
        )
        for game in all_games()
    ]


@use_case
async def create_match(
    db: AsyncSession,
    *,
    creator_id: int,
    game: str,
    seats: int,
    options: Mapping[str, Any],
    invite: Sequence[str],
    fixed_order: bool,
    bots: str | None = None,
    limits: Limits = Limits(),
    days_per_move: int | None = None,
    policy: str = TimeoutPolicy.TIMEOUT_MOVE,
) -> MatchSummary:
    """Open a table: the creator sits, invited users get reserved seats, the rest stay open
    (or, with ``bots`` a level, go to computer opponents: "play against the computer").

    Within ``limits``: a table that would be one open table or bot match too many, or whose
    invitations exceed the creator's quota, is refused (429) and nothing is created.

    The clock (``days_per_move``, ``policy``; see ``clocks``) is set before the match can start,
    so a table that starts at once (bots) has the clock it was created with."""
    try:
        info = get_game(game).info
    except UnknownGame as error:
        raise InvalidInput(str(error)) from None
    if not info.min_players <= seats <= info.max_players:
        raise InvalidInput(f"{game} is for {info.min_players} to {info.max_players} players")
    try:
        chosen = info.normalise_options(options)
    except IllegalMove as error:
        raise InvalidInput(error.reason) from None
    invited = await _invited_users(db, invite, creator_id=creator_id, free_seats=seats - 1)
    bot_ids = await _bot_users(db, bots, seats - 1 - len(invited)) if bots else []
    now = utcnow()
    match = Match(
        game=game,
        ruleset=info.ruleset,
        options=chosen,
        players=seats,
        status=MatchStatus.OPEN,
        version=0,
        committed_version=0,
        rng_counter=0,
        pending=[],
        to_act=[],
        created_by=creator_id,
        invite_token=secrets.token_urlsafe(16),
        fixed_order=fixed_order,
        created_at=now,
        updated_at=now,
    )
    db.add(match)
    await db.flush()
    if days_per_move is not None:
        from app.services.conclusions import control_of  # conclusions builds on this module

        control = await control_of(db, match.id)
        control.days_per_move, control.policy = days_per_move, policy
    rows = [MatchSeat(match_id=match.id, seat=0, user_id=creator_id)]
    rows += [MatchSeat(match_id=match.id, seat=i, reserved_for=u.id) for i, u in enumerate(invited, start=1)]
    rows += [MatchSeat(match_id=match.id, seat=i, user_id=b) for i, b in enumerate(bot_ids, start=len(rows))]
    rows += [MatchSeat(match_id=match.id, seat=i) for i in range(len(rows), seats)]
    db.add_all(rows)
    await db.flush()
    started = all(r.user_id is not None for r in rows)
    if not started:
        key, counted = tables_key(creator_id), _open_tables(creator_id)
        await throttle.at_most(db, key, counted, limits.open_tables, TOO_MANY_TABLES)
    if bot_ids:
        await _check_bot_matches(db, creator_id, limits)
    if invited:
        key = invitations_key(creator_id)
        await throttle.spend(db, key, limits.invitations, TOO_MANY_INVITATIONS, amount=len(invited))
    await notify.record(db, [u.id for u in invited], match.id, notify.INVITED, now)
    if started:
        await _start(db, match, rows, seen=match.version)
    await db.commit()
    out = summary(match, rows, await user_names(db, rows), creator_id)
    for user in invited:
        await live.publish_user(user.id)
    if started:
        bot_turns.after_start(match.id)
    return out


@use_case
async def add_bots(
    db: AsyncSession, *, match_id: int, user_id: int, level: str, limits: Limits = Limits()
) -> MatchSummary:
    """Give every open seat of a waiting table to a bot of ``level`` (its creator only); the
    match starts when that fills the table (seats reserved for invited players stay theirs)."""
    match = await load_match(db, match_id)
    if match.created_by != user_id:
        raise Forbidden("only the creator can seat computer opponents")
    if match.status != MatchStatus.OPEN:
        raise Conflict("this match is not open for players any more")
    seats = (await load_seats(db, [match_id]))[match_id]
    free = [s for s in seats if s.user_id is None and s.reserved_for is None]
    if not free:
        raise Conflict("there is no open seat at this table")
    taken = {s.user_id for s in seats}
    bot_ids = [b for b in await _bot_users(db, level, len(free) + len(taken)) if b not in taken][: len(free)]
    if not await bump_version(db, match, match.version, updated_at=utcnow()):
        await db.rollback()
        raise Conflict(_CHANGED)
    for seat, bot_id in zip(free, bot_ids, strict=True):
        seat.user_id = bot_id
    await db.flush()
    await _check_bot_matches(db, user_id, limits)
    await _seated(db, match, seats)
    return summary(match, seats, await user_names(db, seats), user_id)


def _open_tables(user_id: int) -> Select[tuple[int]]:
    return select(func.count(Match.id)).where(Match.created_by == user_id, Match.status == MatchStatus.OPEN)


async def _check_bot_matches(db: AsyncSession, user_id: int, limits: Limits) -> None:
    """Refuse (429) one open or running match against the computer too many for ``user_id``."""
    with_bots = (
        select(MatchSeat.match_id).join(User, User.id == MatchSeat.user_id).where(User.bot_level.is_not(None))
    )
    counted = select(func.count(Match.id)).where(
        Match.created_by == user_id,
        Match.status.in_([MatchStatus.OPEN, MatchStatus.ACTIVE]),
        Match.id.in_(with_bots),
    )
    await throttle.at_most(db, tables_key(user_id), counted, limits.bot_matches, TOO_MANY_BOT_MATCHES)


async def _bot_users(db: AsyncSession, level: str, count: int) -> list[int]:
    """``count`` distinct bot users of ``level`` (migration 0005 made a few of each)."""
    if level not in bot_turns.LEVELS:
        raise InvalidInput(f"a computer opponent is {', '.join(bot_turns.LEVELS)}")
    found = list(
        await db.scalars(select(User.id).where(User.bot_level == level).order_by(User.id).limit(count))
    )
    if len(found) < count:
        raise InvalidInput(f"a table has room for at most {len(found)} computer opponents of one level")
    return found


@use_case
async def join_match(
    db: AsyncSession, *, match_id: int, user_id: int, invite_token: str | None
) -> MatchSummary:
    """Take the seat reserved for you, or an open one; the match starts when every seat is taken."""
    match = await load_match(db, match_id)
    if invite_token is not None and not secrets.compare_digest(
        invite_token.encode(), match.invite_token.encode()
    ):
        raise Forbidden("this invitation link is not valid")
    if match.status != MatchStatus.OPEN:
        raise Conflict("this match is not open for players any more")
    seats = (await load_seats(db, [match_id]))[match_id]
    if seat_of(seats, user_id) is not None:
        raise Conflict("you already sit at this table")
    free = next((s for s in seats if s.user_id is None and s.reserved_for == user_id), None)
    free = free or next((s for s in seats if s.user_id is None and s.reserved_for is None), None)
    if free is None:
        raise Conflict("there is no free seat at this table")
    seen = match.version
    if not await bump_version(db, match, seen, updated_at=utcnow()):
        await db.rollback()
        raise Conflict(_CHANGED)
    free.user_id = user_id
    free.reserved_for = None
    await notify.clear_invitation(db, user_id, match_id)
    await _seated(db, match, seats)
    return summary(match, seats, await user_names(db, seats), user_id)


@use_case
async def check_leave(db: AsyncSession, *, match_id: int, user_id: int) -> MatchSummary:
    """The table the user may leave (what ``leave_match`` would refuse, raised the same way)."""
    match, seats = await _leavable(db, match_id, user_id)
    return summary(match, seats, await user_names(db, seats), user_id)


@use_case
async def leave_match(db: AsyncSession, *, match_id: int, user_id: int) -> None:
    """Give up your seat (or decline an invitation) before the match starts."""
    match, seats = await _leavable(db, match_id, user_id)
    if not await bump_version(db, match, match.version, updated_at=utcnow()):
        await db.rollback()
        raise Conflict(_CHANGED)
    for seat in seats:
        if user_id in (seat.user_id, seat.reserved_for):
            seat.user_id = seat.reserved_for = None
    await notify.clear_invitation(db, user_id, match_id)
    await db.commit()
    await _nudge_members(match, seats, also=(user_id,))


@use_case
async def check_cancel(db: AsyncSession, *, match_id: int, user_id: int) -> MatchSummary:
    """The table the user may cancel (what ``cancel_match`` would refuse, raised the same way)."""
    match, seats = await _cancellable(db, match_id, user_id)
    return summary(match, seats, await user_names(db, seats), user_id)


@use_case
async def cancel_match(db: AsyncSession, *, match_id: int, user_id: int) -> None:
    """Call a match off before it starts (its creator only)."""
    match, seats = await _cancellable(db, match_id, user_id)
    if not await bump_version(db, match, match.version, status=MatchStatus.CANCELLED, updated_at=utcnow()):
        await db.rollback()
        raise Conflict(_CHANGED)
    await db.commit()
    await _nudge_members(match, seats)


@use_case
async def invite_player(
    db: AsyncSession, *, match_id: int, user_id: int, name: str, limits: Limits = Limits()
) -> MatchSummary:
    """Reserve a free seat of an open table for the player called ``name`` (its creator only)."""
    match = await load_match(db, match_id)
    if match.created_by != user_id:
        raise Forbidden("only the creator can invite to this table")
    if match.status != MatchStatus.OPEN:
        raise Conflict("this match is not open for players any more")
    seats = (await load_seats(db, [match_id]))[match_id]
    free = [s for s in seats if s.user_id is None and s.reserved_for is None]
    [invited] = await _invited_users(db, [name], creator_id=user_id, free_seats=len(free))
    if is_member(seats, invited.id):
        raise Conflict(f"{invited.name} sits at this table already")
    await throttle.spend(db, invitations_key(user_id), limits.invitations, TOO_MANY_INVITATIONS)
    if not await bump_version(db, match, match.version, updated_at=utcnow()):
        await db.rollback()
        raise Conflict(_CHANGED)
    free[0].reserved_for = invited.id
    now = utcnow()
    await notify.record(db, [invited.id], match.id, notify.INVITED, now)
    await db.commit()
    await _nudge_members(match, seats)
    return summary(match, seats, await user_names(db, seats), user_id)


@use_case
async def invite_suggestions(
    db: AsyncSession, *, user_id: int, prefix: str = "", limit: int = 10
) -> list[str]:
    """Names to invite: people the user has played with first (most shared matches), then the
    others whose name starts with ``prefix``; never the user, never a disabled account."""
    key = prefix.strip().casefold()
    if has_control_characters(key) or len(key) > 40:
        return []
    mine = select(MatchSeat.match_id).where(MatchSeat.user_id == user_id)
    shared = func.count(MatchSeat.match_id)
    disabled = select(UserSettings.user_id).where(UserSettings.disabled.is_(True))
    partners = (
        select(User.name)
        .join(MatchSeat, MatchSeat.user_id == User.id)
        .where(
            MatchSeat.match_id.in_(mine),
            User.id != user_id,
            User.id.not_in(disabled),
            User.bot_level.is_(None),
            User.name_key.startswith(key, autoescape=True),
        )
        .group_by(User.id, User.name)
        .order_by(shared.desc(), User.name_key)
        .limit(limit)
    )
    names = list(await db.scalars(partners))
    if len(names) < limit:
        others = (
            select(User.name)
            .where(
                User.id != user_id,
                User.id.not_in(disabled),
                User.bot_level.is_(None),
                User.name.not_in(names),
                User.name_key.startswith(key, autoescape=True),
            )
            .order_by(User.name_key)
            .limit(limit - len(names))
        )
        names += list(await db.scalars(others))
    return names


@use_case
async def get_summary(db: AsyncSession, *, match_id: int, viewer_id: int | None) -> MatchSummary:
    match = await load_match(db, match_id)
    seats = (await load_seats(db, [match_id]))[match_id]
    return summary(match, seats, await user_names(db, seats), viewer_id)


@use_case
async def match_for_invite(db: AsyncSession, *, invite_token: str, viewer_id: int | None) -> MatchSummary:
    """The match an invitation link points to."""
    match_id = None
    if is_token(invite_token):
        match_id = await db.scalar(select(Match.id).where(Match.invite_token == invite_token))
    if match_id is None:
        raise NotFound("this invitation link is not valid")
    match = await load_match(db, match_id)
    seats = (await load_seats(db, [match_id]))[match_id]
    out = summary(match, seats, await user_names(db, seats), viewer_id)
    # Whoever holds the link may see it again (it is what brought them here).
    return out.model_copy(update={"invite_token": match.invite_token})


@dataclass(frozen=True, slots=True)
class OpenTables:
    """One lobby page of open tables (newest first): ``page`` counts from 1; ``more``: a
    next page has older ones."""

    matches: list[MatchSummary]
    page: int
    more: bool


@use_case
async def open_matches(db: AsyncSession, *, viewer_id: int | None, page: int = 1) -> OpenTables:
    """Open tables with a seat the viewer could take (newest first), and those they sit at,
    ``OPEN_PAGE`` a page."""
    if not 1 <= page <= MAX_PAGE:
        raise InvalidInput(f"a page is a number from 1 to {MAX_PAGE}")
    free_seat = select(MatchSeat.match_id).where(
        MatchSeat.user_id.is_(None), MatchSeat.reserved_for.is_(None)
    )
    shown: ColumnElement[bool] = Match.id.in_(free_seat)
    if viewer_id is not None:
        mine = select(MatchSeat.match_id).where(
            or_(MatchSeat.user_id == viewer_id, MatchSeat.reserved_for == viewer_id)
        )
        shown = or_(shown, Match.id.in_(mine))
    newest = select(Match).where(Match.status == MatchStatus.OPEN, shown)
    newest = newest.order_by(Match.created_at.desc(), Match.id.desc())
    summaries, more = await _page_of(db, newest, page, OPEN_PAGE, viewer_id)
    return OpenTables(summaries, page, more)


@dataclass(frozen=True, slots=True)
class RunningMatches:
    """The user's unfinished matches: ``your_turn`` (by waiting time), ``waiting`` (running
    matches where others are to act, open tables the user sits at, invitations)."""

    your_turn: list[MatchSummary]
    waiting: list[MatchSummary]


@dataclass(frozen=True, slots=True)
class FinishedMatches:
    """One page of the user's ended matches (newest first): ``page`` counts from 1; ``more``:
    a next page has older ones."""

    matches: list[MatchSummary]
    page: int
    more: bool


def _member(user_id: int) -> Select[tuple[int]]:
    return select(MatchSeat.match_id).where(
        or_(MatchSeat.user_id == user_id, MatchSeat.reserved_for == user_id)
    )


@use_case
async def running_matches(db: AsyncSession, *, user_id: int, order: MatchOrder = "oldest") -> RunningMatches:
    """The user's open and running matches; ``your_turn`` oldest waiting first, or most recent
    first with ``order="recent"``. Not paged: the limits on open tables and bot matches and
    the time a running match takes keep it short."""
    if order not in ("oldest", "recent"):
        raise InvalidInput("order is 'oldest' or 'recent'")
    running = list(
        await db.scalars(
            select(Match).where(
                Match.id.in_(_member(user_id)), Match.status.in_([MatchStatus.OPEN, MatchStatus.ACTIVE])
            )
        )
    )
    seats = await load_seats(db, [m.id for m in running])
    names = await user_names(db, [s for rows in seats.values() for s in rows])
    summaries = [summary(m, seats[m.id], names, user_id) for m in running]
    your_turn = sorted(
        (s for s in summaries if s.your_turn),
        key=lambda s: (s.waiting_since or s.updated_at, s.id),
        reverse=order == "recent",
    )
    waiting = sorted((s for s in summaries if not s.your_turn), key=lambda s: s.updated_at, reverse=True)
    return RunningMatches(your_turn, waiting)


@use_case
async def finished_matches(db: AsyncSession, *, user_id: int, page: int = 1) -> FinishedMatches:
    """The user's finished and aborted matches, newest first, ``FINISHED_PAGE`` a page."""
    if not 1 <= page <= MAX_PAGE:
        raise InvalidInput(f"a page is a number from 1 to {MAX_PAGE}")
    ended = Match.status.in_([MatchStatus.FINISHED, MatchStatus.ABORTED])
    newest = select(Match).where(Match.id.in_(_member(user_id)), ended)
    newest = newest.order_by(Match.finished_at.desc(), Match.id.desc())
    summaries, more = await _page_of(db, newest, page, FINISHED_PAGE, user_id)
    return FinishedMatches(summaries, page, more)


async def _page_of(
    db: AsyncSession, ordered: Select[tuple[Match]], page: int, size: int, viewer_id: int | None
) -> tuple[list[MatchSummary], bool]:
    """Page ``page`` (from 1) of ``size`` matches of the ordered query, as the viewer sees
    them, and whether a further page has more."""
    matches = list(await db.scalars(ordered.offset((page - 1) * size).limit(size + 1)))
    more, matches = len(matches) > size, matches[:size]
    seats = await load_seats(db, [m.id for m in matches])
    names = await user_names(db, [s for rows in seats.values() for s in rows])
    return [summary(m, seats[m.id], names, viewer_id) for m in matches], more


async def _leavable(db: AsyncSession, match_id: int, user_id: int) -> tuple[Match, list[MatchSeat]]:
    match = await load_match(db, match_id)
    if match.status != MatchStatus.OPEN:
        raise Conflict("a match that has started cannot be left")
    seats = (await load_seats(db, [match_id]))[match_id]
    if not is_member(seats, user_id):
        raise Conflict("you do not sit at this table")
    if match.created_by == user_id:
        raise Conflict("the creator cannot leave: cancel the match instead")
    return match, seats


async def _cancellable(db: AsyncSession, match_id: int, user_id: int) -> tuple[Match, list[MatchSeat]]:
    match = await load_match(db, match_id)
    if match.created_by != user_id:
        raise Forbidden("only the creator can cancel this match")
    if match.status != MatchStatus.OPEN:
        raise Conflict("a match that has started cannot be cancelled")
    return match, (await load_seats(db, [match_id]))[match_id]


async def _invited_users(
    db: AsyncSession, invite: Sequence[str], *, creator_id: int, free_seats: int
) -> list[User]:
    for name in invite:
        if has_control_characters(name):
            raise InvalidInput(f"there is no player called {name.strip()!r}")
    keys = [names.key(name) for name in invite if name.strip()]
    if len(set(keys)) != len(keys):
        raise InvalidInput("each player can be invited once")
    if len(keys) > free_seats:
        raise InvalidInput(f"this table has room for {free_seats} invited players")
    if not keys:
        return []
    people = select(User).where(User.name_key.in_(keys), User.bot_level.is_(None))
    found = {u.name_key: u for u in await db.scalars(people)}
    missing = [name.strip() for name, key in zip(invite, keys, strict=False) if key not in found]
    if missing:
        raise InvalidInput(f"there is no player called {missing[0]!r}")
    users = [found[key] for key in keys]
    if any(u.id == creator_id for u in users):
        raise InvalidInput("you sit at your own table already: do not invite yourself")
    refusing = set(await friends.who_blocked(db, [u.id for u in users], creator_id))
    if refusing:
        name = next(u.name for u in users if u.id in refusing)
        raise Forbidden(f"{name} does not accept invitations from you")
    return users


async def _seated(db: AsyncSession, match: Match, seats: list[MatchSeat]) -> None:
    """Seats were taken (the version bumped): start the match if the table is full, commit, tell
    the members, and let a bot that moves first begin."""
    await db.flush()
    started = all(s.user_id is not None for s in seats)
    if started:
        await _start(db, match, seats, seen=match.version)
    await db.commit()
    await _nudge_members(match, seats)
    if started:
        bot_turns.after_start(match.id)


async def start_full_table(db: AsyncSession, match: Match, seats: list[MatchSeat]) -> None:
    """Start a table the server seated itself (a tournament's), in the caller's transaction."""
    await _start(db, match, seats, seen=match.version)


async def _start(db: AsyncSession, match: Match, seats: list[MatchSeat], *, seen: int) -> None:
    """Every seat is taken: shuffle the seat order (unless fixed), seed, set up, go."""
    players = [s.user_id for s in seats]
    if not match.fixed_order:
        # Seat order is a fairness matter, not part of the replayable game: the system's
        # CSPRNG decides it, not the match seed.
        secrets.SystemRandom().shuffle(players)
    for seat, user_id in zip(seats, players, strict=True):
        seat.user_id = user_id
    game = get_game(match.game)
    seed = new_seed()
    rng = Rng(seed)
    state = game.setup(match.players, match.options, rng)
    now = utcnow()
    started = await bump_version(
        db,
        match,
        seen,
        status=MatchStatus.ACTIVE,
        seed=seed,
        state=game.format_position(state),
        rng_counter=rng.counter,
        pending=[],
        to_act=sorted(game.to_act(state)),
        started_at=now,
        updated_at=now,
        turn_started_at=now,
    )
    if not started:
        await db.rollback()
        raise Conflict(_CHANGED)
    await db.flush()
    await notify.record_turn(db, match, seats)


async def _nudge_members(match: Match, seats: Sequence[MatchSeat], also: Sequence[int] = ()) -> None:
    await live.publish_match(match.id, match.committed_version)
    users = {i for s in seats for i in (s.user_id, s.reserved_for) if i is not None} | set(also)
    for user_id in sorted(users):
        await live.publish_user(user_id)
