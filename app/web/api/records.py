"""Match records over HTTP: download a finished match's record, upload one to import it, and
the analysis of a finished match."""

from __future__ import annotations

import dataclasses
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.responses import PlainTextResponse, Response

from app.services.errors import InvalidInput
from app.services.records import analysis as analyses
from app.services.records import store
from app.web.api.responses import errors
from app.web.deps import CsrfChecked, CurrentUser, Locale, SessionDep

router = APIRouter(tags=["records"], dependencies=[CsrfChecked])

NOT_TEXT = "a record is UTF-8 text"


@router.get(
    "/matches/{match_id}/record",
    responses={
        200: {
            "description": "The record (docs/records.md)",
            "content": {"text/plain": {"schema": {"type": "string"}}},
        },
        **errors(403, 404),
    },
)
async def match_record(db: SessionDep, locale: Locale, match_id: int) -> Response:
    """The text record of a finished match (403 while it runs: nothing of it is published)."""
    record = await store.export(db, match_id=match_id, locale=locale)
    return PlainTextResponse(
        record.text,
        headers={"Content-Disposition": f'attachment; filename="{record.filename}"'},
    )


class ImportedOut(BaseModel):
    id: int = Field(description="The new imported match")
    replay: str = Field(description="Its replay page")


@router.post(
    "/records",
    status_code=201,
    response_model=ImportedOut,
    responses=errors(401, 403, 422, 429),
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"text/plain": {"schema": {"type": "string", "maxLength": store.MAX_RECORD_BYTES}}},
        }
    },
)
async def import_record(request: Request, db: SessionDep, user: CurrentUser) -> Response:
    """Upload a record (the body, ``text/plain``): 201 with the new imported match's id, or 422
    with the ``line`` and the reason the engine refused it at."""
    text = await read_text(request)
    try:
        match_id = await store.import_record(db, user_id=user.id, text=text)
    except store.RecordRefused as refused:
        return JSONResponse(
            {"detail": refused.reason, "line": refused.line, "decision": refused.decision}, status_code=422
        )
    return JSONResponse({"id": match_id, "replay": f"/matches/{match_id}/replay"}, status_code=201)


async def read_text(request: Request) -> str:
    try:
        return (await request.body()).decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(NOT_TEXT) from None


@router.get("/matches/{match_id}/analysis", responses=errors(403, 404))
async def match_analysis(db: SessionDep, match_id: int) -> dict[str, Any]:
    """The strong bot's view of a finished match, step by step (403 while the match runs).

    ``state`` is ``running`` while the background analysis goes on (``done`` of ``steps``),
    then ``done``. Each item: ``step``; ``chances`` (each seat's estimated chance to win before
    that step, summing to 1); ``seat``, ``played`` and ``best`` (moves in the game's notation),
    ``played_value`` and ``best_value`` (the acting seat's estimated chance after each).
    The last item (``final``) holds the chances at the end."""
    view = await analyses.analysis(db, match_id=match_id)
    return dataclasses.asdict(view)
