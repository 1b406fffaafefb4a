"""Every model in one import, for Alembic and the services."""

from app.db import (
    async_play,  # noqa: F401 - its tables belong to Base.metadata too (revision 0002)
    tournaments,  # noqa: F401 - its tables belong to Base.metadata too (revision 0009)
)
from app.db.accounts import Throttle, User, UserSession
from app.db.base import Base
from app.db.matches import LoggedMove, Match, MatchSeat, MatchStatus, Message, MoveRequest

__all__ = [
    "Base",
    "LoggedMove",
    "Match",
    "MatchSeat",
    "MatchStatus",
    "Message",
    "MoveRequest",
    "Throttle",
    "User",
    "UserSession",
]
