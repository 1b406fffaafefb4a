"""The games on offer."""

from __future__ import annotations

from fastapi import APIRouter

from app.services import lobby
from app.services.schemas import GameOut

router = APIRouter(tags=["games"])


@router.get("/games")
async def list_games() -> list[GameOut]:
    return lobby.list_games()
