"""The table's chat: players only; a new message is news for the match's chat, not its board."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Message, User
from app.db.types import utcnow
from app.services import friends, live, throttle
from app.services._db import use_case
from app.services.errors import Forbidden
from app.services.limits import TOO_MANY_CHAT_LINES, Limits, chat_key
from app.services.live import Nudge
from app.services.play import chat_text
from app.services.play import loaded as kept
from app.services.play.loaded import LoadedMatch
from app.services.schemas import MessageOut

CHAT_PAGE = 50
"""Messages per chat page: a page shows the newest, "earlier" fetches the page before."""


def may_read(loaded: LoadedMatch, user_id: int | None) -> bool:
    """Whether ``user_id`` may read (and hear of) the chat of this version: its players only."""
    return loaded.seat_of(user_id) is not None


@use_case
async def post_message(
    db: AsyncSession, *, match_id: int, user_id: int, text: str, limits: Limits = Limits()
) -> MessageOut:
    """Say something at the table (players only; ``limits.chat_lines_per_minute`` over all
    the user's tables)."""
    loaded = await kept.load(db, match_id)
    if not may_read(loaded, user_id):
        raise Forbidden("only the players of this match can chat here")
    others = [s.user_id for s in loaded.row.seats if s.user_id is not None and s.user_id != user_id]
    if await friends.blocked_by_any(db, others, user_id):
        raise Forbidden("a player at this table has blocked you: you cannot write here")
    text = chat_text.allowed(text)
    await throttle.spend(db, chat_key(user_id), limits.chat_lines, TOO_MANY_CHAT_LINES)
    message = Message(match_id=match_id, user_id=user_id, text=text, created_at=utcnow())
    db.add(message)
    await db.commit()
    name = next((s.name for s in loaded.row.seats if s.user_id == user_id), None)
    # Chat news only: the match's version is not the chat's business (and a waiting seat
    # must never learn the acting seat's private version from it). The committed version
    # it names stays in the server: streams read who may hear of it from that version on.
    await live.publish(Nudge("chat", match_id, loaded.row.committed_version))
    return MessageOut(
        id=message.id, user_id=user_id, name=name or "", text=text, created_at=message.created_at
    )


@use_case
async def list_messages(
    db: AsyncSession, *, match_id: int, user_id: int, before: int | None = None
) -> list[MessageOut]:
    """A page of the table's chat, oldest first (players only): see ``messages``."""
    loaded = await kept.load(db, match_id)
    if not may_read(loaded, user_id):
        raise Forbidden("only the players of this match can read its chat")
    return await messages(db, match_id, before=before)


async def messages(db: AsyncSession, match_id: int, *, before: int | None = None) -> list[MessageOut]:
    """The newest ``CHAT_PAGE`` messages (those before the message ``before``, when given),
    oldest first (no membership check). A full page may have earlier ones."""
    query = (
        select(Message, User.name).join(User, User.id == Message.user_id).where(Message.match_id == match_id)
    )
    if before is not None:
        query = query.where(Message.id < before)
    rows = await db.execute(query.order_by(Message.id.desc()).limit(CHAT_PAGE))
    out = [
        MessageOut(id=m.id, user_id=m.user_id, name=name, text=m.text, created_at=m.created_at)
        for m, name in rows.tuples()
    ]
    return out[::-1]
