"""Screenshot scenes of the platform pages: lobby, open table and invitation, my matches,
notifications, a finished match of each kind, a confirmation, the replay and a profile
(``make screenshots``; the registry and runner are tests/browser/studio.py and screenshots.py)."""

from __future__ import annotations

from typing import Any

from tests.browser.studio import Shot, Studio, scene

FINISH = 4_000
"""Decisions enough to play any of the games to its end."""


def _open_dialog(page: Any) -> None:
    page.locator("[data-action=resign]").click()
    page.wait_for_selector("#confirm-dialog[open]")


def _open_menu(page: Any) -> None:
    page.locator(".menu summary").click()


@scene("pages")
def pages(studio: Studio) -> list[Shot]:
    host, guest, third = studio.users("rosa", "sven", "tilo")
    # An open Draco table with an invited player and a free seat.
    body = {"game": "draco", "seats": 3, "invite": [guest.name], "fixed_order": True}
    table = int(host.post("/api/matches", body)["id"])
    token = next(m for m in host.get("/api/me/matches")["waiting"] if m["id"] == table)["invite_token"]

    # A running Felsental match a few turns in, and one resigned; a finished Drachenland and Felsental.
    running = studio.match("felsental", [host, third])
    studio.play(running, [host, third], 12)
    resigned = studio.match("felsental", [guest, third])
    studio.play(resigned, [guest, third], 6)
    third.post(f"/api/matches/{resigned}/resign", {})
    land = studio.match("drachenland", [host, guest])
    studio.play(land, [host, guest], FINISH)
    duel = studio.match("felsental", [guest, host])
    studio.play(duel, [guest, host], FINISH)

    return [
        Shot("lobby-visitor", "/", None),
        Shot("lobby", "/", host),
        Shot("header-menu", "/matches", host, _open_menu),
        Shot("open-table", f"/matches/{table}", host),
        Shot("invitation", f"/invite/{token}", guest),
        Shot("my-matches", "/matches", host),
        Shot("notifications", "/notifications", guest),
        Shot("resign-dialog", f"/matches/{running}", host, _open_dialog),
        Shot("resign-page", f"/matches/{running}/resign", host),
        Shot("finished-resigned", f"/matches/{resigned}", guest),
        Shot("finished-drachenland", f"/matches/{land}", host),
        Shot("finished-felsental", f"/matches/{duel}", None),
        Shot("replay-start", f"/matches/{running}/replay?step=0", host),
        Shot("replay-step", f"/matches/{running}/replay?step=5", host),
        Shot("replay-end", f"/matches/{land}/replay", guest),
        Shot("profile", f"/users/{host.name}", guest),
        Shot("settings", "/settings", host),
    ]
