"""`make screenshots`: PNGs of the boards and pages, for people to look at (not a test).

Starts its own server on a fresh SQLite file, sets positions up over the JSON API and photographs
every registered shot at 1366 px and at 390 × 844, in German and in English, into
``var/screenshots/`` (``<shot>-<locale>-<width>.png``; and ``…-top.png``, the first screen as
the player sees it before scrolling).

Shots come from scenes (tests/browser/studio.py) registered in the modules
``tests/browser/shots_*.py``, found by name: a new module needs no edit here.

    .venv/bin/python -m tests.browser.screenshots [--only draco] [--out var/screenshots]
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.browser.conftest import CHROMIUM
from tests.browser.pages import log_in
from tests.browser.studio import SCENES, Shot, Studio
from tests.support.db import fresh_database
from tests.support.server import ROOT, Server

LOCALES = ("de", "en")
DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
SETTLE_MS = 400
"""After the page has loaded: the live stream connects and may refresh the area once."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], help="scene name (repeatable)")
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "screenshots")
    args = parser.parse_args(argv)
    _load_shot_modules()
    unknown = set(args.only) - set(SCENES)
    if unknown:
        parser.error(f"unknown scene(s): {', '.join(sorted(unknown))}; known: {', '.join(sorted(SCENES))}")
    if not CHROMIUM.exists():
        parser.error(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    written = 0
    with tempfile.TemporaryDirectory(prefix="drachenhort-shots-") as tmp, _server(Path(tmp)) as server:
        studio = Studio(server.base_url)
        shots = [s for name, fn in SCENES.items() if not args.only or name in args.only for s in fn(studio)]
        for path in _photograph(server.base_url, shots, args.out):
            print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
            written += 1
    print(f"{written} screenshots in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


# --- private helpers -------------------------------------------------------------------------


def _load_shot_modules() -> None:
    here = Path(__file__).parent
    for info in pkgutil.iter_modules([str(here)]):
        if info.name.startswith("shots_"):
            importlib.import_module(f"tests.browser.{info.name}")


class _server:
    """A server on a fresh SQLite database in ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._database = fresh_database(directory)

    def __enter__(self) -> Server:
        url = self._database.__enter__()
        self.server = Server(url, self.directory / "server")
        self.server.start()
        return self.server

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
        self._database.__exit__(None, None, None)


def _photograph(base_url: str, shots: list[Shot], out: Path) -> Iterator[Path]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            for shot in shots:
                for locale in LOCALES:
                    for viewport in (DESKTOP, PHONE):
                        yield from _take(browser, base_url, shot, locale, viewport, out)
        finally:
            browser.close()


def _take(
    browser: Any, base_url: str, shot: Shot, locale: str, viewport: dict[str, int], out: Path
) -> Iterator[Path]:
    context = browser.new_context(
        viewport=viewport,
        locale="de-DE" if locale == "de" else "en-US",
        timezone_id="Europe/Berlin" if locale == "de" else "Europe/London",  # times in the reader's zone
    )
    try:
        if shot.viewer is not None:
            log_in(context, base_url, shot.viewer.name, locale)
        else:
            # A visitor's cookie decides the page's language.
            request = context.request
            csrf = request.get(f"{base_url}/api/auth/csrf").json()["csrf_token"]
            request.post(f"{base_url}/locale", form={"locale": locale, "csrf_token": csrf, "next": "/"})
        page = context.new_page()
        page.goto(f"{base_url}{shot.path}")
        page.wait_for_timeout(SETTLE_MS)
        if shot.prepare is not None:
            shot.prepare(page)
        stem = f"{shot.name}-{locale}-{viewport['width']}"
        full = out / f"{stem}.png"
        page.screenshot(path=str(full), full_page=True)
        yield full
        # The first screen as the player sees it before scrolling (a board must fit 1366 x 768).
        top = out / f"{stem}-top.png"
        page.screenshot(path=str(top))
        yield top
    finally:
        context.close()


if __name__ == "__main__":
    sys.exit(main())
