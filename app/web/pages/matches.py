"""The match page, its htmx area, moves, undo/confirm and chat."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from functools import cache
from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request
from markupsafe import Markup, escape
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import Response

from app.config import Settings
from app.engine.protocol import Seat
from app.engine.registry import UnknownGame, get_game
from app.i18n import translations
from app.services import conclusions, lobby, play, profiles
from app.services.errors import StaleVersion
from app.services.play import loaded as kept
from app.services.play import pushes
from app.services.play.loaded import LoadedMatch
from app.services.schemas import LogEntry, MatchView, MoveResult, UserOut
from app.web.decision_route import DecisionRoute, MoveBody, TurnIn
from app.web.deps import CsrfChecked, CurrentUser, LimitsDep, Locale, OptionalUser, SessionDep, SettingsDep
from app.web.pages.common import page, public_url
from app.web.pages.results import MatchResult, match_result
from app.web.templating import TEMPLATE_DIR, TemplateResponse, render_string

router = APIRouter(dependencies=[CsrfChecked], include_in_schema=False)
decisions = APIRouter(dependencies=[CsrfChecked], include_in_schema=False, route_class=DecisionRoute)
"""Move, undo and confirm, included first: a route is found by trying the routes in order, and
a page's clicks are the requests a match makes by the hundred (as ``app.web.api.moves``); their
forms are read by ``DecisionRoute``."""

STATIC_DIR = TEMPLATE_DIR.parent / "static"
LogAfterQuery = Annotated[int | None, Query(ge=0, le=2**31 - 1)]
LogBefore = Annotated[int, Query(ge=0, le=2**31 - 1)]


@router.get("/matches/{match_id}")
async def match_page(
    request: Request, db: SessionDep, settings: SettingsDep, user: OptionalUser, locale: Locale, match_id: int
) -> Response:
    m, chat = await play.get_match_page(db, match_id=match_id, viewer_id=_id(user), locale=locale)
    clock = await conclusions.get_clock(db, match_id=match_id)
    seated = user is not None and m.viewer_seat is not None and m.status == "active"
    return page(
        request,
        "match/page.html",
        first_match=seated and user is not None and await profiles.is_new_player(db, user_id=user.id),
        locale=locale,
        user=user,
        game_title=game_title_in(m.game, locale),
        game_css=static_if_present(m.game, "board.css"),
        game_js=static_if_present(m.game, "board.js"),
        chat=chat,
        **chat_context(match_id),
        clock=clock,
        **{**area_context(m, locale), "invite_url": await _invite_url(db, request, settings, m, user)},
    )


@router.get("/matches/{match_id}/area")
async def match_area(
    request: Request,
    db: SessionDep,
    settings: SettingsDep,
    user: OptionalUser,
    locale: Locale,
    match_id: int,
    log_after: LogAfterQuery = None,
) -> Response:
    """The board area; its log list holds the lines after ``log_after`` (what the page lacks)."""
    m = await play.get_match(db, match_id=match_id, viewer_id=_id(user), locale=locale, log_after=log_after)
    return area(request, m, locale, user, invite_url=await _invite_url(db, request, settings, m, user))


@router.get("/matches/{match_id}/log")
async def log_page(
    request: Request, db: SessionDep, user: OptionalUser, locale: Locale, match_id: int, before: LogBefore
) -> Response:
    """The log items of the decisions just before ``before`` ("show earlier")."""
    lines, after = await play.log_page(
        db, match_id=match_id, viewer_id=_id(user), before=before, locale=locale
    )
    seats = await play.get_seats(db, match_id=match_id)
    items = log_items(lines, locale, {s.seat: s.name for s in seats if s.name}, empty=False)
    return page(request, "match/_log_page.html", locale=locale, user=user, items=items, after=after)


@decisions.post("/matches/{match_id}/moves")
async def post_move(
    request: Request,
    match_id: int,
    body: Annotated[MoveBody, Form()],
    db: SessionDep,
    user: CurrentUser,
    locale: Locale,
) -> Response:
    decision = play.submit_move(
        db,
        match_id=match_id,
        user_id=user.id,
        move=body.move,
        expected_version=body.expected_version,
        request_id=body.request_id,
        locale=locale,
        log_after=body.log_after,
        then_confirm=user.auto_confirm,
    )
    return await _decided_area(request, db, user, locale, match_id, decision, body.log_after)


@decisions.post("/matches/{match_id}/undo")
async def post_undo(
    request: Request,
    match_id: int,
    body: Annotated[TurnIn, Form()],
    db: SessionDep,
    user: CurrentUser,
    locale: Locale,
) -> Response:
    return await _turn_step(play.undo_move, request, match_id, body, db, user, locale)


@decisions.post("/matches/{match_id}/confirm")
async def post_confirm(
    request: Request,
    match_id: int,
    body: Annotated[TurnIn, Form()],
    db: SessionDep,
    user: CurrentUser,
    locale: Locale,
) -> Response:
    return await _turn_step(play.confirm_turn, request, match_id, body, db, user, locale)


async def _turn_step(
    step: Callable[..., Awaitable[MoveResult]],
    request: Request,
    match_id: int,
    body: TurnIn,
    db: AsyncSession,
    user: UserOut,
    locale: str,
) -> Response:
    """Undo or confirm: the same form, the same answer."""
    decision = step(
        db,
        match_id=match_id,
        user_id=user.id,
        expected_version=body.expected_version,
        request_id=body.request_id,
        locale=locale,
        log_after=body.log_after,
    )
    return await _decided_area(request, db, user, locale, match_id, decision, body.log_after)


async def _decided_area(
    request: Request,
    db: AsyncSession,
    user: UserOut,
    locale: str,
    match_id: int,
    decision: Awaitable[MoveResult],
    log_after: int | None,
) -> Response:
    """The area after a move, undo or confirm; a stale version answers with the fresh board."""
    try:
        result = await decision
    except StaleVersion:
        return await stale_area(request, db, user, locale, match_id, log_after)
    return _result_area(request, db, result, locale, user, log_after)


@router.get("/matches/{match_id}/chat")
async def chat(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    locale: Locale,
    match_id: int,
    before: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
) -> Response:
    """The chat's newest page, or (``before``) the lines of the page before that message."""
    messages = await play.list_messages(db, match_id=match_id, user_id=user.id, before=before)
    template = "match/_chat.html" if before is None else "match/_chat_lines.html"
    earlier = before is not None
    return page(
        request, template, locale=locale, user=user, chat=messages, earlier=earlier, **chat_context(match_id)
    )


