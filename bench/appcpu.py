"""The app's own CPU per turn, in process: no uvicorn, no sockets, no load generator.

The closed loop of ``bench.load`` shares two cores between the server, PostgreSQL and the load,
so its figures move with whatever else the machine does. This drives the ASGI app directly
(one Draco table of 3 seats on a fresh PostgreSQL database, each seat holding ``/api/live``
open) and counts ``time.process_time()`` per committed turn: what the app itself costs,
repeatable enough to compare one change with the next. ``--profile`` adds a cProfile table.
``--pages`` plays the same table through the pages: htmx form POSTs answered with the board
area, every seat on ``/sse/live`` (the areas pushed to the tabs; reading them, as the JSON
path reads its views, is counted too).

    .venv/bin/python bench/appcpu.py [--turns 600] [--confirm apart|in-move] [--pages] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import os
import pstats
import random
import secrets
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import orjson

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.db.matches import VERSION_SPAN  # noqa: E402
from bench import pgstats  # noqa: E402
from bench.load import decision, page_view  # noqa: E402

Message = dict[str, Any]


@dataclass
class Answer:
    status: int = 0
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)
    body: bytes = b""

    def json(self) -> Any:
        return orjson.loads(self.body)


class Client:
    """One user's requests straight into the ASGI app (cookies kept, CSRF header sent)."""

    def __init__(self, app: Callable[..., Awaitable[None]], number: int) -> None:
        self.app = app
        self.cookies: dict[str, str] = {}
        self.csrf = ""
        self.address = f"10.0.{number // 256}.{number % 256}"
        self.name = ""

    def _scope(self, method: str, target: str, body: bytes, *, form: bool = False) -> Message:
        url = urlsplit(target)
        kind = b"application/x-www-form-urlencoded" if form else b"application/json"
        headers = [(b"host", b"bench"), (b"content-type", kind)]
        if form or target.startswith("/matches/"):
            headers.append((b"hx-request", b"true"))
        headers.append((b"content-length", str(len(body)).encode()))
        if self.cookies:
            headers.append((b"cookie", "; ".join(f"{k}={v}" for k, v in self.cookies.items()).encode()))
        if self.csrf:
            headers.append((b"x-csrf-token", self.csrf.encode()))
        return {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": url.path,
            "raw_path": url.path.encode(),
            "query_string": url.query.encode(),
            "root_path": "",
            "headers": headers,
            "client": (self.address, 40000),
            "server": ("127.0.0.1", 8000),
        }

    async def request(
        self, method: str, target: str, payload: Any = None, *, form: dict[str, str] | None = None
    ) -> Answer:
        """A JSON request, or with ``form`` the htmx form POST a page's click sends."""
        if form is not None:
            body = urlencode({**form, "csrf_token": self.csrf}).encode()
        else:
            body = b"" if payload is None else orjson.dumps(payload)
        answer = Answer()
        sent = False

        async def receive() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # never: a plain request reads its body once
            raise AssertionError

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                answer.status, answer.headers = message["status"], message.get("headers", [])
            elif message["type"] == "http.response.body":
                answer.body += message.get("body", b"")

        await self.app(self._scope(method, target, body, form=form is not None), receive, send)
        for name, value in answer.headers:
            if name.lower() == b"set-cookie":
                cookie: SimpleCookie = SimpleCookie()
                cookie.load(value.decode())
                self.cookies.update({k: m.value for k, m in cookie.items()})
        return answer

    async def stream(self, target: str) -> AsyncIterator[tuple[str, str]]:
        """The events of a server-sent stream, until the caller stops iterating."""
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        gone = asyncio.Event()
        first = True

        async def receive() -> Message:
            nonlocal first
            if first:
                first = False
                return {"type": "http.request", "body": b"", "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            if message["type"] == "http.response.body" and message.get("body"):
                await queue.put(message["body"])

        task = asyncio.ensure_future(self.app(self._scope("GET", target, b""), receive, send))
        buffer = b""
        try:
            while True:
                buffer += await queue.get()
                while b"\r\n\r\n" in buffer:
                    raw, buffer = buffer.split(b"\r\n\r\n", 1)
                    event, data = "message", []
                    for line in raw.decode().split("\r\n"):
                        if line.startswith("event:"):
                            event = line[6:].strip()
                        elif line.startswith("data:"):
                            data.append(line[5:].lstrip())
                    if data:
                        yield event, "\n".join(data)
        finally:
            gone.set()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(task, 2)


@dataclass
class Seat:
    client: Client
    view: dict[str, Any] | None = None
    log_seq: int = 0

    def take(self, view: dict[str, Any]) -> None:
        if self.view is None or view["version"] >= self.view["version"]:
            self.view = view
        self.log_seq = max(
            [self.log_seq, view["log_after"]] + [e["seq"] for e in view["log"] if not e["pending"]]
        )


async def _register(client: Client, number: int) -> None:
    csrf = await client.request("GET", "/api/auth/csrf")
    client.csrf = csrf.json()["csrf_token"]
    name = f"cpu{number}x{secrets.token_hex(3)}"
    answer = await client.request(
        "POST", "/api/auth/register", {"name": name, "password": "bench password 123", "locale": "en"}
    )
    assert answer.status == 201, answer.body
    client.csrf, client.name = answer.json()["csrf_token"], name


async def play(
    app: Any, turns: int, confirm_in_move: bool, pages: bool, profile: cProfile.Profile | None
) -> dict[str, float]:
    seats = [Seat(Client(app, n)) for n in range(3)]
    for n, seat in enumerate(seats):
        await _register(seat.client, n)
        if pages:  # the pages confirm in the move by the user's setting
            form = {"auto_confirm": "1" if confirm_in_move else "", "language": "en"}
            assert (await seat.client.request("POST", "/settings", form=form)).status == 200
    rng = random.Random(5)
    counted = {"turns": 0, "requests": 0, "cpu": 0.0, "answer_bytes": 0}
    while counted["turns"] < turns:
        host = seats[0].client
        made = await host.request(
            "POST",
            "/api/matches",
            {"game": "draco", "seats": 3, "invite": [s.client.name for s in seats[1:]]},
        )
        match_id = made.json()["id"]
        for seat in seats[1:]:
            assert (await seat.client.request("POST", f"/api/matches/{match_id}/join", {})).status == 204
        await _one_match(seats, match_id, rng, confirm_in_move, pages, turns, counted, profile)
    return counted


async def _one_match(
    seats: list[Seat],
    match_id: int,
    rng: random.Random,
    confirm_in_move: bool,
    pages: bool,
    turns: int,
    counted: dict[str, Any],
    profile: cProfile.Profile | None,
) -> None:
    arrived = asyncio.Event()

    async def listen(seat: Seat) -> None:
        path = f"/sse/live?m={match_id}&me=1" if pages else f"/api/live?match={match_id}"
        async for event, data in seat.client.stream(path):
            if event == "view":
                seat.take(orjson.loads(data))
                arrived.set()
            elif event == "area":
                seat.take(page_view(orjson.loads(data)["area"]))
                arrived.set()

    for seat in seats:
        seat.view, seat.log_seq = None, 0
        if pages:  # the page a player opens, then its stream
            area = await seat.client.request("GET", f"/matches/{match_id}/area")
            assert area.status == 200, area.body
            seat.take(page_view(area.body.decode()))
    listeners = [asyncio.ensure_future(listen(s)) for s in seats]
    try:
        while any(s.view is None for s in seats):
            arrived.clear()
            await arrived.wait()
        while counted["turns"] < turns:
            acting = [
                s for s in seats if s.view and s.view["viewer_seat"] in s.view["to_act"] and s.view["legal"]
            ]
            if any(s.view and s.view["status"] != "active" for s in seats):
                return
            if not acting:
                arrived.clear()
                await arrived.wait()
                continue
            actor = acting[0]
            view = actor.view
            assert view is not None
            path, body = decision(match_id, view, actor.log_seq, rng, confirm_in_move=confirm_in_move)
            if profile is not None:
                profile.enable()
            started = time.process_time()
            if pages:
                form = {k: str(v) for k, v in body.items() if k != "confirm"}
                answer = await actor.client.request("POST", path.removeprefix("/api"), form=form)
                seen = page_view(answer.body.decode())
                committed = seen["version"] % VERSION_SPAN == 0
                result = {"match": seen, "committed": committed, "version": seen["version"]}
            else:
                answer = await actor.client.request("POST", path, body)
                result = answer.json()
            if answer.status == 200 and result["committed"]:
                # Until every other seat's stream delivered the new version (its push counted too).
                version = result["version"]
                while any(s.view is None or s.view["version"] < version for s in seats if s is not actor):
                    arrived.clear()
                    await arrived.wait()
                counted["turns"] += 1
            counted["cpu"] += time.process_time() - started
            if profile is not None:
                profile.disable()
            assert answer.status == 200, answer.body
            counted["requests"] += 1
            counted["answer_bytes"] += len(answer.body)
            actor.take(result["match"])
    finally:
        for task in listeners:
            task.cancel()
        for task in listeners:
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def main_async(args: argparse.Namespace) -> None:
    database = f"bench_appcpu_{secrets.token_hex(3)}"
    await pgstats.fresh_database(database)
    os.environ.update(
        {
            "DRACHENHORT_DATABASE_URL": pgstats.sqlalchemy_url(database),
            "DRACHENHORT_SECRET_KEY": "bench-secret-key-not-for-production",
            "DRACHENHORT_REGISTRATIONS_PER_HOUR": "1000000",
            "DRACHENHORT_OPEN_TABLES_PER_USER": "1000000",
            "DRACHENHORT_BOT_MATCHES_PER_USER": "1000000",
            "DRACHENHORT_INVITATIONS_PER_HOUR": "1000000",
            "DRACHENHORT_CHAT_LINES_PER_MINUTE": "1000000",
        }
    )
    from app.db.migrate import upgrade_to_head
    from app.main import create_app

    await asyncio.to_thread(upgrade_to_head, pgstats.sqlalchemy_url(database))
    app = create_app()
    profile = cProfile.Profile() if args.profile else None
    try:
        async with app.router.lifespan_context(app):
            in_move = args.confirm == "in-move"
            await play(app, max(20, args.turns // 10), in_move, args.pages, None)  # warm up
            counted = await play(app, args.turns, in_move, args.pages, profile)
    finally:
        await pgstats.drop_database(database)
    turns, requests = counted["turns"], counted["requests"]
    cpu_ms = 1000 * counted["cpu"]
    print(
        f"{'pages' if args.pages else 'JSON'}, confirm {args.confirm}: {turns} turns, "
        f"{requests / turns:.2f} requests a turn, "
        f"app CPU {cpu_ms / turns:.2f} ms a turn, {cpu_ms / requests:.2f} ms a request "
        f"(pushes to the other seats included), answers {counted['answer_bytes'] / requests / 1024:.1f} KB"
    )
    if profile is not None:
        out = io.StringIO()
        stats = pstats.Stats(profile, stream=out)
        if args.profile_out:
            stats.dump_stats(args.profile_out)
        stats.sort_stats("tottime").print_stats(args.top)
        stats.sort_stats("cumulative").print_stats(args.top)
        print(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=600)
    parser.add_argument("--confirm", choices=["apart", "in-move"], default="apart")
    parser.add_argument(
        "--pages", action="store_true", help="through the pages: htmx form POSTs, every seat on /sse/live"
    )
    parser.add_argument("--profile", action="store_true", help="and a cProfile of the measured requests")
    parser.add_argument("--top", type=int, default=45)
    parser.add_argument("--profile-out", metavar="FILE", help="and the profile saved for pstats")
    import uvloop

    uvloop.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
