"""The JSON API under /api: the same services as the pages, pydantic in and out."""

from __future__ import annotations

from fastapi import APIRouter

from app.web.api import auth, games, matches, moves, play

router = APIRouter(prefix="/api")
router.include_router(moves.decisions)  # first: the routes a match uses most are found soonest
router.include_router(moves.router)
router.include_router(auth.router)
router.include_router(games.router)
router.include_router(matches.router)
router.include_router(play.router)
