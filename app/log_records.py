"""Log lines cannot be forged or broken by what clients send.

A path, a name or a database error may carry control characters (NUL, a line feed, a
terminal escape) chosen by a client; written as they are they cut a log line in two, forge
a line of their own or drive the terminal that shows the log. Every log record's message is
escaped (``\\x00``, ``\\n``, ``\\x1b``) whoever formats it, and so is a traceback's text,
apart from the line feeds between its lines.
"""

from __future__ import annotations

import logging
import re
import traceback
from typing import Any

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_CONTROL_BUT_LINE_FEED = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def escape_controls(text: str, pattern: re.Pattern[str] = _CONTROL) -> str:
    """``text`` with each control character (and lone surrogate) ``pattern`` finds escaped."""
    return pattern.sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


class EscapedLogRecord(logging.LogRecord):
    """A log record whose message and traceback carry no raw control characters."""

    def getMessage(self) -> str:
        return escape_controls(super().getMessage())

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.exc_info and self.exc_info[0] is not None:
            text = "".join(traceback.format_exception(*self.exc_info)).rstrip("\n")
            self.exc_text = escape_controls(text, _CONTROL_BUT_LINE_FEED)


def install() -> None:
    """Make every log record of this process an ``EscapedLogRecord`` (once is enough)."""
    logging.setLogRecordFactory(EscapedLogRecord)
