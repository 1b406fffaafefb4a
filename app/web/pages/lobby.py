"""The lobby, creating and joining matches, "my matches", invite links and rules pages."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Form, Query, Request
from starlette.datastructures import FormData
from starlette.responses import Response

from app.db.async_play import TimeoutPolicy
from app.engine.registry import UnknownGame, get_game
from app.i18n import translations
from app.services import clocks, friends, lobby
from app.services._rows import game_title
from app.services.errors import InvalidInput, NotFound
from app.services.schemas import GameOut, UserOut
from app.web.deps import CsrfChecked, CurrentUser, LimitsDep, Locale, OptionalUser, SessionDep
from app.web.pages.common import page, redirect
from app.web.pages.confirm import CONFIRMED, Confirmed, Question, ask
from app.web.redirects import with_next
from app.web.templating import TEMPLATE_DIR, render

router = APIRouter(dependencies=[CsrfChecked], include_in_schema=False)
HOME_MATCHES = 10
"""Running matches the home page lists (your turn first); "my matches" has them all."""


@router.get("/")
async def lobby_page(
    request: Request,
    db: SessionDep,
    user: OptionalUser,
    locale: Locale,
    page_number: Annotated[int, Query(alias="page", ge=1, le=lobby.MAX_PAGE)] = 1,
) -> Response:
    games = lobby.list_games(locale)
    tables = await lobby.open_matches(db, viewer_id=user.id if user else None, page=page_number)
    suggestions = await lobby.invite_suggestions(db, user_id=user.id, limit=20) if user else []
    friends_to_invite = await friends.friend_names(db, user_id=user.id) if user else []
    mine = await lobby.running_matches(db, user_id=user.id) if user else None
    return page(
        request,
        "lobby/index.html",
        locale=locale,
        user=user,
        games=games,
        open_matches=tables.matches,
        tables=tables,
        suggestions=suggestions,
        friends_to_invite=friends_to_invite,
        running=(mine.your_turn + mine.waiting)[:HOME_MATCHES] if mine else [],
        running_more=len(mine.your_turn) + len(mine.waiting) > HOME_MATCHES if mine else False,
    )


@router.get("/lobby/open")
async def open_matches(
    request: Request,
    db: SessionDep,
    user: OptionalUser,
    locale: Locale,
    page_number: Annotated[int, Query(alias="page", ge=1, le=lobby.MAX_PAGE)] = 1,
) -> Response:
    """A page of the lobby's open tables again (the list alone, its pager stays): fetched on the
    user's live news (an invitation, a table of theirs changed) and now and then for tables
    others opened."""
    found = await lobby.open_matches(db, viewer_id=user.id if user else None, page=page_number)
    return page(
        request,
        "lobby/_open_matches.html",
        locale=locale,
        user=user,
        games=lobby.list_games(locale),
        open_matches=found.matches,
        tables_page=found.page,
    )


@router.post("/matches")
async def create_match(request: Request, db: SessionDep, user: CurrentUser, limits: LimitsDep) -> Response:
    form = await request.form()
    game = _one(form, "game")
    games = {g.slug: g for g in lobby.list_games()}
    if game not in games:
        raise NotFound(f"there is no game called {game!r}")
    try:
        seats = int(_one(form, "seats"))
    except ValueError:
        raise InvalidInput("the number of players must be a number") from None
    days = days_per_move(_one(form, "days"))
    policy = _one(form, "policy") or TimeoutPolicy.TIMEOUT_MOVE
    clocks.check_time_control(days, policy)  # before the match exists: a bad value creates nothing
    summary = await lobby.create_match(
        db,
        creator_id=user.id,
        game=game,
        seats=seats,
        options=parse_options(games[game], form),
        invite=parse_names(", ".join(v for v in form.getlist("invite") if isinstance(v, str))),
        fixed_order=_one(form, "fixed_order") in ("1", "on", "true"),
        bots=_one(form, "bots") or None,
        limits=limits,
        days_per_move=days,
        policy=policy,
    )
    return redirect(f"/matches/{summary.id}", request)


@router.post("/matches/{match_id}/bots")
async def add_bots(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    limits: LimitsDep,
    match_id: int,
    level: Annotated[str, Form(max_length=20)] = "",
) -> Response:
    await lobby.add_bots(db, match_id=match_id, user_id=user.id, level=level, limits=limits)
    return redirect(f"/matches/{match_id}", request)


@router.post("/matches/{match_id}/join")
async def join_match(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    match_id: int,
    invite_token: Annotated[str | None, Form(max_length=200)] = None,
) -> Response:
    await lobby.join_match(db, match_id=match_id, user_id=user.id, invite_token=invite_token or None)
    return redirect(f"/matches/{match_id}", request)


@router.get("/matches/{match_id}/leave")
async def leave_question(
    request: Request, db: SessionDep, user: CurrentUser, locale: Locale, match_id: int
) -> Response:
    return ask(request, locale, user, await _leave_question(db, user, locale, match_id))


@router.post("/matches/{match_id}/leave")
async def leave_match(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    locale: Locale,
    match_id: int,
    confirmed: Confirmed = "",
) -> Response:
    if confirmed != CONFIRMED:
        return ask(request, locale, user, await _leave_question(db, user, locale, match_id))
    await lobby.leave_match(db, match_id=match_id, user_id=user.id)
    return redirect("/", request)


@router.get("/matches/{match_id}/cancel")
async def cancel_question(
    request: Request, db: SessionDep, user: CurrentUser, locale: Locale, match_id: int
) -> Response:
    return ask(request, locale, user, await _cancel_question(db, user, locale, match_id))


@router.post("/matches/{match_id}/cancel")
async def cancel_match(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    locale: Locale,
    match_id: int,
    confirmed: Confirmed = "",
) -> Response:
    if confirmed != CONFIRMED:
        return ask(request, locale, user, await _cancel_question(db, user, locale, match_id))
    await lobby.cancel_match(db, match_id=match_id, user_id=user.id)
    return redirect("/", request)


async def _leave_question(db: SessionDep, user: UserOut, locale: str, match_id: int) -> Question:
    m = await lobby.check_leave(db, match_id=match_id, user_id=user.id)
    tr = translations(locale)
    invited = any(s.reserved and s.name == user.name for s in m.seats)
    return Question(
        title=(
            tr.gettext("Decline the invitation to %(game)s #%(id)s?")
            if invited
            else tr.gettext("Leave the table of %(game)s #%(id)s?")
        )
        % {"game": game_title(m.game, locale), "id": m.id},
        consequences=[
            tr.gettext("Your seat becomes free for somebody else."),
            tr.gettext("You can take a free seat again as long as the table is open."),
        ],
        action=f"/matches/{m.id}/leave",
        button=tr.gettext("Yes, decline") if invited else tr.gettext("Yes, leave"),
        back=f"/matches/{m.id}",
    )


async def _cancel_question(db: SessionDep, user: UserOut, locale: str, match_id: int) -> Question:
    m = await lobby.check_cancel(db, match_id=match_id, user_id=user.id)
    tr = translations(locale)
    others = [s.name for s in m.seats if s.name and s.user_id != user.id]
    consequences = [tr.gettext("The table is closed for everybody, and its invite link stops working.")]
    if others:
        consequences.append(
            tr.ngettext("%(names)s loses the seat.", "%(names)s lose their seats.", len(others))
            % {"names": ", ".join(others)}
        )
    consequences.append(tr.gettext("This cannot be undone."))
    return Question(
        title=tr.gettext("Cancel %(game)s #%(id)s?") % {"game": game_title(m.game, locale), "id": m.id},
        consequences=consequences,
        action=f"/matches/{m.id}/cancel",
        button=tr.gettext("Yes, cancel the match"),
        back=f"/matches/{m.id}",
    )


@router.post("/matches/{match_id}/invite")
async def invite_player(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    limits: LimitsDep,
    match_id: int,
    name: Annotated[str, Form(min_length=1, max_length=40)],
) -> Response:
    await lobby.invite_player(db, match_id=match_id, user_id=user.id, name=name, limits=limits)
    return redirect(f"/matches/{match_id}", request)


@router.get("/invite-names")
async def invite_suggestions(
    request: Request, db: SessionDep, user: CurrentUser, locale: Locale, name: str = "", invite: str = ""
) -> Response:
    """The invite fields' suggestions (``<option>``s for their datalist) for what is typed."""
    typed = (name or invite)[:40]
    suggestions = await lobby.invite_suggestions(db, user_id=user.id, prefix=typed)
    return page(request, "lobby/_invite_names.html", locale=locale, user=user, suggestions=suggestions)


