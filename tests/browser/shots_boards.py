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

    # Every other phase of a match, as the seat deciding it (and the two legs' and the end's
    # boards as a spectator too): free setup, a card being played, wounds placed, leg 2, the end.
    setup = studio.users("vera", "walt")
    options = {"dwarf_setup": "free", "hand_exchange": True}
    fourth = studio.match("felsental", setup, options)
    shots.append(Shot("felsental-exchange-seat", f"/matches/{fourth}", studio.to_act(fourth, setup)))
    fifth = studio.match("felsental", setup, options)
    actor = studio.play(fifth, setup, 20, policy=_keep, until=lambda m: _offers(m, "place:"))
    shots.append(Shot("felsental-place-seat", f"/matches/{fifth}", actor))
    for name, wanted in (("walk", "to:"), ("fire", "dir:"), ("wounds", "wound:")):
        users = studio.users(f"{name[:3]}a", f"{name[:3]}b")
        match_id = studio.match("felsental", users)
        actor = studio.play(match_id, users, 600, policy=_fight, until=lambda m, w=wanted: _offers(m, w))
        shots.append(Shot(f"felsental-{name}-seat", f"/matches/{match_id}", actor))
    users = studio.users("xena", "yann")
    match_id = studio.match("felsental", users)
    actor = studio.play(match_id, users, 1500, policy=_fight, until=lambda m: m["view"]["leg"] == 2)
    shots += _both("felsental-leg2", match_id, actor)
    users = studio.users("zora", "adam")
    match_id = studio.match("felsental", users)
    studio.play(match_id, users, 3000, policy=_fight)
    shots.append(Shot("felsental-end-player", f"/matches/{match_id}", users[0]))
    shots.append(Shot("felsental-end-spectator", f"/matches/{match_id}", None))
    return shots


def _offers(match: dict[str, Any], prefix: str) -> bool:
    return any(m.startswith(prefix) for m in match["legal"])


def _keep(match: dict[str, Any], rnd: random.Random) -> str:
    """Keeps the start hand, so the setup reaches the placement of the dwarves."""
    return "keep" if "keep" in match["legal"] else any_move(match, rnd)


def _fight(match: dict[str, Any], rnd: random.Random) -> str:
    """Plays attacks before anything else and takes every hit: a match that ends soon."""
    legal = match["legal"]
    if "accept" in legal:
        return "accept"
    attacks = [m for m in legal if m.startswith("play:") and m.split(":")[2] in _ATTACKS]
    if attacks and rnd.random() < 0.8:
        return rnd.choice(attacks)
    return any_move(match, rnd)


_ATTACKS = {"bite", "fire", "attack1", "attack2", "crossbow", "net"}
