"""Screenshot scenes of the tournament pages: the list, a Swiss's standings after a round, a
knockout's bracket (``make screenshots --only tournaments``). Matches are ended by resigning,
which ends them as any match ends (the next round is paired at once)."""

from __future__ import annotations

from typing import Any

from tests.browser.studio import Shot, Studio, User, scene


def _create(user: User, **body: Any) -> int:
    return int(user.post("/api/tournaments", {"game": "felsental", "table_size": 2, **body})["id"])


def _resign_round(tid: int, by_name: dict[str, User], keep_first: bool = True) -> None:
    """Every running match of the current round ends: its second seat resigns."""
    t = by_name[next(iter(by_name))].get(f"/api/tournaments/{tid}")
    for table in t["rounds"][-1]["tables"]:
        if table["match_id"] is not None and table["status"] == "active":
            loser = by_name[table["players"][1 if keep_first else 0]]
            loser.post(f"/api/matches/{table['match_id']}/resign", {})


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
    return [
        Shot("tournaments-list", "/tournaments", host),
        Shot("tournaments-running", "/tournaments?status=running", players[0]),
        Shot("tournament-swiss", f"/tournaments/{swiss}", players[0]),
        Shot("tournament-knockout", f"/tournaments/{knockout}", players[1]),
        Shot("tournament-new", "/tournaments/new", host),
    ]
