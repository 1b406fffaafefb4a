"""Screenshot scenes of the tournament pages: the list, a Swiss's standings after a round, a
knockout's bracket, a round robin's final stage, an organiser's invitation-only sign-up page and
a player's tournament notifications (``make screenshots --only tournaments``). Matches are ended
by resigning, which ends them as any match ends (the next round is paired in the background:
each scene waits for it)."""

from __future__ import annotations

import time
from typing import Any

from tests.browser.studio import Shot, Studio, User, scene


def _create(user: User, **body: Any) -> int:
    return int(user.post("/api/tournaments", {"game": "felsental", "table_size": 2, **body})["id"])


def _resign_round(tid: int, by_name: dict[str, User], keep_first: bool = True) -> None:
    """Every running match of the current round ends: its second seat resigns; then the next
    round's pairing (in the background) is waited for."""
    t = by_name[next(iter(by_name))].get(f"/api/tournaments/{tid}")
    for table in t["rounds"][-1]["tables"]:
        if table["match_id"] is not None and table["status"] == "active":
            loser = by_name[table["players"][1 if keep_first else 0]]
            loser.post(f"/api/matches/{table['match_id']}/resign", {})
    for _ in range(200):
        now = by_name[next(iter(by_name))].get(f"/api/tournaments/{tid}")
        if len(now["rounds"]) > len(t["rounds"]) or now["status"] != "running":
            return
        time.sleep(0.05)
    raise RuntimeError(f"tournament {tid}: the next round was not paired")


@scene("tournaments")
def tournaments(studio: Studio) -> list[Shot]:
    names = ("anna", "bert", "cleo", "dirk", "emma", "finn", "gina", "hugo")
    host, *players = studio.users("ilse", *names)
    by_name = {p.name: p for p in players}
    _create(host, name="Herbstpokal", format="round_robin", places=6)
    _create(host, name="Drachencup", format="knockout", places=16, days_per_move=5)
    swiss = _create(host, name="Felsental Swiss", format="swiss", rounds=3, places=5)
    for p in players[:5]:
        p.post(f"/api/tournaments/{swiss}/signup", {})
    _resign_round(swiss, {p.name: p for p in players[:5]})
    knockout = _create(host, name="Felsental knockout", format="knockout", places=8)
    for p in players:
        p.post(f"/api/tournaments/{knockout}/signup", {})
    _resign_round(knockout, by_name)
    _resign_round(knockout, by_name, keep_first=False)
    # A round robin in two groups of three whose winners meet in a final.
    groups = _create(
        host, name="Gruppenpokal", format="round_robin", places=6, group_size=3, final_per_group=1
    )
    for p in players[:6]:
        p.post(f"/api/tournaments/{groups}/signup", {})
    group_players = {p.name: p for p in players[:6]}
    for _ in range(5):
        if host.get(f"/api/tournaments/{groups}")["status"] != "running":
            break
        _resign_round(groups, group_players)
    # An invitation-only tournament in sign-up: its organiser removes sign-ups and invites.
    private = _create(host, name="Einladungsturnier", format="knockout", places=8, public=False)
    for p in players[:3]:
        host.post(f"/api/tournaments/{private}/invites", {"name": p.name})
        p.post(f"/api/tournaments/{private}/signup", {})
    host.post(f"/api/tournaments/{private}/invites", {"name": players[6].name})
    return [
        Shot("tournament-final-stage", f"/tournaments/{groups}", players[0]),
        Shot("tournament-invitations", f"/tournaments/{private}", host),
        Shot("tournament-notifications", "/notifications", players[0]),
        Shot("tournaments-list", "/tournaments", host),
        Shot("tournaments-running", "/tournaments?status=running", players[0]),
        Shot("tournament-swiss", f"/tournaments/{swiss}", players[0]),
        Shot("tournament-knockout", f"/tournaments/{knockout}", players[1]),
        Shot("tournament-new", "/tournaments/new", host),
    ]
