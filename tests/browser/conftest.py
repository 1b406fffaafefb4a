"""Browser fixtures: Playwright driving Debian's Chromium against the web tests' server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import server  # noqa: F401 - the shared uvicorn process

CHROMIUM = Path("/usr/bin/chromium")
MISSING = "Debian's chromium is not installed (apt-get install -y chromium)"


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        if os.environ.get("DRACHENHORT_REQUIRE_BROWSER") == "1":
            pytest.fail(MISSING)
        pytest.skip(MISSING)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield chromium
        chromium.close()
