"""Tournament use cases: create, sign up and leave, start, withdraw, view, list."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Match, MatchStatus, User
from app.db.tournaments import (
    Tournament,
    TournamentInvite,
    TournamentMatch,
    TournamentPlayer,
    TournamentPolicy,
    TournamentStatus,
)
from app.db.types import utcnow
from app.engine.protocol import IllegalMove
from app.engine.registry import UnknownGame, get_game
from app.services import conclusions
from app.services._db import use_case
from app.services._rows import game_title, has_control_characters
from app.services.errors import Conflict, Forbidden, InvalidInput, NotFound, RateLimited
from app.services.tournaments import jobs, runner
from app.services.tournaments.schemas import (
    RoundOut,
    StandingOut,
    TableOut,
    TournamentOut,
    TournamentPage,
    TournamentPlayerOut,
    TournamentSummary,
)

FORMATS = ("round_robin", "swiss", "knockout")
TIMEOUT_ACTIONS = ("forfeit", "withdraw")
MAX_PLACES = 256
MAX_ROUNDS = 20
MAX_SIGNUP_DAYS = 60
MAX_FINAL_PER_GROUP = 8
OPEN_PER_CREATOR = 5
INVITES_PER_PLACE = 2
"""Invitations by name a tournament may send per place."""
"""Tournaments one user may have signing up or running at once."""
PAGE = 20
MAX_PAGE = 10_000
MAX_ID = 2**31 - 1
LIST_STATES = ("signup", "running", "finished")
ADMINS_ONLY = "on this server only administrators create tournaments"


async def may_create(db: AsyncSession, *, user_id: int | None) -> bool:
    """Whether the user may create a tournament (the administrator's setting)."""
    if user_id is None:
        return False
    policy = await db.get(TournamentPolicy, 1, populate_existing=True)
    if policy is None or not policy.admins_only:
        return True
    return bool(await db.scalar(select(User.is_admin).where(User.id == user_id)))


@use_case
async def admins_only(db: AsyncSession) -> bool:
    policy = await db.get(TournamentPolicy, 1, populate_existing=True)
    return policy is not None and policy.admins_only


@use_case
async def set_admins_only(db: AsyncSession, *, admin_id: int, admins_only: bool) -> None:
    """The administrator's setting: anyone creates tournaments, or only administrators."""
    if not await db.scalar(select(User.is_admin).where(User.id == admin_id)):
        raise Forbidden("only an administrator may do this")
    policy = await db.get(TournamentPolicy, 1, with_for_update=True)
    if policy is None:
        db.add(TournamentPolicy(id=1, admins_only=admins_only))
    else:
        policy.admins_only = admins_only
    try:
        await db.commit()
    except IntegrityError:  # another administrator made the row at the same moment
        await db.rollback()
        raise Conflict("this changed at the same moment: please try again") from None


@use_case
async def create_tournament(
    db: AsyncSession,
    *,
    creator_id: int,
    name: str,
    game: str,
    options: Mapping[str, Any],
    table_size: int,
    format: str,
    places: int,
    rounds: int | None = None,
    advance: int = 1,
    group_size: int | None = None,
    final_per_group: int | None = None,
    signup_until: datetime | None = None,
    start_when_full: bool = True,
    days_per_move: int = 3,
    timeout_action: str = "forfeit",
    public: bool = True,
    open_per_creator: int = OPEN_PER_CREATOR,
) -> int:
    """A new tournament in sign-up (its creator is not signed up: they may organise only)."""
    if not await may_create(db, user_id=creator_id):
        raise Forbidden(ADMINS_ONLY)
    name = name.strip()
    if not 1 <= len(name) <= 80 or has_control_characters(name):
        raise InvalidInput("a tournament's name has 1 to 80 characters")
    try:
        info = get_game(game).info
    except UnknownGame as error:
        raise InvalidInput(str(error)) from None
    try:
        chosen = info.normalise_options(options)
    except IllegalMove as error:
        raise InvalidInput(error.reason) from None
    if not max(2, info.min_players) <= table_size <= info.max_players:
        raise InvalidInput(f"{game} is played at tables of {max(2, info.min_players)} to {info.max_players}")
    if format not in FORMATS:
        raise InvalidInput(f"the format is one of {', '.join(FORMATS)}")
    if format == "swiss" and table_size != 2:
        raise InvalidInput("a Swiss tournament is for two-player tables")
    if not max(2, table_size) <= places <= MAX_PLACES:
        raise InvalidInput(f"a tournament has {max(2, table_size)} to {MAX_PLACES} places")
    needs_rounds = format == "swiss" or (format == "round_robin" and table_size > 2)
    if needs_rounds:
        if rounds is None or not 1 <= rounds <= MAX_ROUNDS:
            raise InvalidInput(f"choose 1 to {MAX_ROUNDS} rounds")
        if format == "swiss" and rounds >= places:
            raise InvalidInput("a Swiss tournament has fewer rounds than places")
    else:
        rounds = None
    if format == "knockout" and table_size > 2 and not 1 <= advance < table_size:
        raise InvalidInput("from each table 1 to one fewer than the table size go on")
    if group_size is not None and not max(table_size, 2) <= group_size <= 64:
        raise InvalidInput("a group has between the table size and 64 players")
    if format != "round_robin":
        group_size = None
        final_per_group = None
    elif final_per_group is not None:
        if not 1 <= final_per_group <= MAX_FINAL_PER_GROUP:
            raise InvalidInput(f"1 to {MAX_FINAL_PER_GROUP} of each group go on to the final stage")
        if group_size is None or group_size >= places:
            raise InvalidInput("a final stage needs groups: choose a group size below the places")
        if final_per_group >= group_size:
            raise InvalidInput("fewer of each group go on to the final stage than a group holds")
    if days_per_move is None or not 1 <= days_per_move <= 14:
        raise InvalidInput("a time control has 1 to 14 days per move")
    if timeout_action not in TIMEOUT_ACTIONS:
        raise InvalidInput("a late player forfeits the match or is withdrawn from the tournament")
    now = utcnow()
    if signup_until is not None:
        if signup_until.tzinfo is None:
            raise InvalidInput("the sign-up deadline needs a time zone")
        if not now < signup_until <= now + timedelta(days=MAX_SIGNUP_DAYS):
            raise InvalidInput(f"the sign-up deadline is within the next {MAX_SIGNUP_DAYS} days")
    elif not start_when_full:
        raise InvalidInput("choose a sign-up deadline, or start when the places are full")
    open_count = await db.scalar(
        select(func.count(Tournament.id)).where(
            Tournament.created_by == creator_id,
            Tournament.status.in_([TournamentStatus.SIGNUP, TournamentStatus.RUNNING]),
        )
    )
    if (open_count or 0) >= open_per_creator:
        raise RateLimited(f"you run {open_per_creator} tournaments already: let one finish first")
    t = Tournament(
        name=name,
        game=game,
        options=chosen,
        table_size=table_size,
        format=format,
        rounds=rounds,
        places=places,
        group_size=group_size,
        final_per_group=final_per_group,
        advance=advance if format == "knockout" and table_size > 2 else 1,
        signup_until=signup_until,
        start_when_full=start_when_full,
        days_per_move=days_per_move,
        timeout_action=timeout_action,
        public=public,
        invite_token=secrets.token_urlsafe(16),
        created_by=creator_id,
        status=TournamentStatus.SIGNUP,
        current_round=0,
        seed=secrets.token_hex(16),
        plan=[],
        created_at=now,
    )
    db.add(t)
    await db.commit()
    return t.id


@use_case
async def sign_up(
    db: AsyncSession, *, tournament_id: int, user_id: int, invite_token: str | None = None
) -> None:
    """Take a place; the tournament starts when this fills the last one (if so chosen)."""
    t = await _locked(db, tournament_id)
    if t.status != TournamentStatus.SIGNUP:
        raise Conflict("the sign-up of this tournament is over")
    invited = invite_token is not None and secrets.compare_digest(
        invite_token.encode(), t.invite_token.encode()
    )
    if not invited and not t.public and t.created_by != user_id:
        invited = await db.get(TournamentInvite, (t.id, user_id)) is not None
    if not t.public and t.created_by != user_id and not invited:
        raise Forbidden("this tournament is by invitation: use the link its creator sent")
    if await db.scalar(select(User.bot_level).where(User.id == user_id)):
        raise Forbidden("computer players do not sign up for tournaments")
    players = await runner.entrants(db, t.id)
    if any(p.user_id == user_id for p in players):
        raise Conflict("you have signed up already")
    if len(players) >= t.places:
        raise Conflict("every place is taken")
    db.add(TournamentPlayer(tournament_id=t.id, user_id=user_id, joined_at=utcnow()))
    await db.flush()
    users: list[int] = []
    if t.start_when_full and len(players) + 1 == t.places:
        users = await runner.start(db, t)
    await db.commit()
    await runner.nudge(users)


@use_case
async def leave(db: AsyncSession, *, tournament_id: int, user_id: int, name: str | None = None) -> None:
    """Leave before the start; the creator may remove anyone's sign-up (``name``)."""
    t = await _locked(db, tournament_id)
    if t.status != TournamentStatus.SIGNUP:
        raise Conflict("the tournament has started: withdraw from it instead")
    target = user_id
    if name is not None:
        if t.created_by != user_id:
            raise Forbidden("only the creator can remove a sign-up")
        found = await db.scalar(select(User.id).where(User.name == name))
        if found is None:
            raise NotFound(f"there is no player called {name!r}")
        target = found
    row = await db.get(TournamentPlayer, (t.id, target))
    if row is None:
        raise Conflict("not signed up for this tournament")
    await db.delete(row)
    await db.commit()


@use_case
async def invite(db: AsyncSession, *, tournament_id: int, user_id: int, name: str) -> None:
    """The creator invites a player by name (they may then sign up without the link)."""
    t = await _locked(db, tournament_id)
    if t.created_by != user_id:
        raise Forbidden("only the creator can invite to this tournament")
    if t.status != TournamentStatus.SIGNUP:
        raise Conflict("the sign-up of this tournament is over")
    found = await db.scalar(select(User.id).where(User.name == name.strip()))
    if found is None:
        raise NotFound(f"there is no player called {name.strip()!r}")
    count = await db.scalar(select(func.count()).where(TournamentInvite.tournament_id == t.id))
    if (count or 0) >= t.places * INVITES_PER_PLACE:
        raise RateLimited("this tournament has invited enough players")
    if await db.get(TournamentInvite, (t.id, found)) is None:
        db.add(TournamentInvite(tournament_id=t.id, user_id=found))
    await db.commit()
    await runner.nudge([found])


@use_case
async def start_now(db: AsyncSession, *, tournament_id: int, user_id: int) -> None:
    """The creator starts the tournament before its deadline with the players signed up."""
    t = await _locked(db, tournament_id)
    if t.created_by != user_id:
        raise Forbidden("only the creator can start this tournament")
    if t.status != TournamentStatus.SIGNUP:
        raise Conflict("this tournament is not in sign-up")
    await _check_enough(db, t)
    users = await runner.start(db, t)
    await db.commit()
    await runner.nudge(users)


async def start_when_due(db: AsyncSession, *, tournament_id: int, now: datetime) -> bool:
    """The sign-up deadline passed: start, or cancel when too few signed up."""
    t = await runner.lock_tournament(db, tournament_id)
    if t is None or t.status != TournamentStatus.SIGNUP or t.signup_until is None or t.signup_until > now:
        await db.rollback()
        return False
    try:
        await _check_enough(db, t)
    except Conflict:
        t.status, t.finished_at = TournamentStatus.CANCELLED, now
        await db.commit()
        return True
    users = await runner.start(db, t)
    await db.commit()
    await runner.nudge(users)
    return True


async def _check_enough(db: AsyncSession, t: Tournament) -> None:
    count = len(await runner.entrants(db, t.id))
    least = max(2, t.table_size if t.format != "swiss" else 2)
    if t.format == "swiss" and t.rounds is not None:
        least = max(least, t.rounds + 1)
    if count < least:
        raise Conflict(f"this tournament needs at least {least} players to start")


@use_case
async def withdraw(db: AsyncSession, *, tournament_id: int, user_id: int) -> None:
    """Leave a running tournament: no further pairings; a running match of it is resigned."""
    t = await _locked(db, tournament_id)
    if t.status != TournamentStatus.RUNNING:
        raise Conflict("only a running tournament can be withdrawn from")
    row = await db.get(TournamentPlayer, (t.id, user_id), populate_existing=True)
    if row is None:
        raise Conflict("you do not play in this tournament")
    if row.withdrawn_in is not None:
        raise Conflict("you have withdrawn already")
    row.withdrawn_in = t.current_round
    running = list(
        await db.scalars(
            select(Match.id)
            .join(TournamentMatch, TournamentMatch.match_id == Match.id)
            .where(
                TournamentMatch.tournament_id == t.id,
                Match.status == MatchStatus.ACTIVE,
                Match.id.in_(_seat_match_ids(user_id)),
            )
        )
    )
    await db.commit()
    for match_id in running:
        await conclusions.resign(db, match_id=match_id, user_id=user_id)
    jobs.pair_next_round(db, tournament_id)  # a round whose last match that was goes on


def _seat_match_ids(user_id: int) -> Any:
    from app.db.models import MatchSeat

    return select(MatchSeat.match_id).where(MatchSeat.user_id == user_id)


async def _locked(db: AsyncSession, tournament_id: int) -> Tournament:
    if not 1 <= tournament_id <= MAX_ID:
        raise NotFound(f"there is no tournament {tournament_id}")
    t = await runner.lock_tournament(db, tournament_id)
    if t is None:
        await db.rollback()
        raise NotFound(f"there is no tournament {tournament_id}")
    return t


@use_case
async def get_tournament(
    db: AsyncSession, *, tournament_id: int, viewer_id: int | None, locale: str = "en"
) -> TournamentOut:
    if not 1 <= tournament_id <= MAX_ID:
        raise NotFound(f"there is no tournament {tournament_id}")
    t = await db.get(Tournament, tournament_id, populate_existing=True)
    if t is None:
        raise NotFound(f"there is no tournament {tournament_id}")
    players = await runner.entrants(db, t.id)
    tables = await runner.played_tables(db, t)
    ids = {p.user_id for p in players} | {t.created_by} | {u for p in tables for u in p.players}
    names = dict((await db.execute(select(User.id, User.name).where(User.id.in_(ids)))).tuples().all())
    rounds: dict[int, list[TableOut]] = {}
    for p in tables:
        rounds.setdefault(p.round, []).append(
            TableOut(
                players=[names.get(u, "?") for u in p.players],
                match_id=p.match_id,
                status=p.status,
                ranks=p.ranks if p.status == MatchStatus.FINISHED else None,
            )
        )
    invited_ids = list(
        await db.scalars(select(TournamentInvite.user_id).where(TournamentInvite.tournament_id == t.id))
    )
    if invited_ids:
        names.update(
            (await db.execute(select(User.id, User.name).where(User.id.in_(invited_ids)))).tuples().all()
        )
    withdrawn = {p.user_id for p in players if p.withdrawn_in is not None}
    rows = runner.compute_standings(t, tables, players) if t.status != TournamentStatus.SIGNUP else []
    standing_out = [
        StandingOut(
            place=r.place,
            name=names.get(r.player, "?"),
            points=r.points,
            buchholz=r.buchholz,
            sonneborn_berger=r.sonneborn_berger,
            score=r.score,
            games=r.games,
            byes=r.byes,
            withdrawn=r.player in withdrawn,
            reached=r.reached,
        )
        for r in rows
    ]
    finished = t.status == TournamentStatus.FINISHED
    return TournamentOut(
        **_summary(t, len(players), names.get(t.created_by, "?"), locale).model_dump(),
        options=dict(t.options),
        rounds_setting=t.rounds,
        advance=t.advance,
        group_size=t.group_size,
        final_per_group=t.final_per_group,
        group_rounds=runner.group_rounds(t),
        start_when_full=t.start_when_full,
        days_per_move=t.days_per_move,
        timeout_action=t.timeout_action,
        created_at=t.created_at,
        started_at=t.started_at,
        finished_at=t.finished_at,
        entrants=[
            TournamentPlayerOut(name=names.get(p.user_id, "?"), seed=p.seed, withdrawn_in=p.withdrawn_in)
            for p in players
        ],
        rounds=[RoundOut(number=n, tables=ts) for n, ts in sorted(rounds.items())],
        standings=standing_out,
        podium=[s.name for s in standing_out[:3]] if finished else [],
        signed_up=viewer_id is not None and any(p.user_id == viewer_id for p in players),
        is_creator=viewer_id == t.created_by,
        invite_token=t.invite_token if viewer_id == t.created_by else None,
        invited=viewer_id in invited_ids,
        invitations=sorted(names.get(u, "?") for u in invited_ids) if viewer_id == t.created_by else [],
    )


def _summary(t: Tournament, count: int, creator: str, locale: str) -> TournamentSummary:
    return TournamentSummary(
        id=t.id,
        name=t.name,
        game=t.game,
        game_title=game_title(t.game, locale),
        format=t.format,
        table_size=t.table_size,
        places=t.places,
        players=count,
        status=t.status,
        current_round=t.current_round,
        total_rounds=runner.total_rounds(t),
        signup_until=t.signup_until,
        public=t.public,
        creator=creator,
    )


@use_case
async def list_tournaments(
    db: AsyncSession, *, viewer_id: int | None, status: str = "signup", page: int = 1, locale: str = "en"
) -> TournamentPage:
    """Public tournaments (and the viewer's own) in one state, newest first, ``PAGE`` a page."""
    if status not in LIST_STATES:
        raise InvalidInput(f"a list is one of {', '.join(LIST_STATES)}")
    if not 1 <= page <= MAX_PAGE:
        raise InvalidInput(f"a page is a number from 1 to {MAX_PAGE}")
    shown: Any = Tournament.public.is_(True)
    if viewer_id is not None:
        mine = select(TournamentPlayer.tournament_id).where(TournamentPlayer.user_id == viewer_id)
        invited = select(TournamentInvite.tournament_id).where(TournamentInvite.user_id == viewer_id)
        shown = or_(
            shown, Tournament.created_by == viewer_id, Tournament.id.in_(mine), Tournament.id.in_(invited)
        )
    found = list(
        await db.scalars(
            select(Tournament)
            .where(Tournament.status == status, shown)
            .order_by(Tournament.id.desc())
            .offset((page - 1) * PAGE)
            .limit(PAGE + 1)
        )
    )
    more, found = len(found) > PAGE, found[:PAGE]
    ids = [t.id for t in found]
    counts = dict(
        (
            await db.execute(
                select(TournamentPlayer.tournament_id, func.count())
                .where(TournamentPlayer.tournament_id.in_(ids))
                .group_by(TournamentPlayer.tournament_id)
            )
        )
        .tuples()
        .all()
    )
    creators = dict(
        (await db.execute(select(User.id, User.name).where(User.id.in_({t.created_by for t in found}))))
        .tuples()
        .all()
    )
    return TournamentPage(
        tournaments=[
            _summary(t, counts.get(t.id, 0), creators.get(t.created_by, "?"), locale) for t in found
        ],
        page=page,
        more=more,
    )
