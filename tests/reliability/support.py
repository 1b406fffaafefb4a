"""Helpers for the reliability suite: HTTP actors that can talk to several servers, and a
database-side consistency check (the move log is the truth, the snapshot only a cache)."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

import app.games  # noqa: F401 - registers every game
from app.db.models import LoggedMove, Match, MatchSeat, MatchStatus
from app.db.session import dispose, make_engine, make_sessionmaker
from app.engine.protocol import Event, Game, Move, Seat, State
from app.engine.registry import get_game
from app.engine.replay import replay
from app.engine.turn import Decision, Turn, current_state
from app.services import accounts
from app.web.security import SESSION_COOKIE
from tests.support.client import PASSWORD, unique_name

RUNNING = (MatchStatus.ACTIVE, MatchStatus.FINISHED, MatchStatus.ABORTED)


def request_id() -> str:
    return secrets.token_hex(12)


class Actor:
    """A logged-in user whose cookies work on every server of the test (same host, same secret).

    Paths are absolute URLs or relative to ``base_url``; ``post`` sends the CSRF header.
    """

    def __init__(self, client: httpx.AsyncClient, base_url: str, user: dict[str, Any], csrf: str) -> None:
        self.client = client
        self.base_url = base_url
        self.user = user
        self.csrf = csrf

    @property
    def id(self) -> int:
        return int(self.user["id"])

    @property
    def name(self) -> str:
        return str(self.user["name"])

    def url(self, path: str, base: str | None = None) -> str:
        return path if path.startswith("http") else f"{base or self.base_url}{path}"

    async def get(self, path: str, base: str | None = None, **kwargs: Any) -> httpx.Response:
        return await self.client.get(self.url(path, base), **kwargs)

    async def post(
        self, path: str, json: Any = None, base: str | None = None, **kwargs: Any
    ) -> httpx.Response:
        headers = {"X-CSRF-Token": self.csrf, **kwargs.pop("headers", {})}
        return await self.client.post(self.url(path, base), json=json, headers=headers, **kwargs)

    async def aclose(self) -> None:
        await self.client.aclose()


async def new_actor(base_url: str, database_url: str | None = None, timeout: float = 15.0) -> Actor:
    """A fresh registered, logged-in user.

    With ``database_url`` the account and its session are made by the account service in this
    process (the test run hashes passwords cheaply; a server process hashes with the production
    profile, about a second per hash on a small machine); the cookie then works on every server.
    Without it, over the JSON API.
    """
    client = httpx.AsyncClient(timeout=timeout)
    name = unique_name("r")
    if database_url is not None:
        engine = make_engine(database_url)
        try:
            async with make_sessionmaker(engine)() as db:
                await accounts.register(db, name=name, password=PASSWORD, locale="en")
                user, token = await accounts.log_in(db, name=name, password=PASSWORD)
        finally:
            await dispose(engine)
        client.cookies.set(SESSION_COOKIE, token)
        body = (await client.get(f"{base_url}/api/auth/csrf")).json()
        assert body["user"]["id"] == user.id, body
        return Actor(client, base_url, body["user"], body["csrf_token"])
    csrf = (await client.get(f"{base_url}/api/auth/csrf")).json()["csrf_token"]
    response = await client.post(
        f"{base_url}/api/auth/register",
        json={"name": name, "password": PASSWORD, "locale": "en"},
        headers={"X-CSRF-Token": csrf},
    )
    if response.status_code != 201:
        await client.aclose()
        raise AssertionError(f"register failed: {response.status_code} {response.text}")
    body = response.json()
    return Actor(client, base_url, body["user"], body["csrf_token"])


async def start_match(
    players: Sequence[Actor], game: str, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A running match of ``game`` with ``players`` seated in this order; its view for players[0]."""
    creator = players[0]
    created = await creator.post(
        "/api/matches",
        {"game": game, "seats": len(players), "options": options or {}, "fixed_order": True},
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    for other in players[1:]:
        joined = await other.post(f"/api/matches/{match_id}/join", {})
        assert joined.status_code == 204, joined.text
    view = (await creator.get(f"/api/matches/{match_id}")).json()
    assert view["status"] == "active", view
    assert view["viewer_seat"] == 0, "fixed order seats the creator first"
    return dict(view)


# --- the database side ---------------------------------------------------------------------


@dataclass
class StoredMatch:
    """A match row as the test reads it straight from the database."""

    id: int
    game: Game
    status: str
    players: int
    options: dict[str, Any]
    seed: bytes
    version: int
    state_text: str
    rng_counter: int
    pending: list[dict[str, Any]]
    log: list[LoggedMove] = field(default_factory=list)
    seats: dict[Seat, int | None] = field(default_factory=dict)

    @property
    def turn(self) -> Turn:
        pending = tuple(
            Decision(p["seat"], Move.parse(p["move"]), tuple(Event.from_json(e) for e in p["events"]))
            for p in self.pending
        )
        return Turn(self.game.parse_position(self.state_text), self.rng_counter, pending)

    def state_for(self, seat: Seat | None) -> State:
        """What the server must show ``seat``: its own pending decisions applied, else committed."""
        turn = self.turn
        if seat is not None and turn.pending_seat == seat:
            return current_state(self.game, turn, self.seed)
        return turn.committed

    def seat_of(self, user_id: int) -> Seat | None:
        return next((s for s, u in self.seats.items() if u == user_id), None)


async def read_matches(
    database_url: str, match_ids: Iterable[int] | None = None, engine: AsyncEngine | None = None
) -> list[StoredMatch]:
    """Matches that have started (all of them, or ``match_ids``), with their log and seats.

    ``engine`` reuses an open engine on ``database_url`` (else one is made and disposed).
    """
    own = engine is None
    engine = engine or make_engine(database_url)
    try:
        async with make_sessionmaker(engine)() as db:
            query = select(Match).where(Match.status.in_(RUNNING)).order_by(Match.id)
            if match_ids is not None:
                query = query.where(Match.id.in_(list(match_ids)))
            out: list[StoredMatch] = []
            for m in await db.scalars(query):
                assert m.seed is not None and m.state is not None, f"match {m.id} started without seed/state"
                out.append(
                    StoredMatch(
                        id=m.id,
                        game=get_game(m.game, m.ruleset),
                        status=m.status,
                        players=m.players,
                        options=dict(m.options),
                        seed=m.seed,
                        version=m.version,
                        state_text=m.state,
                        rng_counter=m.rng_counter,
                        pending=list(m.pending),
                    )
                )
            by_id = {m.id: m for m in out}
            if by_id:
                for row in await db.scalars(
                    select(LoggedMove)
                    .where(LoggedMove.match_id.in_(list(by_id)))
                    .order_by(LoggedMove.match_id, LoggedMove.seq)
                ):
                    by_id[row.match_id].log.append(row)
                for seat in await db.scalars(select(MatchSeat).where(MatchSeat.match_id.in_(list(by_id)))):
                    by_id[seat.match_id].seats[seat.seat] = seat.user_id
            return out
    finally:
        if own:
            await dispose(engine)


async def read_match(database_url: str, match_id: int, engine: AsyncEngine | None = None) -> StoredMatch:
    (match,) = await read_matches(database_url, [match_id], engine)
    return match


def check_match(match: StoredMatch) -> int:
    """Raise AssertionError unless the log rebuilds the snapshot and every step replays.

    - log sequence numbers run 1..n without a gap or a twin;
    - replaying seed + log gives exactly the stored snapshot and Rng counter;
    - every replay step shows a view to every seat and a spectator, and describes its events;
    - the pending decisions re-apply on the snapshot without drawing randomness.
    Returns the number of logged decisions.
    """
    game = match.game
    seqs = [row.seq for row in match.log]
    assert seqs == list(range(1, len(seqs) + 1)), f"match {match.id}: log seq {seqs[:5]}... not 1..n"
    moves = [(row.seat, Move.parse(row.move)) for row in match.log]
    last = None
    for step in replay(game, match.players, match.options, match.seed, moves):
        last = step
        for seat in (*range(match.players), None):
            game.view(step.state, seat)
        if step.index:
            logged = match.log[step.index - 1]
            assert json.loads(json.dumps([e.to_json() for e in step.events])) == logged.events, (
                f"match {match.id} step {step.index}: replayed events differ from the logged ones"
            )
            for event in step.events:
                game.describe(event, "en")
                game.describe(event, "de")
    assert last is not None
    rebuilt = game.format_position(last.state)
    assert rebuilt == match.state_text, f"match {match.id}: rebuilt state differs from the snapshot"
    assert last.rng_counter == match.rng_counter, f"match {match.id}: Rng counter differs after replay"
    # A match may also finish without the game ending (resigned, agreed draw, voted end), or be
    # aborted; but a log that ends the game always finishes the match.
    if game.outcome(last.state) is not None:
        assert match.status == MatchStatus.FINISHED, (
            f"match {match.id}: the game ended, the match is {match.status}"
        )
    if match.pending:
        seat = match.turn.pending_seat
        assert all(p["seat"] == seat for p in match.pending), f"match {match.id}: pending of several seats"
        match.state_for(seat)  # asserts no randomness was used by a pending decision
    return len(moves)


async def check_consistency(database_url: str, match_ids: Iterable[int] | None = None) -> int:
    """``check_match`` for every started match (or ``match_ids``); returns how many were checked."""
    matches = await read_matches(database_url, match_ids)
    # The replays are CPU work: off the event loop, so a running server fixture is not starved.
    await asyncio.to_thread(lambda: [check_match(m) for m in matches])
    return len(matches)


async def write_state(engine: AsyncEngine, match_id: int, state_text: str) -> None:
    """Overwrite a match's stored snapshot (the hidden-information test alters hidden data)."""
    async with make_sessionmaker(engine)() as db:
        match = await db.get(Match, match_id)
        assert match is not None
        match.state = state_text
        await db.commit()
