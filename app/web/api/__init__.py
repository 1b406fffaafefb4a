"""The JSON API under /api: the same services as the pages, pydantic in and out."""

from __future__ import annotations

from fastapi import APIRouter

from app.web.api import auth, games, matches, play

router = APIRouter(prefix="/api")
router.include_router(auth.router)
router.include_router(games.router)
router.include_router(matches.router)
router.include_router(play.router)
