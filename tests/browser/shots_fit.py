"""Screenshot scenes of the positions whose fit issue 20.9 is about: Felsental's largest hands and
Drachenland with four players, each phase (``make screenshots --only fit``)."""

from __future__ import annotations

from tests.browser.studio import Shot, Studio, scene
from tests.browser.test_board_fit import CASES

SHOWN = {"full-hand", "over-the-limit", "roll-4", "dice-4", "walk-4", "treasure-4"}


@scene("fit")
def fit(studio: Studio) -> list[Shot]:
    shots = []
    seats = studio.users("pa", "pb", "pc", "pd")
    for case in CASES:
        if case.phase not in SHOWN:
            continue
        users = seats[: case.seats]
        match_id = studio.match(case.game, users)
        actor = studio.play(match_id, users, 400, policy=case.policy, until=case.until)
        if actor is not None:
            shots.append(Shot(f"fit-{case.game}-{case.phase}", f"/matches/{match_id}", actor))
    return shots
