"""The catalogues: every UI string extracted, every German string translated, negotiation."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from app.i18n import LOCALE_DIR, negotiate, translations
from app.web.templating import environment

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


@pytest.mark.parametrize("locale", ["de", "en"])
def test_templates_translate_as_jinja_newstyle_gettext_does(locale: str) -> None:
    """The pages' own ``_`` (app/web/templating.py) answers as Jinja's newstyle ``_`` with
    autoescape on: every string of the catalogue, and variables escaped into a translation."""
    jinja = jinja2.Environment(autoescape=True, extensions=["jinja2.ext.i18n"])
    jinja.install_gettext_translations(translations(locale), newstyle=True)  # type: ignore[attr-defined]
    ours = environment(locale)
    source = "{{ _(message, **variables) }}|{{ _(message, **variables) }}"
    tried = 0
    # The last: not in the catalogue, a literal percent and markup in the message itself.
    for message in [*catalogue(locale), "100%% of <i>%(what)s</i>"]:
        if not isinstance(message, str):
            continue  # a plural: {% trans %} blocks, Jinja's own ngettext
        names = re.findall(r"%\((\w+)\)", message)
        variables = {name: f"<b>{name} & 'x'</b>" for name in names}
        context = {"message": message, "variables": variables}
        expected = jinja.from_string(source).render(context)
        assert ours.from_string(source).render(context) == expected, message
        tried += 1 + bool(names)
    assert tried > 400
