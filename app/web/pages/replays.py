"""The replay page and its frame: step through a match, the board swapped without a page load.

``/matches/{id}/replay?step=N`` is the whole page (and the link to share); with scripts the
page fetches ``/matches/{id}/replay/frame?step=N`` (the board, the step's lines and the log)
and swaps it in, so stepping, the slider and autoplay never reload the page.
"""

from __future__ import annotations

from typing import Any

from babel.numbers import format_decimal, format_percent
from fastapi import APIRouter, Request
from starlette.responses import Response

from app.i18n import translations
from app.services import replays
from app.services.errors import Forbidden, NotFound
from app.services.records import analysis as analyses
from app.services.schemas import ReplayView, UserOut
from app.web.deps import CsrfChecked, Locale, OptionalUser, SessionDep
from app.web.pages.analysis_graph import COLOURS, graph_svg
from app.web.pages.common import page
from app.web.pages.matches import _named, board_template, game_title_in, log_items, static_if_present, ui_text

router = APIRouter(dependencies=[CsrfChecked], include_in_schema=False)

SPEEDS = (0.5, 1.0, 2.0, 4.0)
"""Autoplay's seconds per step."""


@router.get("/matches/{match_id}/replay")
async def replay_page(
    request: Request,
    db: SessionDep,
    user: OptionalUser,
    locale: Locale,
    match_id: int,
    step: int | None = None,
) -> Response:
    rv = await _replay(db, user, locale, match_id, step)
    found = await _analysis(db, rv)
    return page(
        request,
        "match/replay.html",
        locale=locale,
        user=user,
        game_title=game_title_in(rv.game, locale),
        game_css=static_if_present(rv.game, "board.css"),
        game_js=static_if_present(rv.game, "board.js"),
        speeds=[(s, format_decimal(s, locale=locale)) for s in SPEEDS],
        **frame_context(rv, locale, found),
    )


@router.get("/matches/{match_id}/replay/frame")
async def replay_frame(
    request: Request,
    db: SessionDep,
    user: OptionalUser,
    locale: Locale,
    match_id: int,
    step: int | None = None,
) -> Response:
    """One step's board, lines and log: what the page swaps in when stepping."""
    rv = await _replay(db, user, locale, match_id, step)
    found = await _analysis(db, rv)
    return page(
        request, "match/_replay_frame.html", locale=locale, user=user, **frame_context(rv, locale, found)
    )


async def _analysis(db: SessionDep, rv: ReplayView) -> analyses.AnalysisView | None:
    """The analysis of a finished match (started on its first showing); none for a running one."""
    if rv.status != "finished":
        return None
    try:
        return await analyses.analysis(db, match_id=rv.match_id)
    except (Forbidden, NotFound):
        return None


def analysis_context(
    rv: ReplayView, locale: str, found: analyses.AnalysisView | None, names: dict[int, str]
) -> dict[str, Any] | None:
    """The analysis panel of a step: the graph, the legend, and the bot's move beside the one played."""
    if found is None:
        return None
    seat_names = [names.get(s.seat) or f"{s.seat + 1}" for s in rv.seats]
    item = next((i for i in found.items if i["step"] == rv.step and "best" in i), None)
    step: dict[str, Any] | None = None
    if item is not None:

        def percent(value: float | None) -> str | None:
            return None if value is None else format_percent(value, locale=locale)

        step = {
            "same": item["best"] == item["played"],
            "forced": item["best_value"] is None,
            "played": _named(item["played_text"].get(locale, item["played"]).rstrip("."), names),
            "best": _named(item["best_text"].get(locale, item["best"]).rstrip("."), names),
            "chances": ", ".join(
                f"{name} {format_percent(chance, locale=locale)}"
                for name, chance in zip(seat_names, item["chances"], strict=False)
            ),
            "played_value": percent(item["played_value"]),
            "best_value": percent(item["best_value"]),
            "effect": None
            if item["best_value"] is None or item["played_value"] is None
            else round((item["played_value"] - item["best_value"]) * 100),
        }
    label = translations(locale).gettext("Each player's chance to win over the match")
    return {
        "state": found.state,
        "done": found.done,
        "steps": found.steps,
        "graph": graph_svg(
            found.items, rv.steps, rv.step, seat_names, f"/matches/{rv.match_id}/replay", label
        ),
        "legend": [(name, COLOURS[i % len(COLOURS)]) for i, name in enumerate(seat_names)],
        "axis": [format_percent(v, locale=locale) for v in (1, 0.5, 0)],
        "step": step,
    }


def frame_context(rv: ReplayView, locale: str, found: analyses.AnalysisView | None = None) -> dict[str, Any]:
    """The frame's context, including the board partial contract (templates/games/README.md)."""
    names = {s.seat: s.name for s in rv.seats if s.name}
    return {
        "analysis": analysis_context(rv, locale, found, names),
        "rv": rv,
        "board_template": board_template(rv.game),
        "view": rv.view,
        "seat": rv.viewer_seat,
        "legal": [],
        "players": [{"seat": s.seat, "name": s.name or ""} for s in rv.seats],
        "replay": True,
        "t": ui_text(rv.game, locale),
        "actor": names.get(rv.seat) if rv.seat is not None else None,
        # A step's lines in the order they happened (log_items keeps a decision's lines in order).
        "step_html": log_items(rv.step_log, locale, names) if rv.step_log else None,
        "log_html": log_items(rv.log, locale, names),
    }


async def _replay(
    db: SessionDep, user: UserOut | None, locale: str, match_id: int, step: int | None
) -> ReplayView:
    # No step means the end of the match; a negative one the setup.
    wanted = None if step is None else max(0, step)
    return await replays.replay(
        db, match_id=match_id, viewer_id=user.id if user else None, step=wanted, locale=locale
    )
