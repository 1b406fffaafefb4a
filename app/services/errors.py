"""Domain errors: each carries a reason in plain words and the HTTP status the web maps it to.

The services know nothing of HTTP; ``status`` is only a hint for the web's single handler.
"""

from __future__ import annotations


class DomainError(Exception):
    status: int = 400

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class NotFound(DomainError):
    status = 404


class Forbidden(DomainError):
    status = 403


class NotYourTurn(Forbidden):
    status = 403


class Conflict(DomainError):
    status = 409


class StaleVersion(Conflict):
    """The client saw an older version of the match; ``current_version`` is the newest."""

    status = 409

    def __init__(self, reason: str, *, current_version: int) -> None:
        super().__init__(reason)
        self.current_version = current_version


class NameTaken(Conflict):
    status = 409


class InvalidInput(DomainError):
    status = 422


class IllegalMoveError(InvalidInput):
    """The rules refuse the move; ``reason`` is the rules' own reason."""

    status = 422


class BadCredentials(DomainError):
    status = 401


class RateLimited(DomainError):
    """Too many attempts: ``retry_after`` seconds until the next one is counted."""

    status = 429

    def __init__(self, reason: str, *, retry_after: int | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class Unavailable(DomainError):
    """The database cannot be reached; the client should retry."""

    status = 503
