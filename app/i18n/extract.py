"""Maintenance: extract UI strings into the de/en catalogues (``python -m app.i18n.extract``).

New strings arrive untranslated; fill in ``msgstr`` in the German catalogue. English
falls back to the msgid. Only PO files are kept in git; they are compiled in memory at start.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from babel.messages.pofile import read_po, write_po

from app.i18n import LOCALE_DIR, LOCALES

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    pot = ROOT / "var" / "messages.pot"
    pot.parent.mkdir(parents=True, exist_ok=True)
    pybabel = Path(sys.executable).with_name("pybabel")
    subprocess.run(
        [
            str(pybabel),
            "extract",
            "-F",
            "app/i18n/babel.cfg",
            "-k",
            "_",
            "-k",
            "gettext",
            "-k",
            "N_",
            "--omit-header",
            "-o",
            str(pot),
            ".",
        ],
        cwd=ROOT,
        check=True,
    )
    with pot.open("rb") as fp:
        template = read_po(fp)
    for locale in LOCALES:
        path = LOCALE_DIR / locale / "LC_MESSAGES" / "messages.po"
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            with path.open("rb") as fp:
                catalog = read_po(fp, locale=locale)
        else:
            from babel.messages.catalog import Catalog

            catalog = Catalog(locale=locale, project="Drachenhort")
        catalog.update(template, no_fuzzy_matching=True)
        with path.open("wb") as fp:
            write_po(fp, catalog, omit_header=False, width=110, sort_output=True, ignore_obsolete=True)
        missing = [m.id for m in catalog if m.id and not m.string and locale != "en"]
        print(f"{locale}: {len(catalog)} messages, {len(missing)} untranslated")


if __name__ == "__main__":
    main()
