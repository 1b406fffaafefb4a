"""The import page: upload a match record (a file or pasted text) and get its replay."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.datastructures import UploadFile
from starlette.responses import Response

from app.services.errors import InvalidInput
from app.services.records import store
from app.web.deps import CsrfChecked, CurrentUser, Locale, SessionDep
from app.web.pages.common import page, redirect

router = APIRouter(dependencies=[CsrfChecked], include_in_schema=False)

IMPORT_PAGE = "/records/import"
RECORD_UPLOADS = ("/api/records", IMPORT_PAGE)
"""The paths that take a body as large as a record (``app.web.limits``)."""
MAX_PASTED_SHOWN = 200_000
"""A refused record is shown again in the text area up to this many characters."""


@router.get(IMPORT_PAGE)
async def import_form(request: Request, user: CurrentUser, locale: Locale) -> Response:
    return page(request, "records/import.html", locale=locale, user=user, text="", error=None, line=None)


@router.post(IMPORT_PAGE)
async def import_upload(request: Request, db: SessionDep, user: CurrentUser, locale: Locale) -> Response:
    form = await request.form(max_part_size=store.MAX_RECORD_BYTES + 1)
    upload, pasted = form.get("file"), form.get("record")
    text = ""
    try:
        if isinstance(upload, UploadFile) and upload.filename:
            raw = await upload.read(store.MAX_RECORD_BYTES + 1)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise InvalidInput("a record is UTF-8 text") from None
        elif isinstance(pasted, str):
            text = pasted
        if not text.strip():
            raise InvalidInput("choose a record file or paste a record")
        match_id = await store.import_record(db, user_id=user.id, text=text)
    except InvalidInput as refused:
        line = refused.line if isinstance(refused, store.RecordRefused) else None
        return page(
            request,
            "records/import.html",
            locale=locale,
            user=user,
            status_code=422,
            text=text[:MAX_PASTED_SHOWN],
            error=refused.reason,
            line=line,
        )
    return redirect(f"/matches/{match_id}/replay", request)
