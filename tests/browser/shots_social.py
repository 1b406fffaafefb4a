"""Screenshot scenes of the people around the games: the friends list, a profile with its
statistics and rating graph, head-to-head, player search and a game's statistics
(``make screenshots``, ``--only social``)."""

from __future__ import annotations

from tests.browser.studio import Shot, Studio, User, scene

FINISH = 4_000


def _finish(studio: Studio, game: str, users: list[User], *, resign_after: int | None = None) -> int:
    match_id = studio.match(game, users)
    left = studio.play(match_id, users, resign_after or FINISH)
    if left is not None:
        left.post(f"/api/matches/{match_id}/resign", {})
    return match_id


@scene("social")
def social(studio: Studio) -> list[Shot]:
    mara, nils, olga, piet = studio.users("mara", "nils", "olga", "piet")
    for friend in (nils, olga):
        mara.post(f"/api/me/friends/{friend.name}", {})
        friend.post(f"/api/me/friends/{mara.name}", {})
    piet.post(f"/api/me/friends/{mara.name}", {})  # a request waiting for Mara's answer
    for game in ("draco", "felsental", "draco"):
        _finish(studio, game, [mara, nils])
    _finish(studio, "drachenland", [nils, mara], resign_after=40)
    _finish(studio, "draco", [mara, olga, nils])
    studio.match("felsental", [nils, olga])  # running: the friends list shows it
    return [
        Shot("friends", "/friends", mara),
        Shot("profile-stats", f"/users/{mara.name}", nils),
        Shot("versus", f"/users/{mara.name}/versus/{nils.name}", mara),
        Shot("search", f"/people?q={mara.name[:3]}", olga),
        Shot("game-stats", "/games/draco/stats", None),
    ]
