"""axe-core on the platform's pages (issue 13): the lobby, a match of each game, a replay and
"my matches", in German and English, have no serious or critical violations.

axe-core is an npm package kept for these tests only (tests/browser/axe, installed by
``npm ci --prefix tests/browser/axe`` in .ci/run) and never served: it is injected into the
page by Playwright, in a context that lets it past the page's strict CSP.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.pages import DESKTOP, api_client, register_apart
from tests.support.client import request_id
from tests.support.server import Server

pytestmark = pytest.mark.browser
AXE = Path(__file__).parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")
TIMEOUT_MS = 15_000

RUN_AXE = """async () => {
    const result = await axe.run(document, {resultTypes: ["violations"]});
    return result.violations.map(v => ({
        id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.slice(0, 4).map(n => n.target.join(" ")),
    }));
}"""


def _axe_missing() -> str | None:
    if AXE.is_file():
        return None
    if shutil.which("npm") is None:
        return "axe-core is not installed and node/npm are missing (apt-get install -y nodejs npm)"
    return "axe-core is not installed: npm ci --prefix tests/browser/axe"


@pytest.fixture(scope="module")
def pages(server: Server, browser: Any) -> Iterator[tuple[str, dict[str, str]]]:
    """A user with a running match of each game (a few decisions in) and the paths to check."""
    missing = _axe_missing()
    if missing:
        if os.environ.get("DRACHENHORT_REQUIRE_BROWSER") == "1":
            pytest.fail(missing)
        pytest.skip(missing)
    base = server.base_url
    other, me = register_apart(browser, base), register_apart(browser, base)
    mine, _ = api_client(base, me)
    theirs, _ = api_client(base, other)
    paths = {"lobby": "/", "my matches": "/matches"}
    try:
        for game in ("draco", "drachenland", "felsental"):
            created = mine.post(
                "/api/matches", json={"game": game, "seats": 2, "invite": [other], "fixed_order": True}
            )
            assert created.status_code == 201, created.text
            match_id = int(created.json()["id"])
            assert theirs.post(f"/api/matches/{match_id}/join", json={}).status_code == 204
            _a_few_decisions(match_id, [mine, theirs])
            paths[game] = f"/matches/{match_id}"
        paths["replay"] = f"{paths['draco']}/replay?step=2"
    finally:
        mine.close()
        theirs.close()
    yield me, paths


def _a_few_decisions(match_id: int, clients: list[Any]) -> None:
    for _ in range(3):
        for client in clients:
            view = client.get(f"/api/matches/{match_id}").json()
            if not view["legal"]:
                continue
            plays = [m for m in view["legal"] if m != "confirm"]
            confirm = "confirm" in view["legal"] and (view["can_undo"] or not plays)
            path, body = ("confirm", {}) if confirm else ("moves", {"move": plays[0]})
            answer = client.post(
                f"/api/matches/{match_id}/{path}",
                json={**body, "expected_version": view["version"], "request_id": request_id()},
            )
            assert answer.status_code == 200, answer.text


@pytest.mark.parametrize("locale", ["de-DE", "en-US"])
@pytest.mark.parametrize(
    "name",
    [
        "lobby",
        "draco",
        "drachenland",
        "felsental",
        "replay",
        "my matches",
    ],
)
def test_no_serious_accessibility_violations(
    server: Server, browser: Any, pages: tuple[str, dict[str, str]], name: str, locale: str
) -> None:
    user, paths = pages
    context = browser.new_context(locale=locale, viewport=DESKTOP, bypass_csp=True)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server.base_url}/login")
        page.fill("input[name=name]", user)
        page.fill("input[name=password]", "correct horse battery")
        page.click("form[action='/login'] button[type=submit]")
        page.wait_for_url(f"{server.base_url}/")
        page.goto(f"{server.base_url}{paths[name]}")
        page.wait_for_load_state("load")
        page.wait_for_timeout(300)  # the badges and the live area have settled
        page.add_script_tag(path=str(AXE))
        found = [v for v in page.evaluate(RUN_AXE) if v["impact"] in SERIOUS]
        assert not found, "\n".join(f"{v['impact']} {v['id']}: {v['help']} {v['nodes']}" for v in found)
    finally:
        context.close()
