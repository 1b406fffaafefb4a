"""Every model in one import, for Alembic and the services."""

from app.db import (  # noqa: F401 - their tables belong to Base.metadata too
    async_play,  # revision 0002
    social,  # friends and blocks (revision 0008)
    stats,  # statistics kept at a match's end (revision 0008)
    tournaments,  # revision 0009
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
