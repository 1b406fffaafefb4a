"""Screenshot scenes of computer opponents: the create form's choice, a waiting table that can be
filled with bots, and a running Draco match against two bots (``make screenshots --only bots``)."""

from __future__ import annotations

import time
from typing import Any

from tests.browser.studio import Shot, Studio, scene


def _open_create_form(page: Any) -> None:
    page.locator("#game-draco summary").click()
    page.locator("#game-draco select[name=bots]").select_option("normal")


@scene("bots")
def bots(studio: Studio) -> list[Shot]:
    (host,) = studio.users("wanda")
    table = int(host.post("/api/matches", {"game": "draco", "seats": 4})["id"])
    against = int(host.post("/api/matches", {"game": "draco", "seats": 3, "bots": "easy"})["id"])
    for _ in range(20):  # a few turns: the person's, then the bots' (they answer at once)
        view = studio.view(against, host)
        if view["viewer_seat"] not in view["to_act"]:
            time.sleep(0.2)
            continue
        move = "confirm" if "confirm" in view["legal"] else studio.random.choice(view["legal"])
        studio.decide(against, host, move, view["version"])
    return [
        Shot("bots-create-form", "/", host, _open_create_form),
        Shot("bots-open-table", f"/matches/{table}", host),
        Shot("bots-match", f"/matches/{against}", host),
    ]