@router.get("/matches")
async def my_matches(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    locale: Locale,
    order: str = "oldest",
    page_number: Annotated[int, Query(alias="page", ge=1, le=lobby.MAX_PAGE)] = 1,
) -> Response:
    """Running matches, then one page of the finished ones (``page``, newest first)."""
    chosen: Literal["oldest", "recent"] = "recent" if order == "recent" else "oldest"
    running = await lobby.running_matches(db, user_id=user.id, order=chosen)
    finished = await lobby.finished_matches(db, user_id=user.id, page=page_number)
    return page(
        request,
        "lobby/my_matches.html",
        locale=locale,
        user=user,
        running=running,
        finished=finished,
        order=chosen,
    )


@router.get("/matches/next")
async def next_match(request: Request, db: SessionDep, user: CurrentUser) -> Response:
    """The user's next your-turn match (oldest waiting first), else "my matches"."""
    queue = (await lobby.running_matches(db, user_id=user.id)).your_turn
    after = request.query_params.get("after")
    chosen = next((m for m in queue if str(m.id) != after), None)
    return redirect(f"/matches/{chosen.id}" if chosen else "/matches", request)


@router.get("/me/badge")
async def turn_badge(request: Request, db: SessionDep, user: CurrentUser, locale: Locale) -> Response:
    running = await lobby.running_matches(db, user_id=user.id)
    return render(locale, "lobby/_badge.html", {"count": len(running.your_turn)})


