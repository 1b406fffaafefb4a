"""Stand-ins: a computer plays a person's seat for them until they take it back.

The timeout policy ``bot`` hands a late seat to a bot (``seats.stand_in``) instead of playing
the game's timeout move once: the bot keeps playing the seat, turn after turn, through the
same door as the person (``app.services.bot_turns``), so a match goes on at its pace while its
player is away. The owner takes the seat back with one click on their next visit. Both
changes are public (everybody sees who plays a seat), so both move the match's public version.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from app.bots import Level
from app.db.async_play import MatchControl
from app.db.models import Match, MatchSeat
from app.services import bot_turns, conclusions
from app.services._db import use_case
from app.services._rows import bump_version
from app.services.errors import Conflict
from app.services.play.standings import RESIGNED

LEVEL = Level.NORMAL
"""A stand-in plays reasonably well and thinks half a second."""


async def hand_to_bots(
    db: AsyncSession, match: Match, seats: Sequence[MatchSeat], control: MatchControl, late: Sequence[int]
) -> bool:
    """Inside the caller's transaction: bots take the ``late`` seats (marked as timed out);
    False when another writer changed the match first (the caller rolls back)."""
    if not await bump_version(db, match, match.version):
        return False
    for seat in seats:
        if seat.seat in late:
            seat.stand_in = LEVEL.value
    control.timed_out = sorted({*control.timed_out, *late})
    return True


@use_case
async def take_back(db: AsyncSession, *, match_id: int, user_id: int) -> None:
    """The owner plays their seat again (a bot decision under way is refused as stale)."""
    match, seats, seat = await conclusions.running_seat(db, match_id, user_id, lock=True)
    control = await conclusions.control_of(db, match_id)
    if seat in control.resigned:
        raise Conflict(RESIGNED)  # the server plays a conceded seat, not its owner
    row = next(s for s in seats if s.seat == seat)
    if row.stand_in is None:
        raise Conflict("you are playing this seat yourself already")
    if not await bump_version(db, match, match.version):
        await db.rollback()
        raise Conflict("the match changed at the same moment: please try again")
    row.stand_in = None
    await db.commit()
    await conclusions.publish(match, seats)


async def after_handing(match: Match, seats: Sequence[MatchSeat]) -> None:
    """After the commit of ``hand_to_bots``: tell everybody, and let the bot start."""
    await conclusions.publish(match, seats)
    bot_turns.after_start(match.id)
