"""Records in and out of the database: a finished match's record, and a record made a match.

Export is open to everyone once a match has finished (the seed and every hidden draw are then
published in it); before that there is no record at all (403), for players and spectators
alike. Import replays the record in a worker thread (a long record takes a few hundred
milliseconds of CPU) and makes a finished, unrated match with a replay: its seats hold no users,
so nobody's history, statistics or rating counts it, and ``imported_matches`` marks it.
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import ImportedMatch, LoggedMove, Match, MatchSeat, MatchStatus
from app.db.types import utcnow
from app.engine.protocol import Move
from app.engine.registry import get_game
from app.services import throttle
from app.services._db import use_case
from app.services._rows import load_match, load_seats_named
from app.services.errors import Forbidden, InvalidInput
from app.services.records.format import CheckedRecord, RecordError, RecordHeader, check_record, write_record
from app.services.throttle import Quota

MAX_RECORD_BYTES = 1024 * 1024
"""The largest record taken (a 2,000-decision Drachenland match writes ~190 KB)."""
IMPORTS = Quota(per=20, window=timedelta(hours=1))
"""Records one user may upload per hour (refused ones count too: each costs a replay)."""
NOT_FINISHED = "a match's record is published when the match has finished"
TOO_MANY_IMPORTS = "you have uploaded too many records: please wait a while"
TOO_LARGE = f"a record is at most {MAX_RECORD_BYTES // 1024} KiB"
NO_SEED = (
    "the record gives no Seed: it can be checked (drachenhort verify-record) but not imported,"
    " since a replay here rebuilds every draw from the seed"
)


class RecordRefused(InvalidInput):
    """A record the engine refuses, with the line and the decision it refused."""

    def __init__(self, error: RecordError) -> None:
        super().__init__(str(error))
        self.line = error.line
        self.decision = error.decision


@dataclass(frozen=True, slots=True)
class RecordFile:
    filename: str
    text: str


@use_case
async def export(db: AsyncSession, *, match_id: int, locale: str) -> RecordFile:
    """The record of a finished match, its lines in ``locale``; ``Forbidden`` before the end."""
    match = await load_match(db, match_id)
    if match.status != MatchStatus.FINISHED or match.seed is None or not match.result:
        raise Forbidden(NOT_FINISHED)
    names = await seat_names(db, match)
    rows = await db.execute(
        select(LoggedMove.seat, LoggedMove.move)
        .where(LoggedMove.match_id == match.id)
        .order_by(LoggedMove.seq)
    )
    moves = [(seat, Move.parse(move)) for seat, move in rows.tuples()]
    finished = match.finished_at.strftime("%Y-%m-%dT%H:%M:%SZ") if match.finished_at else ""
    imported = await db.get(ImportedMatch, match.id)
    header = RecordHeader(
        game=match.game,
        ruleset=match.ruleset,
        options=get_game(match.game, match.ruleset).info.normalise_options(match.options),
        names=tuple(names),
        result=match.result,
        date=imported.played_on if imported is not None else finished,
        language=locale if locale in ("en", "de") else "en",
        seed=match.seed,
    )
    text = await asyncio.to_thread(write_record, header, moves)
    return RecordFile(f"drachenhort-{match.game}-{match.id}.txt", text)


async def seat_names(db: AsyncSession, match: Match) -> list[str]:
    """Each seat's player: the user's name, or for an imported match the record's."""
    imported = await db.get(ImportedMatch, match.id)
    if imported is not None:
        return list(imported.names)
    seats, names = await load_seats_named(db, match.id)
    return [names.get(s.user_id, "") if s.user_id is not None else "" for s in seats]


@use_case
async def import_record(db: AsyncSession, *, user_id: int, text: str) -> int:
    """Replay ``text`` and make it a finished, unrated, imported match; its id.

    ``RecordRefused`` names the line and the reason; the upload counts against the user's
    hourly quota either way (each costs a replay).
    """
    if len(text.encode()) > MAX_RECORD_BYTES:
        raise InvalidInput(TOO_LARGE)
    await throttle.spend(db, f"records:{user_id}", IMPORTS, TOO_MANY_IMPORTS)
    await db.commit()  # spent even when the record is refused below
    try:
        checked = await asyncio.to_thread(check_record, text)
    except RecordError as error:
        raise RecordRefused(error) from None
    if checked.header.seed is None:
        raise InvalidInput(NO_SEED)
    match_id = await _store(db, user_id, checked)
    await db.commit()
    return match_id


async def _store(db: AsyncSession, user_id: int, checked: CheckedRecord) -> int:
    header = checked.header
    game = get_game(header.game, header.ruleset)
    result = dict(header.result)  # as the engine reached it (``check_record`` replaced the record's)
    now = utcnow()
    match = Match(
        game=header.game,
        ruleset=header.ruleset,
        options=dict(header.options),
        players=header.players,
        status=MatchStatus.FINISHED,
        seed=header.seed,
        version=len(checked.moves),
        committed_version=len(checked.moves),
        state=game.format_position(checked.final),
        rng_counter=checked.rng_counter,
        pending=[],
        to_act=[],
        result=result,
        created_by=user_id,
        invite_token=secrets.token_urlsafe(16),
        fixed_order=True,
        created_at=now,
        updated_at=now,
        started_at=now,
        finished_at=now,
    )
    db.add(match)
    await db.flush()
    scores = result.get("scores") or [0.0] * header.players
    db.add_all(
        MatchSeat(match_id=match.id, seat=seat, score=float(scores[seat]), rank=int(result["ranks"][seat]))
        for seat in range(header.players)
    )
    db.add_all(
        LoggedMove(
            match_id=match.id,
            seq=seq,
            seat=seat,
            move=str(move),
            events=[e.to_json() for e in events],
            created_at=now,
        )
        for seq, ((seat, move), events) in enumerate(zip(checked.moves, checked.events, strict=True), start=1)
    )
    db.add(
        ImportedMatch(
            match_id=match.id,
            imported_by=user_id,
            names=list(header.names),
            played_on=header.date[:40],
            imported_at=now,
        )
    )
    await db.flush()
    return match.id
