"""Screenshot scenes of the game boards: each game early and mid-game, as the seat to act and as a
spectator (``make screenshots``, see tests/browser/screenshots.py)."""

from __future__ import annotations

import random
from typing import Any

from tests.browser.draco_positions import find_crowd
from tests.browser.studio import Shot, Studio, any_move, scene


def _both(name: str, match_id: int, actor: Any, prepare: Any = None) -> list[Shot]:
    path = f"/matches/{match_id}"
    return [Shot(f"{name}-seat", path, actor, prepare), Shot(f"{name}-spectator", path, None)]


def _draco_climb(match: dict[str, Any], rnd: random.Random) -> str:
    """Plays the highest cards of the lowest dragons, so the field spreads up the mountain."""
    legal = match["legal"]
    if "mount:keep" in legal:
        return rnd.choice(["mount:keep", "mount:take"])
    plays = [m for m in legal if m.startswith("play:")]
    if plays:
        return rnd.choice(plays)
    return "confirm"


def _hover_first_card(page: Any) -> None:
    card = page.locator(".draco-cards [data-move]").first
    if card.count():
        card.hover()


@scene("draco")
def draco(studio: Studio) -> list[Shot]:
    start = studio.users("anna", "ben", "cleo")
    first = studio.match("draco", start)
    shots = _both("draco-start", first, start[0])
    shots.append(Shot("draco-start-hover", f"/matches/{first}", start[0], _hover_first_card))

    mid = studio.users("dora", "emil", "finn", "greta")
    second = studio.match("draco", mid)
    actor = studio.play(
        second,
        mid,
        70,
        policy=_draco_climb,
        until=lambda m: m["view"]["phase"] == "play" and len(m["log"]) > 60,
    )
    shots += _both("draco-mid", second, actor)

    # The keep/take choice and a turn waiting for Confirm (the drawn cards marked as new after it).
    late = studio.users("hugo", "ida")
    third = studio.match("draco", late)
    actor = studio.play(third, late, 40, policy=_draco_climb, until=lambda m: "mount:keep" in m["legal"])
    shots += _both("draco-choice", third, actor)

    # The confirm hint after a scoring (no cards drawn), and a finished match's standings.
    scoring = studio.users("jona", "kira", "lars")
    fourth = studio.match("draco", scoring)
    actor = studio.play(
        fourth,
        scoring,
        400,
        policy=_draco_climb,
        until=lambda m: m["view"]["phase"] == "discard" and bool(m["view"]["play"]["scored"]),
    )
    shots += _both("draco-scored", fourth, actor)
    ended = studio.users("maja", "noah", "ole")
    fifth = studio.match("draco", ended)
    studio.play(fifth, ended, 1500, policy=_draco_climb)
    shots += _both("draco-end", fifth, ended[0])
    return shots


@scene("draco-crowd")
def draco_crowd(studio: Studio) -> list[Shot]:
    """Four targets on one space (issue 20, point 8): the chips around it, then one hovered."""
    crowd = find_crowd(studio, ("pia", "quirin", "rosa"))

    def show_space(page: Any) -> None:
        page.locator(f"svg.draco-board [data-piece='space-{crowd.space}']").scroll_into_view_if_needed()

    def hover_chip(page: Any) -> None:
        show_space(page)
        page.locator(".draco .target.shared").first.hover()

    path = f"/matches/{crowd.match_id}"
    return [
        Shot("draco-crowd", path, crowd.actor, show_space),
        Shot("draco-crowd-hover", path, crowd.actor, hover_chip),
    ]


@scene("drachenland")
def drachenland(studio: Studio) -> list[Shot]:
    start = studio.users("jana", "kai", "lea")
    first = studio.match("drachenland", start)
    shots = _both("drachenland-start", first, studio.to_act(first, start))

    mid = studio.users("mia", "nils")
    second = studio.match("drachenland", mid)
    actor = studio.play(
        second,
        mid,
        90,
        policy=any_move,
        until=lambda m: len(m["log"]) > 40 and any(x.startswith(("move:", "fly:")) for x in m["legal"]),
    )
    shots += _both("drachenland-mid", second, actor)

    # The decisions after the roll: a figure and a die (six choices), then a treasure to take.
    late = studio.users("ole", "pia")
    third = studio.match("drachenland", late)
    actor = studio.play(
        third, late, 60, until=lambda m: len(m["log"]) > 8 and m["view"]["phase"] == "choose1"
    )
    shots += _both("drachenland-dice", third, actor)
    more = studio.users("quin", "rita")
    fourth = studio.match("drachenland", more)
    actor = studio.play(fourth, more, 200, until=lambda m: "egg" in m["legal"] or "gems" in m["legal"])
    shots += _both("drachenland-treasure", fourth, actor)
    return shots


@scene("felsental")
def felsental(studio: Studio) -> list[Shot]:
    start = studio.users("olga", "paul")
    first = studio.match("felsental", start)
    shots = _both("felsental-start", first, studio.to_act(first, start))

    mid = studio.users("rosa", "sven")
    second = studio.match("felsental", mid)
    actor = studio.play(second, mid, 60, policy=any_move, until=lambda m: len(m["log"]) > 25)
    shots += _both("felsental-mid", second, actor)

    # The defence prompt: the attacked side answers with a card or takes the hit.
    late = studio.users("tina", "udo")
    third = studio.match("felsental", late)
    actor = studio.play(third, late, 300, until=lambda m: "accept" in m["legal"])
    shots += _both("felsental-defend", third, actor)
    return shots
