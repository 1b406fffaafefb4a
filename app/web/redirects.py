"""Redirect targets that come from the user: only paths on this site, always a valid header.

Every redirect to a user-supplied place (a login or registration ``next``, the language
switch, the login page a protected page sends you to) goes through ``safe_next``.
"""

from __future__ import annotations

import unicodedata
from urllib.parse import quote, unquote, urlsplit

HOME = "/"
_KEPT = "/?#&=+;:@!$'()*,~%-._"
"""Characters a path and query keep as they are; everything else is percent-encoded."""


def safe_next(target: str | None) -> str:
    """``target`` when it is a path on this site, else ``HOME``; never an exception.

    The target, as given and once more percent-decoded, must start with exactly one ``/``
    and hold no backslash, no control, format or white-space character, no scheme and no
    host: ``/%09/evil.example`` is ``/\\t/evil.example`` after decoding, which browsers read
    as ``//evil.example``. Non-ASCII is percent-encoded, so the answer is a valid header.
    """
    if not target or not all(_is_local(form) for form in (target, unquote(target))):
        return HOME
    return quote(target, safe=_KEPT)


def with_next(page: str, target: str) -> str:
    """``page`` (the login or registration form) that returns to ``target`` afterwards."""
    return f"{page}?next={quote(safe_next(target), safe='/')}"


def _is_local(path: str) -> bool:
    if not path.startswith("/") or path[1:2] in ("/", "\\") or "\\" in path:
        return False
    if any(unicodedata.category(c)[0] in "CZ" or c.isspace() for c in path):
        return False
    parts = urlsplit(path)
    return not parts.scheme and not parts.netloc