@router.post("/matches/{match_id}/chat")
async def post_chat(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    locale: Locale,
    limits: LimitsDep,
    match_id: int,
    text: Annotated[str, Form(min_length=1, max_length=500)],
) -> Response:
    await play.post_message(db, match_id=match_id, user_id=user.id, text=text, limits=limits)
    if request.headers.get("hx-request") != "true":
        return Response(status_code=303, headers={"Location": f"/matches/{match_id}"})
    messages = await play.list_messages(db, match_id=match_id, user_id=user.id)
    return page(
        request, "match/_chat.html", locale=locale, user=user, chat=messages, **chat_context(match_id)
    )


def chat_context(match_id: int) -> dict[str, Any]:
    """What the chat templates need besides the lines: whose chat, and a full page's size
    (a full page offers "earlier")."""
    return {"chat_match": match_id, "chat_page": play.CHAT_PAGE}


def area(
    request: Request,
    m: MatchView,
    locale: str,
    user: UserOut | None,
    *,
    message: str | None = None,
    invite_url: str | None = None,
    status_code: int = 200,
) -> Response:
    return page(
        request,
        "match/_area.html",
        locale=locale,
        user=user,
        status_code=status_code,
        **{**area_context(m, locale), "message": message, "invite_url": invite_url},
    )


async def stale_area(
    request: Request, db: SessionDep, user: UserOut, locale: str, match_id: int, log_after: int | None
) -> Response:
    """409: the client saw an old version; answer with the fresh board and say so."""
    fresh = await play.get_match(db, match_id=match_id, viewer_id=user.id, locale=locale, log_after=log_after)
    message = translations(locale).gettext("The match has moved on: here is the current position.")
    return area(request, fresh, locale, user, message=message, status_code=409)


def area_context(m: MatchView, locale: str) -> dict[str, Any]:
    """The match area's context, including the board partial contract (templates/games/README.md)."""
    result = match_result(m)
    return {
        "m": m,
        "message": None,
        "invite_url": None,
        "board_template": board_template(m.game),
        "view": m.view,
        "seat": m.viewer_seat,
        "legal": m.legal,
        "players": [{"seat": s.seat, "name": s.name or ""} for s in m.seats],
        "replay": False,
        "t": ui_text(m.game, locale),
        "log_html": log_items(m.log, locale, {s.seat: s.name for s in m.seats if s.name}),
        "result": result,
        **_players_list(m, result),
    }


def _players_list(m: MatchView, result: MatchResult | None) -> dict[str, Any]:
    """The players list's order (rank order at the end, equal ranks in seat order, as the
    result table; else seat order), each seat's rank, and the viewer's own seat. Here rather
    than as Jinja filters: the area is rendered for every seat of every version, and its
    lookups by seat were about a third of a warm render's time outside the board."""
    by_seat = {s.seat: s for s in m.seats}
    order = [row.seat for row in result.rows] if result else list(by_seat)
    return {
        "seats_in_order": [by_seat[seat] for seat in order if seat in by_seat],
        "rank_of": {row.seat: row.rank for row in result.rows} if result else {},
        "my_seat": by_seat.get(m.viewer_seat) if m.viewer_seat is not None else None,
    }


_SEAT_WORD = re.compile(r"\b(?:Player|Spieler) ([1-9])\b")


def with_names(text: str, names: Mapping[int, str]) -> str:
    """A log line with its players' names: the games write "Player 2" (they know seats, not users)."""

    def name(found: re.Match[str]) -> str:
        return names.get(int(found.group(1)) - 1) or found.group(0)

    return _SEAT_WORD.sub(name, text) if names else text


