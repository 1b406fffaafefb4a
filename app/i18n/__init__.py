"""The UI languages: Babel PO catalogues compiled in memory at start (no .mo files on disk)."""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path

from babel import Locale as BabelLocale
from babel.core import UnknownLocaleError
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

LOCALES: tuple[str, ...] = ("de", "en")
DEFAULT_LOCALE = "en"
LOCALE_DIR = Path(__file__).parent / "locales"


@cache
def translations(locale: str) -> Translations:
    """The gettext translations of ``locale``, read from its PO file once per process."""
    path = LOCALE_DIR / locale / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as fp:
        catalog = read_po(fp, locale=locale)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Translations(fp=buffer)


def normalise(locale: str | None) -> str | None:
    """``"de-DE"`` -> ``"de"``; None for a language we do not offer."""
    if not locale:
        return None
    lang = locale.replace("_", "-").split("-")[0].lower()
    return lang if lang in LOCALES else None


def negotiate(accept_language: str | None) -> str:
    """The best offered locale for an Accept-Language header (Babel's negotiation)."""
    preferred: list[tuple[float, str]] = []
    for index, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        if tag and quality > 0:
            # Stable by position for equal quality.
            preferred.append((-quality + index * 1e-6, tag.replace("-", "_")))
    tags = [tag for _, tag in sorted(preferred)]
    try:
        chosen = BabelLocale.negotiate(tags, list(LOCALES), sep="_")
    except (UnknownLocaleError, ValueError):
        chosen = None
    if chosen is None:
        return DEFAULT_LOCALE
    return normalise(chosen.language) or DEFAULT_LOCALE
