"""Every model in one import, for Alembic and the services."""

from app.db import (  # noqa: F401 - friends, blocks and statistics (revision 0008)
    async_play,
    social,
    stats,
)
from app.db.accounts import Throttle, User, UserSession
from app.db.base import Base
from app.db.matches import LoggedMove, Match, MatchSeat, MatchStatus, Message, MoveRequest
from app.db.records import ImportedMatch, MatchAnalysis

__all__ = [
    "Base",
    "ImportedMatch",
    "LoggedMove",
    "Match",
    "MatchAnalysis",
    "MatchSeat",
    "MatchStatus",
    "Message",
    "MoveRequest",
    "Throttle",
    "User",
    "UserSession",
]
