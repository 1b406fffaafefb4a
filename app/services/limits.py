"""What one user may create, and how fast: open tables, running bot matches, invitations, chat.

Counts of what exists (open tables, bot matches) fall again when tables start or end; rates
(invitations, chat lines) are quotas per window. Each limit is a setting (``app.config``);
the services take a ``Limits`` and default to these values.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from app.config import Settings
from app.services.throttle import Quota

OPEN_TABLES = 10
BOT_MATCHES = 20
INVITATIONS_PER_HOUR = 30
CHAT_LINES_PER_MINUTE = 20

TOO_MANY_TABLES = "you have too many open tables: start or cancel one first"
TOO_MANY_BOT_MATCHES = "you have too many running matches against the computer: finish one first"
TOO_MANY_INVITATIONS = "you have sent too many invitations: please wait a while"
TOO_MANY_CHAT_LINES = "you are writing too fast: please wait a moment"


@dataclass(frozen=True, slots=True)
class Limits:
    open_tables: int = OPEN_TABLES
    """Waiting tables one user has opened (a full table starts and no longer counts)."""
    bot_matches: int = BOT_MATCHES
    """Open or running matches with a computer opponent that one user has opened."""
    invitations_per_hour: int = INVITATIONS_PER_HOUR
    """Seats one user may reserve for others (each invited player counts) per hour."""
    chat_lines_per_minute: int = CHAT_LINES_PER_MINUTE
    """Chat messages one user may post per minute, over all their tables."""

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        return cls(
            open_tables=settings.open_tables_per_user,
            bot_matches=settings.bot_matches_per_user,
            invitations_per_hour=settings.invitations_per_hour,
            chat_lines_per_minute=settings.chat_lines_per_minute,
        )

    @property
    def invitations(self) -> Quota:
        return Quota(per=self.invitations_per_hour, window=timedelta(hours=1))

    @property
    def chat_lines(self) -> Quota:
        return Quota(per=self.chat_lines_per_minute, window=timedelta(minutes=1))


def tables_key(user_id: int) -> str:
    return f"tables@user:{user_id}"


def invitations_key(user_id: int) -> str:
    return f"invite@user:{user_id}"


def chat_key(user_id: int) -> str:
    return f"chat@user:{user_id}"