def _named(text: str, names: Mapping[int, str]) -> Markup:
    """A log line as HTML, each player's name in the player's colour (``who seat-N``)."""

    def name(found: re.Match[str]) -> str:
        seat = int(found.group(1)) - 1
        shown = names.get(seat) or found.group(0)
        return f'<span class="who seat-{seat}">{escape(shown)}</span>'

    return Markup(_SEAT_WORD.sub(name, str(escape(text))))


def log_items(
    log: list[LogEntry], locale: str, names: Mapping[int, str] | None = None, *, empty: bool = True
) -> Markup:
    """The log list's items as the match and replay pages lay them out: decisions newest first,
    each decision's lines in the order they happened.

    Built here rather than in a Jinja loop: a long match has hundreds of lines, and the loop
    (attribute lookups, a filter and escaping per line) was most of the area's own render time.
    ``names`` (seat -> user name) replace the games' "Player N". A decision's first line carries
    its number (its seq, ``value``: a page shows only the newest part of a long log); the lines
    it goes on with have none, so no number repeats. Each line names its deciding seat
    (``data-seat``, class ``seat-N``): the page draws a player's lines in the player's colour and
    sets a turn apart where the seat changes (static/css/app.css).
    ``empty``: say so when there are no lines at all.
    """
    names = names or {}
    gettext = translations(locale).gettext
    # Outside the f-strings: the catalogue extractor does not look inside them.
    if not log:
        if not empty:
            return Markup("")
        nothing = gettext("Nothing has happened yet.")
        return Markup(f'          <li class="empty">{nothing}</li>\n')
    tag = gettext("pending")
    pending = f'<span class="tag">{tag}</span> '
    decisions: dict[int, list[LogEntry]] = {}
    for e in log:
        decisions.setdefault(e.seq, []).append(e)
    items = []
    for seq in sorted(decisions, reverse=True):
        for n, e in enumerate(decisions[seq]):
            first = n == 0
            seat = "" if e.seat is None else f" seat-{e.seat}"
            kind = " decision" if first else " goes-on"
            number = f' value="{seq}"' if first else ""
            items.append(
                f'          <li class="log-entry{seat}{" pending" if e.pending else ""}{kind}"{number} '
                f'data-seq="{seq}" data-seat="{"" if e.seat is None else e.seat}" '
                f'data-pieces="{escape(" ".join(e.pieces))}" tabindex="0">'
                f"{pending if e.pending else ''}{_named(e.text, names)}</li>\n"
            )
    return Markup("".join(items))


def ui_text(slug: str, locale: str) -> Any:
    try:
        texts = get_game(slug).ui_text
    except UnknownGame:
        texts = {}

    def t(key: str) -> str:
        return texts.get(locale, {}).get(key) or texts.get("en", {}).get(key) or key

    return t


async def _invite_url(
    db: SessionDep, request: Request, settings: Settings, m: MatchView, user: UserOut | None
) -> str | None:
    """The invitation link, for members of a match that still has open seats."""
    if m.status != "open" or user is None:
        return None
    summary = await lobby.get_summary(db, match_id=m.id, viewer_id=user.id)
    site = public_url(request, settings.base_url)
    return f"{site}/invite/{summary.invite_token}" if summary.invite_token else None


def _result_area(
    request: Request, db: AsyncSession, result: MoveResult, locale: str, user: UserOut, log_after: int | None
) -> Response:
    """The area after a decision. A committed one is the very area every stream of the mover's
    seat is pushed (``shared_area``): rendered once for both."""
    loaded = kept.cached(db, result.match.id, result.version) if result.committed else None
    if loaded is None:
        return area(request, result.match, locale, user)
    html = shared_area(loaded, result.match.viewer_seat, locale, log_after)
    return TemplateResponse("match/_area.html", {"m": result.match}, html)


def shared_area(loaded: LoadedMatch, seat: Seat | None, locale: str, log_after: int | None) -> str:
    """The board area of one version for ``seat`` (its log holding the lines after
    ``log_after``) as every viewer of that seat gets it, rendered once per version: the answer
    to the decision that made it and the live pushes (``live_pages``). It holds nothing of a
    session: a page puts its own CSRF token into its forms (static/js/board.js), and times
    read in UTC until static/js/times.js has run."""

    def render() -> str:
        m = pushes.seat_view(loaded, seat, locale, log_after)
        shared = {"user": None, "csrf_token": "", "page_locale": locale}
        return render_string(locale, "match/_area.html", {**area_context(m, locale), **shared})

    return loaded.built(("area", seat, locale, log_after), render)


@cache  # a game's templates come with its code: looked for once per process, not per render
def board_template(slug: str) -> str | None:
    name = f"games/{slug}/board.html"
    return name if (TEMPLATE_DIR / name).is_file() else None


def static_if_present(slug: str, filename: str) -> str | None:
    return f"/static/games/{slug}/{filename}" if (STATIC_DIR / "games" / slug / filename).is_file() else None


def game_title_in(slug: str, locale: str) -> str:
    try:
        title = get_game(slug).info.title
    except UnknownGame:
        return slug
    return title.get(locale) or title.get("en") or slug


def _id(user: UserOut | None) -> int | None:
    return user.id if user else None
