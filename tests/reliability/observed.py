"""Everything someone can observe of a match: every GET route of the app and the live streams.

``answer_paths`` enumerates the app's GET routes (so a route added later is swept without
touching the tests) and fills their parameters for one match: its id, its players' names,
its game, its replay steps, its invitation token. ``snapshot`` fetches all of them for one
observer; two snapshots are compared byte for byte (status, the headers that carry content,
the body). Nothing is masked: CSRF tokens are fixed per session or visitor cookie, and the
clients keep their cookies. ``StreamRecorder`` keeps every event of ``/sse/matches/{id}`` and
``/sse/me`` an observer receives; ping comments (they carry the time) are left out.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import httpx
from fastapi.routing import APIRoute
from starlette.routing import Route

from app.config import Settings
from app.main import create_app

SKIPPED = frozenset({"/api/docs", "/api/docs/oauth2-redirect", "/api/openapi.json"})
"""Static documents that show no match."""
EXTRA_QUERIES = ("/matches?order=recent", "/api/me/matches?order=recent")
"""List orders a route offers through its query."""
CONTENT_HEADERS = ("content-type", "content-length", "location", "hx-redirect", "etag", "last-modified")


def get_routes() -> list[str]:
    """Every GET path of the app (included routers too), streams apart."""
    app = create_app(Settings(secret_key="x" * 32, database_url="sqlite:///unused.db"))
    paths = {route.path for route in _walk(app.routes) if "GET" in (getattr(route, "methods", None) or ())}
    return sorted(paths - SKIPPED)


def _walk(routes: Sequence[Any]) -> Iterator[Any]:
    for route in routes:
        contexts = getattr(route, "effective_route_contexts", None)
        if contexts is not None:
            for context in contexts():
                yield SimpleNamespace(
                    path=context.path, methods=getattr(context.original_route, "methods", None)
                )
        elif isinstance(route, APIRoute | Route):
            yield route


@dataclass(frozen=True)
class MatchFacts:
    id: int
    game: str
    names: Sequence[str]
    steps: int
    invite_token: str


def answer_paths(facts: MatchFacts) -> list[str]:
    """Every GET route filled in for this match (a route with several values: each of them)."""
    values = {
        "match_id": [str(facts.id)],
        "name": list(facts.names),
        "game": [facts.game],
        "slug": [facts.game],
        "step": sorted({"0", str(facts.steps)}),
        "token": [facts.invite_token],
        "other": list(facts.names),
        "tournament_id": ["1"],  # none exists: its 404 must not change either
    }
    out: list[str] = []
    for route in get_routes():
        if route.startswith("/sse/"):
            continue
        filled = [route]
        for name in re.findall(r"\{(\w+)\}", route):
            assert name in values, f"the sweep does not know how to fill {{{name}}} in {route}"
            filled = [path.replace(f"{{{name}}}", value) for path in filled for value in values[name]]
        out += filled
    return out + list(EXTRA_QUERIES)


async def snapshot(client: httpx.AsyncClient, base_url: str, paths: Sequence[str]) -> dict[str, str]:
    """Each path's answer as one comparable text: status, content headers, body."""
    answers = await asyncio.gather(
        *(client.get(f"{base_url}{path}", follow_redirects=False) for path in paths)
    )
    out = {}
    for path, answer in zip(paths, answers, strict=True):
        assert answer.status_code < 500, f"{path}: {answer.status_code} {answer.text[:300]}"
        headers = "\n".join(f"{h}: {answer.headers[h]}" for h in CONTENT_HEADERS if h in answer.headers)
        out[path] = f"{answer.status_code}\n{headers}\n\n{answer.text}"
    return out


def differences(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The paths whose answers differ, each with the text around the first difference."""
    out = []
    for path, one in before.items():
        two = after[path]
        if one != two:
            at = next(
                (i for i, (a, b) in enumerate(zip(one, two, strict=False)) if a != b), min(len(one), len(two))
            )
            start = max(0, at - 60)
            out.append(f"{path}: {one[start : at + 60]!r} -> {two[start : at + 60]!r}")
    return out


@dataclass
class StreamRecorder:
    """The events one observer receives on some SSE streams (``start`` waits until they are open)."""

    client: httpx.AsyncClient
    urls: Sequence[str]
    events: list[str] = field(default_factory=list)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    async def start(self) -> None:
        for url in self.urls:
            ready = asyncio.Event()
            self._tasks.append(asyncio.create_task(self._listen(url, ready)))
            await asyncio.wait_for(ready.wait(), 10)

    async def _listen(self, url: str, ready: asyncio.Event) -> None:
        # Waits for lines as a browser's EventSource does, with no read deadline near the
        # server's ping period (15 s): a ping late by a moment on a busy machine must not end
        # the stream and so lose what it would have carried.
        async with self.client.stream("GET", url, timeout=httpx.Timeout(15.0, read=120.0)) as response:
            assert response.status_code == 200, url
            ready.set()
            async for line in response.aiter_lines():
                if line and not line.startswith(":"):
                    self.events.append(f"{url.split('/', 3)[-1]} {line}")

    def take(self) -> list[str]:
        taken, self.events[:] = list(self.events), []
        return taken

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
