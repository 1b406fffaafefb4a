"""Friends, blocks, player search and statistics over JSON. The same services as the pages."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from app.services import friends, people, stats
from app.services.social_schemas import (
    BlocksOut,
    FriendsOut,
    GameStatsOut,
    PlayerStatsOut,
    RelationOut,
    SearchOut,
    VersusOut,
)
from app.web.api.responses import errors
from app.web.deps import CsrfChecked, CurrentUser, Locale, OptionalUser, SessionDep

router = APIRouter(tags=["people"], dependencies=[CsrfChecked])


@router.get("/users", responses=errors())
async def search_users(
    db: SessionDep,
    q: Annotated[str, Query(max_length=100)] = "",
    page: Annotated[int, Query(ge=1, le=people.MAX_PAGE)] = 1,
) -> SearchOut:
    """People whose name starts with ``q`` (case and look-alike letters folded), by name, with
    the games they play and their ratings; ``page`` by ``page``."""
    return await people.search(db, query=q, page=page)


@router.get("/users/{name}/stats", responses=errors(404))
async def user_stats(db: SessionDep, locale: Locale, name: str) -> PlayerStatsOut:
    """Per game: played, won, win rate, average score and place, rating, best rating, streaks,
    favourite opponents and the rating history (the newest points)."""
    return await stats.player_stats(db, name=name, locale=locale)


@router.get("/users/{name}/versus/{other}", responses=errors(404))
async def versus(
    db: SessionDep,
    user: OptionalUser,
    locale: Locale,
    name: str,
    other: str,
    page: Annotated[int, Query(ge=1, le=stats.MAX_PAGE)] = 1,
) -> VersusOut:
    """Head-to-head: ``name``'s wins, losses and draws against ``other`` and their matches."""
    return await stats.versus(
        db, name=name, other=other, page=page, viewer_id=user.id if user else None, locale=locale
    )


@router.get("/games/{game}/stats", responses=errors(404))
async def game_stats(db: SessionDep, locale: Locale, game: str) -> GameStatsOut:
    """Everybody's finished matches of the game per table size: how often each seat wins,
    the average length, and for Draco the dragons that end on the summit."""
    return await stats.game_stats(db, game=game, locale=locale)


@router.get("/me/friends", responses=errors(401))
async def my_friends(
    db: SessionDep,
    user: CurrentUser,
    locale: Locale,
    page: Annotated[int, Query(ge=1, le=friends.MAX_PAGE)] = 1,
) -> FriendsOut:
    """Your friends (a page, by name) with who is online and their running matches, and the
    requests waiting: ``asking`` you and ``asked`` by you."""
    return await friends.list_friends(db, user_id=user.id, page=page, locale=locale)


@router.get("/me/friends/{name}", responses=errors(401, 404))
async def friend_relation(db: SessionDep, user: CurrentUser, name: str) -> RelationOut:
    """How you stand to ``name``: none, friend, asked (by you), asking (you), blocked (by you)."""
    return await friends.relation(db, user_id=user.id, name=name)


@router.post("/me/friends/{name}", responses=errors(401, 403, 404, 409, 429))
async def ask_friend(db: SessionDep, user: CurrentUser, name: str, response: Response) -> RelationOut:
    """Ask ``name`` to be your friend (201, ``asked``), or accept their request (200, ``friend``)."""
    before = await friends.relation(db, user_id=user.id, name=name)
    out = await friends.ask_or_accept(db, user_id=user.id, name=name)
    response.status_code = 201 if before.relation == "none" else 200
    return out


@router.delete("/me/friends/{name}", responses=errors(401, 404))
async def remove_friend(db: SessionDep, user: CurrentUser, name: str) -> RelationOut:
    """Decline ``name``'s request, withdraw yours, or end the friendship."""
    return await friends.remove(db, user_id=user.id, name=name)


@router.get("/me/blocks", responses=errors(401))
async def my_blocks(
    db: SessionDep, user: CurrentUser, page: Annotated[int, Query(ge=1, le=friends.MAX_PAGE)] = 1
) -> BlocksOut:
    return await friends.list_blocks(db, user_id=user.id, page=page)


@router.post("/me/blocks/{name}", status_code=201, responses=errors(401, 404, 409))
async def block(db: SessionDep, user: CurrentUser, name: str) -> RelationOut:
    """Block ``name``: no invitations, chat lines or friend requests from them any more."""
    return await friends.block(db, user_id=user.id, name=name)


@router.delete("/me/blocks/{name}", responses=errors(401, 404))
async def unblock(db: SessionDep, user: CurrentUser, name: str) -> RelationOut:
    return await friends.unblock(db, user_id=user.id, name=name)
