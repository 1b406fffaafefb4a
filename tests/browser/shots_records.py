"""Screenshot scenes of match records and analysis: the import page (empty, and a refused record),
and the replay of an imported match with the analysis graph (``make screenshots``)."""

from __future__ import annotations

import time
from typing import Any

from tests.browser.studio import Shot, Studio, scene
from tests.support.records import play_match, record_of

ANALYSIS_SECONDS = 120


def _refused(page: Any) -> None:
    text = record_of(play_match("draco", 2, {}, number=11))
    lines = text.split("\n")
    index = next(i for i, line in enumerate(lines) if line.startswith("12. "))
    lines[index] = lines[index].rsplit(": ", 1)[0] + ": play:purple:9"
    page.fill("#record-text", "\n".join(lines))
    page.click("#import-form button[type=submit]")
    page.wait_for_selector("#import-error")


@scene("records")
def records(studio: Studio) -> list[Shot]:
    (user,) = studio.users("vera")
    text = record_of(play_match("draco", 2, {}, number=11))
    answer = user.client.post(
        "/api/records",
        content=text.encode(),
        headers={"X-CSRF-Token": user.csrf, "Content-Type": "text/plain"},
    )
    if answer.status_code != 201:
        raise RuntimeError(f"import: {answer.status_code} {answer.text}")
    match_id = int(answer.json()["id"])
    deadline = time.monotonic() + ANALYSIS_SECONDS
    while user.get(f"/api/matches/{match_id}/analysis")["state"] != "done":
        if time.monotonic() > deadline:
            raise RuntimeError("the analysis did not finish")
        time.sleep(1.0)
    # A step where the bot would have chosen otherwise, so the panel shows both moves.
    items = user.get(f"/api/matches/{match_id}/analysis")["items"]
    differs = next(
        i["step"]
        for i in items
        if i.get("best_value") is not None and i["best_value"] - i["played_value"] > 0.05 and i["step"] > 10
    )
    return [
        Shot("record-import", "/records/import", user),
        Shot("record-import-refused", "/records/import", user, _refused),
        Shot("replay-analysis", f"/matches/{match_id}/replay?step={differs}", user),
        Shot("replay-analysis-visitor", f"/matches/{match_id}/replay?step=0", None),
    ]
