"""Every model in one import, for Alembic and the services."""

from app.db import async_play  # noqa: F401 - its tables belong to Base.metadata too (revision 0002)
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
