"""Friends, blocks, finding people, head-to-head and statistics pages."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Form, Query, Request
from starlette.responses import Response

from app.services import friends, lobby, people, stats
from app.services.errors import InvalidInput
from app.web.deps import CsrfChecked, CurrentUser, Locale, OptionalUser, SessionDep
from app.web.pages.common import page, redirect
from app.web.redirects import safe_next

router = APIRouter(dependencies=[CsrfChecked], include_in_schema=False)

NameField = Annotated[str, Form(max_length=60)]
NextField = Annotated[str, Form(alias="next", max_length=300)]
"""Where the form was: the page to go back to (``_back``)."""


@router.get("/friends")
async def friends_page(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    locale: Locale,
    page_number: Annotated[int, Query(alias="page", ge=1, le=friends.MAX_PAGE)] = 1,
) -> Response:
    mine = await friends.list_friends(db, user_id=user.id, page=page_number, locale=locale)
    blocked = await friends.list_blocks(db, user_id=user.id)
    return page(
        request,
        "social/friends.html",
        locale=locale,
        user=user,
        mine=mine,
        blocked=blocked,
        games=lobby.list_games(locale),
    )


@router.post("/friends")
async def ask_friend_by_name(
    request: Request, db: SessionDep, user: CurrentUser, name: NameField
) -> Response:
    """The friends page's form: ask someone by name."""
    await friends.ask_or_accept(db, user_id=user.id, name=name)
    return redirect("/friends", request)


@router.post("/friends/{name}")
async def ask_friend(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    name: str,
    next_url: NextField = "",
) -> Response:
    await friends.ask_or_accept(db, user_id=user.id, name=name)
    return redirect(_back(next_url), request)


@router.post("/friends/{name}/remove")
async def remove_friend(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    name: str,
    next_url: NextField = "",
) -> Response:
    await friends.remove(db, user_id=user.id, name=name)
    return redirect(_back(next_url), request)


@router.post("/blocks/{name}")
async def block(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    name: str,
    next_url: NextField = "",
) -> Response:
    await friends.block(db, user_id=user.id, name=name)
    return redirect(_back(next_url), request)


@router.post("/blocks/{name}/remove")
async def unblock(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    name: str,
    next_url: NextField = "",
) -> Response:
    await friends.unblock(db, user_id=user.id, name=name)
    return redirect(_back(next_url), request)


@router.get("/people")
async def search_page(
    request: Request,
    db: SessionDep,
    user: OptionalUser,
    locale: Locale,
    q: Annotated[str, Query(max_length=100)] = "",
    page_number: Annotated[int, Query(alias="page", ge=1, le=people.MAX_PAGE)] = 1,
) -> Response:
    found = None
    error = None
    if q.strip():
        try:
            found = await people.search(db, query=q, page=page_number)
        except InvalidInput as refused:
            error = str(refused)
    return page(request, "social/search.html", locale=locale, user=user, q=q, found=found, error=error)


@router.get("/users/{name}/versus/{other}")
async def versus_page(
    request: Request,
    db: SessionDep,
    user: OptionalUser,
    locale: Locale,
    name: str,
    other: str,
    page_number: Annotated[int, Query(alias="page", ge=1, le=stats.MAX_PAGE)] = 1,
) -> Response:
    out = await stats.versus(
        db, name=name, other=other, page=page_number, viewer_id=user.id if user else None, locale=locale
    )
    return page(request, "social/versus.html", locale=locale, user=user, versus=out)


@router.get("/versus")
async def versus_form(request: Request, name: str = "", other: str = "") -> Response:
    """The profile's head-to-head form (a GET form cannot build a path)."""
    if not name.strip() or not other.strip():
        raise InvalidInput("name two players")
    return redirect(
        f"/users/{quote(name.strip()[:60], safe='')}/versus/{quote(other.strip()[:60], safe='')}", request
    )


@router.get("/games/{game}/stats")
async def game_stats_page(
    request: Request, db: SessionDep, user: OptionalUser, locale: Locale, game: str
) -> Response:
    out = await stats.game_stats(db, game=game, locale=locale)
    return page(request, "social/game_stats.html", locale=locale, user=user, stats=out)


def _back(next_url: str) -> str:
    """Back to the page the form was on (only a path of this site), else the friends list."""
    return safe_next(next_url) if next_url else "/friends"