@router.get("/invite/{token}")
async def invite_page(
    request: Request, db: SessionDep, user: OptionalUser, locale: Locale, token: str
) -> Response:
    if user is None:
        return redirect(with_next("/register", f"/invite/{quote(token, safe='')}"), request)
    summary = await lobby.match_for_invite(db, invite_token=token, viewer_id=user.id)
    return page(request, "lobby/invite.html", locale=locale, user=user, match=summary, token=token)


@router.post("/invite/{token}")
async def accept_invite(request: Request, db: SessionDep, user: CurrentUser, token: str) -> Response:
    summary = await lobby.match_for_invite(db, invite_token=token, viewer_id=user.id)
    if user.id not in {s.user_id for s in summary.seats}:
        await lobby.join_match(db, match_id=summary.id, user_id=user.id, invite_token=token)
    return redirect(f"/matches/{summary.id}", request)


@router.get("/games/{slug}/rules")
async def rules_page(request: Request, user: OptionalUser, locale: Locale, slug: str) -> Response:
    try:
        game = get_game(slug)
    except UnknownGame as exc:
        raise NotFound(str(exc)) from None
    rules = None
    for candidate in (locale, "en", "de"):
        name = f"games/{slug}/rules_{candidate}.html"
        if (TEMPLATE_DIR / name).is_file():
            rules = name
            break
    return page(
        request,
        "lobby/rules.html",
        locale=locale,
        user=user,
        title=game.info.title.get(locale, slug),
        info=game.info,
        rules_template=rules,
        rules_locale=candidate if rules else None,
    )


def parse_options(game: GameOut, form: FormData) -> dict[str, Any]:
    """Map each ``opt_<key>`` field back to the option choice whose text it is."""
    chosen: dict[str, Any] = {}
    for option in game.options:
        raw = form.get(f"opt_{option.key}")
        if not isinstance(raw, str):
            continue
        for choice in option.choices:
            if str(choice) == raw:
                chosen[option.key] = choice
                break
        else:
            raise InvalidInput(f"option {option.key!r} cannot be {raw!r}")
    return chosen


def parse_names(text: str) -> list[str]:
    return [name.strip() for name in text.replace(";", ",").split(",") if name.strip()]


def days_per_move(text: str) -> int | None:
    """A form's time control field: empty for none, else days per move."""
    if not text.strip():
        return None
    try:
        return int(text)
    except ValueError:
        raise InvalidInput("days per move must be a number") from None


def _one(form: FormData, key: str) -> str:
    value = form.get(key)
    return value if isinstance(value, str) else ""
