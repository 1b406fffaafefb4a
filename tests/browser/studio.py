"""Scenes for `make screenshots`: the registry, and a studio that sets positions up over the API.

A scene is a function registered with ``@scene`` in a module ``tests/browser/shots_*.py``; it gets
a ``Studio`` (users, matches, decisions over the JSON API) and returns the ``Shot``s it has set up.
The runner is tests/browser/screenshots.py.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import httpx

from tests.support.client import PASSWORD, request_id, unique_name


@dataclass(frozen=True)
class Shot:
    """One page as one viewer sees it; ``viewer`` None is a spectator without an account."""

    name: str
    path: str
    viewer: User | None = None
    prepare: Callable[[Any], None] | None = None
    """Run on the loaded page before the picture (hover a card, open a panel)."""


Scene = Callable[["Studio"], Iterable[Shot]]
SCENES: dict[str, Scene] = {}


def scene(name: str) -> Callable[[Scene], Scene]:
    """Register a scene under ``name`` (what ``--only`` selects)."""

    def add(fn: Scene) -> Scene:
        if name in SCENES:
            raise ValueError(f"two scenes are called {name!r}")
        SCENES[name] = fn
        return fn

    return add


class NameTaken(RuntimeError):
    """Registering a name somebody has already."""


class User:
    """A registered account with its own API client."""

    def __init__(self, base_url: str, name: str, locale: str = "en") -> None:
        self.name = name
        self.client = httpx.Client(base_url=base_url, timeout=30.0)
        csrf = self.client.get("/api/auth/csrf").json()["csrf_token"]
        body = {"name": name, "password": PASSWORD, "locale": locale}
        made = self.client.post("/api/auth/register", json=body, headers={"X-CSRF-Token": csrf})
        if made.status_code == 409:
            raise NameTaken(name)
        if made.status_code != 201:
            raise RuntimeError(f"cannot register {name}: {made.status_code} {made.text}")
        self.csrf = str(made.json()["csrf_token"])

    def get(self, path: str) -> Any:
        answer = self.client.get(path)
        answer.raise_for_status()
        return answer.json()

    def post(self, path: str, body: dict[str, Any]) -> Any:
        answer = self.client.post(path, json=body, headers={"X-CSRF-Token": self.csrf})
        if answer.status_code >= 300:
            raise RuntimeError(f"POST {path}: {answer.status_code} {answer.text}")
        return answer.json() if answer.content else None


Policy = Callable[[dict[str, Any], random.Random], str]
"""Chooses the next decision from a seat's match view: a move, or "confirm"."""


def any_move(match: dict[str, Any], rnd: random.Random) -> str:
    """A random legal move; confirm once the turn allows it (now and then earlier)."""
    moves = [m for m in match["legal"] if m != "confirm"]
    if match["can_confirm"] and (not moves or rnd.random() < 0.3):
        return "confirm"
    return rnd.choice(moves)


class Studio:
    """Sets positions up over the JSON API for the scenes."""

    def __init__(self, base_url: str, seed: int = 7) -> None:
        self.base_url = base_url
        self.random = random.Random(seed)

    def users(self, *names: str) -> list[User]:
        return [self._new_user(name) for name in names]

    def _new_user(self, name: str) -> User:
        """``name`` with a short random suffix (it stays readable in the screenshots); another
        suffix when that one is taken (three hex digits repeat within a long run's searches)."""
        for _ in range(20):
            try:
                return User(self.base_url, f"{name}{unique_name('')[:3]}")
            except NameTaken:
                continue
        raise RuntimeError(f"no free name starting with {name!r} in 20 tries")

    def match(self, game: str, users: list[User], options: dict[str, Any] | None = None) -> int:
        """A started match with the users in this seat order."""
        body = {
            "game": game,
            "seats": len(users),
            "fixed_order": True,
            "invite": [u.name for u in users[1:]],
            "options": options or {},
        }
        match_id = int(users[0].post("/api/matches", body)["id"])
        for user in users[1:]:
            user.post(f"/api/matches/{match_id}/join", {})
        return match_id

    def view(self, match_id: int, user: User) -> dict[str, Any]:
        result: dict[str, Any] = user.get(f"/api/matches/{match_id}")
        return result

    def to_act(self, match_id: int, users: list[User]) -> User | None:
        seen = self.view(match_id, users[0])
        if seen["status"] != "active":
            return None
        return users[min(seen["to_act"])]

    def play(
        self,
        match_id: int,
        users: list[User],
        decisions: int,
        *,
        policy: Policy = any_move,
        until: Callable[[dict[str, Any]], bool] | None = None,
    ) -> User | None:
        """At most ``decisions`` decisions, stopping early where ``until`` holds for the seat to
        act (its own view); the seat to act then, or None when the match is over."""
        for _ in range(decisions):
            user = self.to_act(match_id, users)
            if user is None:
                return None
            seen = self.view(match_id, user)
            if until is not None and until(seen):
                return user
            self.decide(match_id, user, policy(seen, self.random), seen["version"])
        return self.to_act(match_id, users)

    def decide(self, match_id: int, user: User, move: str, version: int) -> None:
        body: dict[str, Any] = {"expected_version": version, "request_id": request_id()}
        if move in ("confirm", "undo"):
            user.post(f"/api/matches/{match_id}/{move}", body)
        else:
            user.post(f"/api/matches/{match_id}/moves", {**body, "move": move})
