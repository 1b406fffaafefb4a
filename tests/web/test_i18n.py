"""The catalogues: every UI string extracted, every German string translated, negotiation."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from app.i18n import LOCALE_DIR, negotiate, translations

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "app" / "i18n" / "babel.cfg"
"""What ``python -m app.i18n.extract`` reads: the test looks where the extraction looks."""


def extracted_ids() -> set[str]:
    with CONFIG.open() as fp:
        methods, options = parse_mapping_cfg(fp)
    ids = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT), methods, options, keywords={"_": None, "gettext": None, "N_": None}
    ):
        ids.add(message if isinstance(message, str) else message[0])
    return ids


def catalogue(locale: str) -> dict[str, str]:
    with (LOCALE_DIR / locale / "LC_MESSAGES" / "messages.po").open("rb") as fp:
        return {m.id: m.string for m in read_po(fp, locale=locale, abort_invalid=True) if m.id}  # type: ignore[misc]


def test_every_ui_string_is_in_both_catalogues() -> None:
    wanted = extracted_ids()
    assert len(wanted) > 50
    for locale in ("de", "en"):
        missing = wanted - set(catalogue(locale))
        assert not missing, f"run python -m app.i18n.extract; missing in {locale}: {sorted(missing)}"


def test_every_german_string_is_translated() -> None:
    untranslated = [msgid for msgid, text in catalogue("de").items() if not text]
    assert untranslated == []


def test_compiled_in_memory() -> None:
    assert translations("de").gettext("Open matches") == "Offene Partien"
    assert translations("en").gettext("Open matches") == "Open matches"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("en-US,en;q=0.9", "en"),
        ("fr, de;q=0.5", "de"),
        ("", "en"),
        ("fr", "en"),
    ],
)
def test_accept_language_negotiation(header: str, expected: str) -> None:
    assert negotiate(header) == expected
