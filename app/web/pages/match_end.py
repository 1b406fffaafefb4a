"""A match's clock panel and the actions beyond the rules: resign, draw, vote, rematch."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from starlette.responses import Response

from app.i18n import translations
from app.services import clocks, conclusions, stand_ins
from app.services._rows import game_title
from app.services.errors import InvalidInput
from app.services.play import get_match
from app.services.schemas import UserOut
from app.web.deps import CsrfChecked, CurrentUser, LimitsDep, Locale, OptionalUser, SessionDep
from app.web.pages.common import page, redirect
from app.web.pages.confirm import CONFIRMED, Confirmed, Question, ask
from app.web.pages.lobby import days_per_move

router = APIRouter(dependencies=[CsrfChecked], include_in_schema=False)


@router.get("/matches/{match_id}/clock")
async def clock_panel(
    request: Request, db: SessionDep, user: OptionalUser, locale: Locale, match_id: int
) -> Response:
    """The partial under the board: deadline, concessions, draw offer, vote, rematch, next match."""
    view = await get_match(db, match_id=match_id, viewer_id=user.id if user else None, locale=locale)
    clock = await conclusions.get_clock(db, match_id=match_id)
    return page(request, "play/_clock.html", locale=locale, user=user, match=view, clock=clock)


@router.post("/matches/{match_id}/time-control")
async def set_time_control(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    match_id: int,
    days: Annotated[str, Form(max_length=4)] = "",
    policy: Annotated[str, Form(max_length=16)] = "timeout_move",
) -> Response:
    await clocks.set_time_control(
        db, match_id=match_id, user_id=user.id, days_per_move=days_per_move(days), policy=policy
    )
    return redirect(f"/matches/{match_id}", request)


@router.post("/matches/{match_id}/take-back")
async def take_back(request: Request, db: SessionDep, user: CurrentUser, match_id: int) -> Response:
    """Play your seat yourself again after a stand-in bot played it for you."""
    await stand_ins.take_back(db, match_id=match_id, user_id=user.id)
    return redirect(f"/matches/{match_id}", request)


@router.get("/matches/{match_id}/resign")
async def resign_question(
    request: Request, db: SessionDep, user: CurrentUser, locale: Locale, match_id: int
) -> Response:
    return ask(request, locale, user, await _resign_question(db, user, locale, match_id))


@router.post("/matches/{match_id}/resign")
async def resign(
    request: Request,
    db: SessionDep,
    user: CurrentUser,
    locale: Locale,
    match_id: int,
    confirmed: Confirmed = "",
) -> Response:
    if confirmed != CONFIRMED:
        return ask(request, locale, user, await _resign_question(db, user, locale, match_id))
    await conclusions.resign(db, match_id=match_id, user_id=user.id)
    return redirect(f"/matches/{match_id}", request)


async def _resign_question(db: SessionDep, user: UserOut, locale: str, match_id: int) -> Question:
    m = await conclusions.check_resign(db, match_id=match_id, user_id=user.id)
    tr = translations(locale)
    game = game_title(m.game, locale)
    others = [s.name or "" for s in m.seats if s.user_id != user.id]
    if len(others) == 1:
        follows = tr.gettext("The match ends now: %(name)s wins, and you are ranked second.") % {
            "name": others[0]
        }
    else:
        follows = tr.gettext(
            "You are ranked last. The others play on; the server makes your moves until the end."
        )
    return Question(
        title=tr.gettext("Resign from %(game)s #%(id)s?") % {"game": game, "id": m.id},
        consequences=[follows, tr.gettext("A rated match counts as lost. This cannot be undone.")],
        action=f"/matches/{m.id}/resign",
        button=tr.gettext("Yes, resign"),
        back=f"/matches/{m.id}",
    )


@router.post("/matches/{match_id}/draw/{answer}")
async def draw(request: Request, db: SessionDep, user: CurrentUser, match_id: int, answer: str) -> Response:
    """``offer``, ``accept``, ``decline`` (or withdraw one's own offer)."""
    if answer == "offer":
        await conclusions.offer_draw(db, match_id=match_id, user_id=user.id)
    elif answer in ("accept", "decline"):
        await conclusions.answer_draw(db, match_id=match_id, user_id=user.id, accept=answer == "accept")
    else:
        raise InvalidInput("a draw is offered, accepted or declined")
    return redirect(f"/matches/{match_id}", request)


@router.post("/matches/{match_id}/vote-end")
async def vote_end(request: Request, db: SessionDep, user: CurrentUser, match_id: int) -> Response:
    await conclusions.vote_end(db, match_id=match_id, user_id=user.id)
    return redirect(f"/matches/{match_id}", request)


@router.post("/matches/{match_id}/rematch")
async def rematch(
    request: Request, db: SessionDep, user: CurrentUser, limits: LimitsDep, match_id: int
) -> Response:
    new = await conclusions.rematch(db, match_id=match_id, user_id=user.id, limits=limits)
    return redirect(f"/matches/{new.id}", request)
