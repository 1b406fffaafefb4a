"""Shots of issue 20.10 and 20.14: a clocked match with its seats' countdowns and a chat line
with its time, and the home page listing running matches and whose turn it is."""

from __future__ import annotations

from typing import Any

from tests.browser.studio import Shot, Studio, scene


def _open_rules(page: Any) -> None:
    page.locator("[data-rules-link]").click()
    page.locator("#rules-panel h1").wait_for()


@scene("clock")
def clock(studio: Studio) -> list[Shot]:
    karin, bob = studio.users("karin", "bob")
    body = {"game": "draco", "seats": 2, "fixed_order": True, "invite": [bob.name], "days_per_move": 3}
    match_id = int(karin.post("/api/matches", body)["id"])
    bob.post(f"/api/matches/{match_id}/join", {})
    karin.post(f"/api/matches/{match_id}/messages", {"text": "Viel Glück! / Good luck!"})
    other = studio.match("felsental", [bob, karin])
    studio.play(other, [bob, karin], 3)
    return [
        Shot("clocked-match", f"/matches/{match_id}", bob),
        Shot("rules-panel", f"/matches/{match_id}", karin, _open_rules),
        Shot("home-running", "/", bob),
        Shot("settings-full", "/settings", karin),
    ]
