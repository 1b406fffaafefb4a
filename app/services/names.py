"""User names: which are allowed, and when two are the same or look alike.

- A name is kept as typed, widths folded (RFC 8265's UsernameCasePreserved profile, through
  ``precis-i18n``: ``Ａｄｍｉｎ`` is kept as ``Admin``): 2 to 24 letters, digits, ``_``, ``-``
  and ``.``, without compatibility forms (``²``, ``ǅ``), joiners or spaces.
- Its letters come from one script, or from one of the combinations Unicode TS #39 calls
  "highly restrictive" (Latin with Han and Japanese kana, with Han and Bopomofo, or with Han
  and Hangul); digits of one numbering system. ICU's spoof checker (PyICU) decides.
- Names are the same when their ``key`` is (widths and case folded: RFC 8265's
  UsernameCaseMapped with case folding), and too alike when their ``skeleton`` is (TS #39's
  confusable skeleton; as names ignore case, the skeleton is case folded and skeletonised
  again, so ``AIice`` with a capital I clashes with ``alice``).
- What reads like a computer opponent's name (``Bot easy 1``) is kept for the bots: on the
  skeleton without separators, "bot" alone, followed by digits, or by a bot level
  (``Bot_easy_1``, ``B0t.Easy.I`` and ``bot-strong`` are all refused).
"""

from __future__ import annotations

import unicodedata

import icu  # type: ignore[import-untyped]
from precis_i18n import get_profile

from app.services.errors import InvalidInput

NAME_MIN, NAME_MAX = 2, 24
KEY_MAX = 40
_PRESERVED = get_profile("UsernameCasePreserved")
_FOLDED = get_profile("UsernameCaseMapped:CaseFold")
_PUNCTUATION = "_-."
BOT_LEVELS = ("random", "easy", "normal", "strong")
"""The words after "Bot" in the bots' names (``app.bots.budget.Level``; kept here so the
name rules stay free of the bots' imports; a test holds the two together)."""


def _spoof_checker() -> icu.SpoofChecker:
    checker = icu.SpoofChecker()
    checker.setRestrictionLevel(icu.URestrictionLevel.HIGHLY_RESTRICTIVE)
    checks = icu.USpoofChecks
    checker.setChecks(checks.RESTRICTION_LEVEL | checks.MIXED_NUMBERS | checks.INVISIBLE)
    return checker


_CHECKER = _spoof_checker()


def allowed(name: str) -> str:
    """The name as it is kept (stripped, widths folded); ``InvalidInput`` saying why not."""
    name = name.strip()
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise InvalidInput(f"a name has {NAME_MIN} to {NAME_MAX} characters")
    try:
        kept: str = _PRESERVED.enforce(name)
    except UnicodeEncodeError:
        kept = ""
    if not kept or not all(c.isalnum() or c in _PUNCTUATION for c in kept):
        raise InvalidInput("a name may use letters, digits, '_', '-' and '.' only")
    if _CHECKER.check(kept):
        raise InvalidInput("a name may not mix letters of different scripts or digits of different kinds")
    if reads_like_a_bot(kept):
        raise InvalidInput("names that read like a bot's are kept for the computer opponents")
    return kept


def key(name: str) -> str:
    """The form in which names are compared (and looked up): widths and case folded."""
    name = name.strip()
    try:
        folded: str = _FOLDED.enforce(name)
    except UnicodeEncodeError:  # no new name looks like this: compare it as typed
        folded = unicodedata.normalize("NFC", name).casefold()
    return folded[:KEY_MAX]


def skeleton(name: str) -> str:
    """Equal for names a reader could take for each other (see the module doc)."""
    first: str = _CHECKER.getSkeleton(0, name.strip())
    again: str = _CHECKER.getSkeleton(0, first.casefold())
    return again


def reads_like_a_bot(name: str) -> bool:
    """True for a name a reader could take for a computer opponent's (see the module doc)."""
    bare = _bare_skeleton(name)
    bot = _bare_skeleton("Bot")
    if not bare.startswith(bot):
        return False
    rest = bare[len(bot) :]
    return all(c in _DIGIT_SKELETONS for c in rest) or rest.startswith(_LEVEL_SKELETONS)


def _bare_skeleton(name: str) -> str:
    """The skeleton without anything that is not a letter or digit (spaces and separators)."""
    return "".join(c for c in skeleton(name) if c.isalnum())


_DIGIT_SKELETONS = frozenset("".join(_bare_skeleton(d) for d in "0123456789"))
_LEVEL_SKELETONS = tuple(_bare_skeleton(level) for level in BOT_LEVELS)
