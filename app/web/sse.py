"""Server-sent events: nudges only ("match 42 is at version 17"); pages fetch their own view.

``/sse/matches/{id}`` nudges every viewer of a match after a committed decision;
``/sse/me`` nudges a user whose your-turn queue may have changed (the header badge).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sse_starlette import EventSourceResponse, ServerSentEvent

from app.services import accounts
from app.services.live import Broker, Subscription
from app.web.deps import LoginRequired
from app.web.security import SESSION_COOKIE

router = APIRouter(prefix="/sse", include_in_schema=False)
PING_SECONDS = 15


@router.get("/matches/{match_id}")
async def match_events(request: Request, match_id: int) -> EventSourceResponse:
    broker: Broker = request.app.state.broker
    return EventSourceResponse(_nudges(broker.subscribe_match(match_id), "match"), ping=PING_SECONDS)


@router.get("/me")
async def my_events(request: Request) -> EventSourceResponse:
    # The session is looked up here and closed at once: a stream may stay open for hours
    # and must not hold a database connection.
    token = request.cookies.get(SESSION_COOKIE)
    maker: async_sessionmaker[AsyncSession] = request.app.state.sessionmaker
    async with maker() as db:
        user = await accounts.user_for_token(db, token=token) if token else None
    if user is None:
        raise LoginRequired("please log in first")
    broker: Broker = request.app.state.broker
    return EventSourceResponse(_nudges(broker.subscribe_user(user.id), "me"), ping=PING_SECONDS)


async def _nudges(subscription: Subscription, event: str) -> AsyncIterator[ServerSentEvent]:
    async with subscription:
        async for nudge in subscription:
            data = {"kind": nudge.kind, "id": nudge.id, "version": nudge.version}
            yield ServerSentEvent(data=json.dumps(data), event=event)
