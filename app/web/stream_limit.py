"""At most ``MAX_STREAMS_PER_ACCOUNT`` open live streams per account and worker.

Every open tab holds a stream for hours; without a cap one account could hold thousands and
with them the worker's memory. The count is per process (a worker knows its own streams
without asking anyone), so behind N workers an account may hold up to N times the cap.
"""

from __future__ import annotations

from app.services.errors import RateLimited
from app.web.reasons import N_

MAX_STREAMS_PER_ACCOUNT = 50
TOO_MANY_STREAMS = N_("you have too many live pages open: close some first")
RETRY_AFTER_SECONDS = 30


class StreamSlots:
    """The open streams of each account in this process."""

    def __init__(self, limit: int = MAX_STREAMS_PER_ACCOUNT) -> None:
        self.limit = limit
        self._open: dict[int, int] = {}

    def take(self, user_id: int) -> Slot:
        """A slot for one more stream of ``user_id``; 429 (RateLimited) when it holds them all."""
        held = self._open.get(user_id, 0)
        if held >= self.limit:
            raise RateLimited(TOO_MANY_STREAMS, retry_after=RETRY_AFTER_SECONDS)
        self._open[user_id] = held + 1
        return Slot(self, user_id)

    def held(self, user_id: int) -> int:
        return self._open.get(user_id, 0)

    def _give_back(self, user_id: int) -> None:
        held = self._open.get(user_id, 0) - 1
        if held > 0:
            self._open[user_id] = held
        else:
            self._open.pop(user_id, None)


class Slot:
    """One stream's place; given back once (``release``, or when the stream is dropped without
    ever starting: a client that went away before its first byte)."""

    __slots__ = ("_slots", "_user_id")

    def __init__(self, slots: StreamSlots, user_id: int) -> None:
        self._slots: StreamSlots | None = slots
        self._user_id = user_id

    def release(self) -> None:
        if self._slots is not None:
            slots, self._slots = self._slots, None
            slots._give_back(self._user_id)

    def __del__(self) -> None:
        self.release()
