"""What a chat message may hold: text a reader sees as it is, nothing that disguises it.

A message is kept NFC-normalised (composed: ``e`` + U+0301 is kept as ``é``) and stripped.
Refused, with a reason the page shows:

- control characters (line breaks and tabs aside);
- bidirectional controls (U+202E and its kind: they make text read backwards or out of order);
- invisible characters: every format character (Unicode category Cf: zero-width space, word
  joiner, soft hyphen, tags …) except a zero-width joiner between two symbols (the emoji
  sequences 👩‍💻), and the letters that show as blank space (the Hangul fillers);
- more than ``MARKS_MAX`` combining marks on one character (the marks would spill over the
  lines around: "Zalgo" text). Real scripts stack a few (Vietnamese, Hebrew points, Indic
  vowel signs), so the limit is generous for them.

The names rules (``app.services.names``) are the stricter model for what identifies someone;
chat is free text, so only what hides or fakes text is refused.
"""

from __future__ import annotations

import unicodedata

from app.services._rows import has_control_characters
from app.services.errors import InvalidInput

MESSAGE_MAX = 500
MARKS_MAX = 4
"""Combining marks allowed in a row (after NFC composition)."""

_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")
_ZWJ = "\u200d"
_MARKS = ("Mn", "Me")

EMPTY = "the message is empty"
CONTROL = "the message contains control characters"
TOO_LONG = f"a message has at most {MESSAGE_MAX} characters"
BIDI = "the message contains characters that change the direction of text"
INVISIBLE = "the message contains invisible characters"
MARKS = "the message stacks too many marks on one character"


def allowed(text: str) -> str:
    """The message as it is kept (NFC, stripped); ``InvalidInput`` saying why not."""
    text = unicodedata.normalize("NFC", text).strip()
    if not text:
        raise InvalidInput(EMPTY)
    if has_control_characters(text, allowed="\n\t"):
        raise InvalidInput(CONTROL)
    if len(text) > MESSAGE_MAX:
        raise InvalidInput(TOO_LONG)
    if any(c in _BIDI_CONTROLS for c in text):
        raise InvalidInput(BIDI)
    if any(_is_invisible(text, i) for i in range(len(text))):
        raise InvalidInput(INVISIBLE)
    if _longest_mark_run(text) > MARKS_MAX:
        raise InvalidInput(MARKS)
    return text


def _is_invisible(text: str, i: int) -> bool:
    c = text[i]
    if c in _BLANK_LETTERS:
        return True
    if unicodedata.category(c) != "Cf":
        return False
    return not (c == _ZWJ and _is_symbol_at(text, i - 1) and _is_symbol_at(text, i + 1))


def _is_symbol_at(text: str, i: int) -> bool:
    """A symbol (an emoji) at ``i``, looking past the variation selector or skin tone after it."""
    while 0 <= i < len(text) and unicodedata.category(text[i]) in ("Mn", "Sk"):
        i -= 1
    return 0 <= i < len(text) and unicodedata.category(text[i]) == "So"


def _longest_mark_run(text: str) -> int:
    longest = run = 0
    for c in text:
        run = run + 1 if unicodedata.category(c) in _MARKS else 0
        longest = max(longest, run)
    return longest
