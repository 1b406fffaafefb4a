"""The JSON API under /api: the same services as the pages, pydantic in and out."""

from __future__ import annotations

from fastapi import APIRouter

from app.web.api import auth, games, matches, moves, play, records, social, tournaments

decisions = APIRouter(prefix="/api")
"""Move, undo and confirm, included into the app before everything else: a request is routed
by trying the routes in order, and FastAPI walks every route of an included router on each
try, so the requests a match makes by the hundred are found first, among three."""
decisions.include_router(moves.decisions)

router = APIRouter(prefix="/api")
router.include_router(moves.router)
router.include_router(auth.router)
router.include_router(games.router)
router.include_router(matches.router)
router.include_router(play.router)
router.include_router(social.router)
router.include_router(records.router)
router.include_router(tournaments.router)
