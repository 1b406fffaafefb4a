"""Browser fixtures: Playwright driving Debian's Chromium against the web tests' server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import Server
from tests.web.conftest import server  # noqa: F401 - the shared uvicorn process

CHROMIUM = Path("/usr/bin/chromium")
MISSING = "Debian's chromium is not installed (apt-get install -y chromium)"


@pytest.fixture(scope="module")
def browser(server: Server) -> Iterator[Any]:  # noqa: F811 - the imported fixture
    """Chromium for one test module.

    Playwright's sync API keeps its event loop running while it is open; module scope closes it
    before the next module's asyncio tests need a loop of their own. It depends on ``server``
    so that the server's database (made with ``asyncio.run``) exists before that loop starts.
    """
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
