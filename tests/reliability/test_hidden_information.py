"""A hidden-information sweep over HTTP (issue 7, "Bad input and attacks").

Matches of every game (the three real ones and the toy game) are played to the end through
the JSON API with seeded random and greedy decisions (and some undos). At every step, for every
seat and a spectator (a logged-in non-member):

- the API answer's ``view`` is exactly the game's own view of the real state read from the
  database (with the seat's own pending decisions, and only its own);
- its log holds exactly the events that seat may see (audience everyone or that seat);
- no answer contains the seed (hex or base64) or a position string (the full hidden state).

Every few steps, for every viewer, the hidden data that viewer must not know is altered in the
database (other hands, draw piles, face-down tiles, screens: ``hidden.py``) and the API
answer, the match page and the board partial must stay byte for byte the same. Every few steps
a replay step is fetched by every viewer and checked the same way (and against an altered
state). Every view a viewer's live stream pushes is its own view of that version.

Live streams are also held open while a table changes hands (issue 19: join, leave, the
start's shuffle, moves, a stand-in, take-back, resignations, logout): every push each stream
carries must be what its user's own GET of that version shows (``held.py``).
"""

from __future__ import annotations

import asyncio
import base64
import json
import random
import re
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.models import Match
from app.db.session import dispose, make_engine, make_sessionmaker
from app.engine.protocol import Event, Game, Move
from app.engine.registry import get_game
from app.engine.replay import replay
from app.services import clocks
from app.services.live import Broker
from app.services.play.views import LOG_PAGE
from app.services.replays import step_ends
from tests.reliability.held import HeldStream, Watchers
from tests.reliability.hidden import scramble
from tests.reliability.observed import MatchFacts, StreamRecorder, answer_paths, differences, snapshot
from tests.reliability.support import Actor, StoredMatch, read_match, request_id, start_match, write_state
from tests.support.server import Server

pytestmark = pytest.mark.slow

CASES = [("toy", 3, {}), ("draco", 2, {}), ("drachenland", 2, {}), ("felsental", 2, {"legs": 1})]
SCRAMBLE_EVERY = 30
REPLAY_EVERY = 40
MAX_DECISIONS = 900


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _secrets(match: StoredMatch) -> list[str]:
    """Texts that must never reach a client while the match runs."""
    seed = match.seed
    forms = [
        seed.hex(),
        seed.hex().upper(),
        base64.b64encode(seed).decode(),
        base64.urlsafe_b64encode(seed).decode().rstrip("="),
        match.state_text,
    ]
    if match.pending:
        seat = match.turn.pending_seat
        forms.append(match.game.format_position(match.state_for(seat)))
    return forms


def _assert_no_secret(text: str, secrets: list[str], where: str) -> None:
    for secret in secrets:
        assert secret not in text, f"{where} contains the seed or a position string"


_Entry = tuple[int, str, str, bool]


def _expected_log(
    match: StoredMatch, seat: int | None, cache: dict[tuple[int, int | None], list[_Entry]], after: int = 0
) -> list[_Entry]:
    """The log lines ``seat`` may see of the decisions after ``after``; committed lines are
    cached by (seq, seat)."""
    game = match.game
    out: list[_Entry] = []
    for row in match.log:
        if row.seq <= after:
            continue
        key = (row.seq, seat)
        if key not in cache:
            events = (Event.from_json(raw) for raw in row.events)
            cache[key] = [
                (row.seq, e.kind, game.describe(e, "en"), False) for e in events if e.is_visible_to(seat)
            ]
        out += cache[key]
    if seat is not None and match.pending and match.turn.pending_seat == seat:
        out += [
            (len(match.log) + i, e.kind, game.describe(e, "en"), True)
            for i, decision in enumerate(match.turn.pending, start=1)
            for e in decision.events
            if e.is_visible_to(seat)
        ]
    return out


def _log_of(body: dict[str, Any]) -> list[_Entry]:
    return [(e["seq"], e["kind"], e["text"], e["pending"]) for e in body["log"]]


class Sweep:
    """One match, its viewers and the checks; see the module doc."""

    def __init__(
        self, server: Server, database_url: str, engine: AsyncEngine, game: Game, match_id: int
    ) -> None:
        self.server = server
        self.database_url = database_url
        self.engine = engine
        self.game = game
        self.match_id = match_id
        self.views_seen: dict[int | None, dict[int, Any]] = {}
        """Each viewer's view at each version it was asked at (the pushes must agree)."""
        self.altered = 0
        self.checked_pages = 0
        self.log_cache: dict[tuple[int, int | None], list[_Entry]] = {}

    async def check_answers(
        self, viewers: list[tuple[int | None, Actor]]
    ) -> tuple[StoredMatch, dict[Any, Any]]:
        match = await read_match(self.database_url, self.match_id, self.engine)
        secrets = _secrets(match) if match.status == "active" else []
        answers: dict[int | None, dict[str, Any]] = {}
        responses = await asyncio.gather(
            *(actor.get(f"/api/matches/{self.match_id}") for _, actor in viewers)
        )
        for (seat, _), response in zip(viewers, responses, strict=True):
            assert response.status_code == 200, response.text
            body = response.json()
            assert body["viewer_seat"] == seat
            expected = _json(self.game.view(match.state_for(seat), seat))
            assert body["view"] == expected, (
                f"seat {seat}: the API view is not the game's view of the real state"
            )
            # A view shows the newest LOG_PAGE decisions (earlier ones page by page).
            assert body["log_after"] == max(0, len(match.log) - LOG_PAGE)
            assert _log_of(body) == _expected_log(match, seat, self.log_cache, body["log_after"]), (
                f"seat {seat}: log shows other events"
            )
            _assert_no_secret(response.text, secrets, f"the API answer for seat {seat}")
            answers[seat] = body
            self.views_seen.setdefault(seat, {})[body["version"]] = body["view"]
        return match, answers

    async def check_altered_hidden_data(
        self, match: StoredMatch, viewers: list[tuple[int | None, Actor]]
    ) -> None:
        """Alter each viewer's unknowns in the database: their answer and pages stay identical."""
        committed = match.turn.committed
        for seat, actor in viewers:
            altered = scramble(self.game.slug, committed, seat)
            altered_text = self.game.format_position(altered)
            if altered_text == match.state_text:
                continue
            paths = [
                f"/api/matches/{self.match_id}",
                f"/matches/{self.match_id}",
                f"/matches/{self.match_id}/area",
            ]
            before = [await actor.get(p) for p in paths]
            await write_state(self.engine, self.match_id, altered_text)
            try:
                after = [await actor.get(p) for p in paths]
            finally:
                await write_state(self.engine, self.match_id, match.state_text)
            # Read again once restored: the server keeps the match as it last read it, and a
            # decision at the same version trusts that copy (nothing but this test changes a
            # state without a new version), so the next decision must not meet the altered one.
            restored = await actor.get(paths[0])
            assert restored.text == before[0].text, "the restored match answers as before"
            for path, one, two in zip(paths, before, after, strict=True):
                assert one.status_code == two.status_code == 200, (path, one.status_code, two.status_code)
                assert one.text == two.text, f"{path} for seat {seat} changes with data that seat may not see"
                _assert_no_secret(one.text, [*_secrets(match), altered_text], f"{path} for seat {seat}")
            self.altered += 1
            self.checked_pages += 2

    async def check_replay_step(
        self, match: StoredMatch, viewers: list[tuple[int | None, Actor]], rng: random.Random
    ) -> None:
        # Replay steps are decisions a player counts (a confirm belongs to the one it ends).
        ends = step_ends([(row.seat, row.move) for row in match.log])
        step = rng.randint(0, len(ends))
        upto = ends[step - 1] if step else 0
        moves = [(row.seat, Move.parse(row.move)) for row in match.log[:upto]]
        replayed = list(replay(self.game, match.players, match.options, match.seed, moves))[-1]
        secrets = _secrets(match)
        for seat, actor in viewers:
            response = await actor.get(f"/api/matches/{self.match_id}/replay/{step}")
            assert response.status_code == 200, response.text
            body = response.json()
            view = self.game.view(replayed.state, seat)
            assert body["step"] == step and body["view"] == _json(view), f"replay {step} for seat {seat}"
            assert body["view"] == _json(self.game.view(scramble(self.game.slug, replayed.state, seat), seat))
            visible = [  # the lines of the newest log page up to the step
                e
                for row in match.log[max(0, upto - LOG_PAGE) : upto]
                for e in row.events
                if Event.from_json(e).is_visible_to(seat)
            ]
            assert [e["kind"] for e in body["log"]] == [e["kind"] for e in visible]
            _assert_no_secret(response.text, secrets, f"replay step {step} for seat {seat}")
            page = await actor.get(f"/matches/{self.match_id}/replay", params={"step": step})
            assert page.status_code == 200
            _assert_no_secret(page.text, secrets, f"the replay page step {step} for seat {seat}")


async def _collect_sse(client: httpx.AsyncClient, url: str, into: list[str], ready: asyncio.Event) -> None:
    async with client.stream("GET", url) as response:
        assert response.status_code == 200
        ready.set()
        event = ""
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:") and event == "view":
                into.append(line[5:].strip())


@pytest.mark.parametrize(("slug", "seats", "options"), CASES, ids=[c[0] for c in CASES])
async def test_no_answer_page_log_sse_or_replay_shows_hidden_data(
    slug: str, seats: int, options: dict[str, Any], rel_server: Server, database_url: str, actors: list[Actor]
) -> None:
    game = get_game(slug)
    players, spectator = actors[:seats], actors[seats]
    viewers: list[tuple[int | None, Actor]] = [*enumerate(players), (None, spectator)]
    match_id = (await start_match(players, slug, options))["id"]
    engine = make_engine(database_url)
    sweep = Sweep(rel_server, database_url, engine, game, match_id)
    streams: list[list[str]] = [[] for _ in viewers]
    tasks = []
    for (_, actor), into in zip(viewers, streams, strict=True):
        ready = asyncio.Event()
        url = f"{rel_server.base_url}/api/live?match={match_id}"
        tasks.append(asyncio.create_task(_collect_sse(actor.client, url, into, ready)))
        await asyncio.wait_for(ready.wait(), 10)
    rng = random.Random(f"sweep:{slug}")
    decisions = 0
    try:
        while True:
            match, answers = await sweep.check_answers(viewers)
            if match.status != "active":
                break
            if decisions % SCRAMBLE_EVERY == 0:
                await sweep.check_altered_hidden_data(match, viewers)
            if decisions % REPLAY_EVERY == 0:
                await sweep.check_replay_step(match, viewers, rng)
            seat = min(answers[0]["to_act"])
            mine = answers[seat]
            body: dict[str, Any] = {"expected_version": mine["version"], "request_id": request_id()}
            if mine["can_undo"] and rng.random() < 0.06:
                action = "undo"
            else:
                action = "moves"
                greedy = str(game.timeout_move(match.state_for(seat), seat))
                body["move"] = rng.choice(mine["legal"]) if rng.random() < 0.3 else greedy
                body["confirm"] = rng.random() < 0.3  # now and then the confirm rides along
            answer = await players[seat].post(f"/api/matches/{match_id}/{action}", body)
            assert answer.status_code == 200, answer.text
            decisions += 1
            assert decisions < MAX_DECISIONS, f"{slug}: no end after {MAX_DECISIONS} decisions"
        await asyncio.sleep(0.3)  # the last nudges
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await dispose(engine)
    assert match.status == "finished"
    assert sweep.altered > 0, "no step had hidden data to alter: the sweep proved nothing"
    for (seat, _), messages in zip(viewers, streams, strict=True):
        assert len(messages) > 1, "a viewer got no live update at all"
        compared = 0
        own_lines = set(_expected_log(match, seat, sweep.log_cache))
        for message in messages:
            pushed = json.loads(message)
            assert pushed["viewer_seat"] == seat, "a stream carried another seat's view"
            committed = [e for e in _log_of(pushed) if not e[3]]
            assert set(committed) <= own_lines, f"seat {seat}: a pushed log line it may not see"
            asked = sweep.views_seen[seat].get(pushed["version"])
            if asked is not None:
                assert pushed["view"] == asked, f"seat {seat}: the pushed view is not its own view"
                compared += 1
        assert compared > 0, "no pushed view could be compared with an answer"


ENGINE_CASES = [("toy", 3, {}), ("draco", 4, {}), ("drachenland", 3, {}), ("felsental", 2, {})]


@pytest.mark.parametrize(("slug", "seats", "options"), ENGINE_CASES, ids=[c[0] for c in ENGINE_CASES])
def test_views_ignore_exactly_what_the_viewer_may_not_know(
    slug: str, seats: int, options: dict[str, Any]
) -> None:
    """The alteration has teeth: over whole random games (no HTTP), altering what seat s may
    not know never changes s's view, and at some step it does change another seat's view."""
    from app.engine.rng import Rng
    from app.engine.selfplay import derive_seed
    from tests.support.toygame import TOY

    game = TOY if slug == "toy" else get_game(slug)
    chooser = random.Random(slug)
    rng = Rng(derive_seed(f"{slug}:views", 1))
    state = game.setup(seats, game.info.normalise_options(options), rng)
    seen_by_others = 0
    steps = 0
    while game.outcome(state) is None:
        for seat in (*range(seats), None):
            altered = scramble(slug, state, seat)
            assert game.view(altered, seat) == game.view(state, seat), f"{slug} step {steps}: seat {seat}"
            others = [o for o in range(seats) if o != seat]
            seen_by_others += any(game.view(altered, o) != game.view(state, o) for o in others)
        actor = min(game.to_act(state))
        moves = game.legal_moves(state, actor)
        move = chooser.choice(moves) if chooser.random() < 0.3 else game.timeout_move(state, actor)
        state, _ = game.apply(state, actor, move, rng)
        steps += 1
    assert seen_by_others > steps // 4, f"{slug}: the alteration rarely touched anybody's hidden data"


# --- pending decisions: nothing anybody else can observe changes ------------------------------


PENDING_CASES = [("toy", 2), ("toy", 3)]


class _Observer:
    """Someone other than the acting seat: another seat, a spectator, a logged-out visitor."""

    def __init__(
        self, label: str, client: httpx.AsyncClient, recorder: StreamRecorder, *, seated: bool
    ) -> None:
        self.label = label
        self.client = client
        self.recorder = recorder
        self.seated = seated
        """A player of the match: hears of its chat (``chat.may_read``), as nobody else does."""


async def _observers(
    server: Server, match_id: int, others: list[tuple[str, Actor, bool]]
) -> tuple[list[_Observer], httpx.AsyncClient]:
    """The observers' streams, open: ``others`` are (label, actor, seated)."""
    visitor = httpx.AsyncClient(timeout=15.0)
    assert (await visitor.get(f"{server.base_url}/")).status_code == 200  # keeps its visitor cookie
    views = f"{server.base_url}/api/live?match={match_id}"
    pages = f"{server.base_url}/sse/live?m={match_id}"
    out = []
    for label, actor, seated in others:
        urls = [views, f"{pages}&me=1"]
        out.append(_Observer(label, actor.client, StreamRecorder(actor.client, urls), seated=seated))
    recorder = StreamRecorder(visitor, [views, pages])
    out.append(_Observer("logged-out visitor", visitor, recorder, seated=False))
    for observer in out:
        await observer.recorder.start()
    await _settle(out)
    for observer in out:
        observer.recorder.take()  # what a stream sends when it opens is not what is compared
    return out, visitor


async def _public_versions(observers: list[_Observer], base_url: str, match_id: int) -> list[int]:
    answers = [await o.client.get(f"{base_url}/api/matches/{match_id}") for o in observers]
    return [int(a.json()["version"]) for a in answers]


async def _settle(hearing: Sequence[_Observer] = ()) -> None:
    """Wait until each observer ``hearing`` of the change has an event on its streams, then long
    enough for a stray event to reach anybody. Nobody hearing: that while only."""
    for _ in range(600):  # up to 30 s: on a busy machine a push may take seconds to arrive
        if all(o.recorder.events for o in hearing):
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2 if hearing else 0.4)


def _relative(events: list[str], base: int) -> list[str]:
    """Stream events with match versions written relative to ``base`` (what the viewer saw):
    the ``version`` of a view or area event and the ``data-version`` in its rendered area."""

    def relative(version: int) -> str:
        return f"seen{version - base:+d}"

    out = []
    for event in events:
        url, _, line = event.partition(" ")
        if line.startswith("data:"):
            data = json.loads(line[5:])
            if isinstance(data.get("version"), int):
                data["version"] = relative(data["version"])
            for key in ("area", "clock"):
                if isinstance(data.get(key), str):
                    data[key] = re.sub(
                        r'data-version="(\d+)"', lambda m: f'data-version="{relative(int(m[1]))}"', data[key]
                    )
            line = f"data: {json.dumps(data, sort_keys=True)}"
        out.append(f"{url} {line}")
    return out


async def _public_moves(
    talker: Actor, match_id: int, observers: list[_Observer], base_url: str, two_players: bool
) -> list[list[str]]:
    """Another seat chats, offers a draw and takes the offer back. For each observer: the
    change of the version it GETs and the stream events, relative to the version it saw."""
    before = await _public_versions(observers, base_url, match_id)
    # Each with who hears of it: a chat message its players only, a draw offer everybody.
    players = [o for o in observers if o.seated]
    actions: list[tuple[str, dict[str, Any], list[_Observer]]] = [
        (f"/api/matches/{match_id}/messages", {"text": "hello"}, players)
    ]
    if two_players:
        actions += [
            (f"/api/matches/{match_id}/draw", {"action": "offer"}, observers),
            (f"/api/matches/{match_id}/draw", {"action": "decline"}, observers),
        ]
    seen: list[list[str]] = [[] for _ in observers]
    for path, body, hearing in actions:
        answer = await talker.post(path, body)
        assert answer.status_code in (200, 201), answer.text
        await _settle(hearing)
        now = await _public_versions(observers, base_url, match_id)
        for i, observer in enumerate(observers):
            seen[i] += [f"{path.rsplit('/', 1)[-1]}: GET version {now[i] - before[i]:+d}"]
            seen[i] += _relative(observer.recorder.take(), before[i])
    return seen


async def _pending_series(acting: Actor, match_id: int, rng: random.Random, steps: int) -> None:
    """Pending decisions and undos of the acting seat (never a commit)."""
    for _ in range(steps):
        mine = (await acting.get(f"/api/matches/{match_id}")).json()
        plays = [m for m in mine["legal"] if m != "confirm"]
        body: dict[str, Any] = {"expected_version": mine["version"], "request_id": request_id()}
        if mine["can_undo"] and (not plays or rng.random() < 0.4):
            answer = await acting.post(f"/api/matches/{match_id}/undo", body)
        else:
            answer = await acting.post(f"/api/matches/{match_id}/moves", {**body, "move": rng.choice(plays)})
        assert answer.status_code == 200 and not answer.json()["committed"], answer.text


@pytest.mark.parametrize(("slug", "seats"), PENDING_CASES, ids=[f"{s}-{n}" for s, n in PENDING_CASES])
async def test_pending_decisions_and_undos_change_nothing_anybody_else_observes(
    slug: str, seats: int, rel_server: Server, actors: list[Actor]
) -> None:
    """Every answer of every GET route (pages, API, lists, profiles) for every other seat, a
    spectator and a logged-out visitor is byte for byte the same before and after the acting
    seat's pending decisions and undos, and their streams (``/api/live``, ``/sse/live``)
    carry nothing meanwhile. Public moves of another seat beside pending decisions (a chat
    message, a draw offer and its withdrawal) change every observer's version and stream
    exactly as they do without any: the private count of decisions shows nowhere."""
    players, spectator = actors[:seats], actors[seats]
    match_id = (await start_match(players, slug))["id"]
    acting, talker = players[0], players[1]
    others = [(f"seat {i}", p, True) for i, p in enumerate(players) if i > 0]
    others.append(("spectator", spectator, False))
    summary = next(
        m for m in (await acting.get("/api/me/matches")).json()["your_turn"] if m["id"] == match_id
    )
    steps = (await acting.get(f"/api/matches/{match_id}/replay/0")).json()["steps"]
    facts = MatchFacts(match_id, slug, [p.name for p in players], steps, summary["invite_token"])
    paths = answer_paths(facts)
    observers, visitor = await _observers(rel_server, match_id, others)
    base = rel_server.base_url
    rng = random.Random(f"pending:{slug}:{seats}")
    problems: list[str] = []
    try:
        control = await _public_moves(talker, match_id, observers, base, seats == 2)

        async def unchanged_by_pending(steps: int) -> None:
            before = [await snapshot(o.client, base, paths) for o in observers]
            await _pending_series(acting, match_id, rng, steps)
            await _settle()
            for observer, one in zip(observers, before, strict=True):
                two = await snapshot(observer.client, base, paths)
                problems.extend(f"{observer.label}: {d}" for d in differences(one, two))
                problems.extend(f"{observer.label}: stream {e}" for e in observer.recorder.take())

        await unchanged_by_pending(7)
        beside_pending = await _public_moves(talker, match_id, observers, base, seats == 2)
        for observer, one, two in zip(observers, control, beside_pending, strict=True):
            if one != two:
                problems.append(f"{observer.label}: public moves beside pending decisions {two}, else {one}")
        await unchanged_by_pending(6)
    finally:
        for observer in observers:
            await observer.recorder.stop()
        await visitor.aclose()
    assert len(paths) > 30, paths
    assert not problems, "pending decisions show:\n" + "\n".join(problems)


# --- live streams held open while the table changes hands --------------------------------------


async def _late_seat_to_a_stand_in(database_url: str, match_id: int) -> None:
    """The clock runs out on the seat to act and a stand-in bot takes it (policy ``bot``): one
    clock round in this process, at a time past the deadline and every vacation day. Its news
    reaches the server through PostgreSQL; on SQLite (one process) the next change carries it."""
    engine = make_engine(database_url)
    broker = await Broker.start(database_url=database_url)
    try:
        sessionmaker = make_sessionmaker(engine)
        async with sessionmaker() as db:
            started = await db.scalar(select(Match.turn_started_at).where(Match.id == match_id))
        assert started is not None
        late_at = started + timedelta(days=1 + clocks.VACATION_DAYS_PER_YEAR + 1)
        for _ in range(50):
            report = await clocks.tick(sessionmaker, now=late_at)
            if not report.locked_out:
                break
            await asyncio.sleep(0.1)  # the server's own round holds the lock
        assert [s for m, s in report.handed_to_bots if m == match_id], report
    finally:
        await broker.stop()
        await dispose(engine)


async def _play_a_turn(match_id: int, now: dict[str, dict[str, Any]], players: dict[str, Actor]) -> None:
    """The player to act decides legal things until its turn is committed (streams push only
    commits: a pending decision is its own seat's business)."""
    label = next(
        label
        for label in players
        if now[label]["viewer_seat"] is not None and now[label]["viewer_seat"] in now[label]["to_act"]
    )
    actor, mine = players[label], now[label]
    for _ in range(20):
        body: dict[str, Any] = {"expected_version": mine["version"], "request_id": request_id()}
        plays = [m for m in mine["legal"] if m != "confirm"]
        if mine["can_confirm"] or not plays:
            answer = await actor.post(f"/api/matches/{match_id}/confirm", body)
        else:
            answer = await actor.post(f"/api/matches/{match_id}/moves", {**body, "move": plays[0]})
        assert answer.status_code == 200, answer.text
        if answer.json()["committed"]:
            return
        mine = answer.json()["match"]
    raise AssertionError("the turn did not end")


async def test_held_streams_push_only_what_their_viewer_may_see_now(
    rel_server: Server, database_url: str, is_postgres: bool, actors: list[Actor]
) -> None:
    """Issue 19, finding 1. Every viewer holds one ``/api/live`` stream open from the open table
    to the end: a player who joins and leaves before the start, three who play (seated in an
    order the start shuffles), a spectator and a logged-out visitor. The table changes hands
    (join, leave, the start's shuffle, moves, a stand-in bot, the seat taken back, a
    resignation, a logout) and after each change every push each stream carried must be
    exactly what its user's own GET showed at that version."""
    alice, mallory, bob, carol, eve = actors
    players = {"alice": alice, "mallory": mallory, "bob": bob, "carol": carol}
    created = await alice.post("/api/matches", {"game": "draco", "seats": 3, "options": {}})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    clock = await alice.client.put(
        alice.url(f"/api/matches/{match_id}/clock"),
        json={"days_per_move": 1, "policy": "bot"},
        headers={"X-CSRF-Token": alice.csrf},
    )
    assert clock.status_code == 200, clock.text
    visitor = httpx.AsyncClient(timeout=15.0)
    url = f"{rel_server.base_url}/api/live?match={match_id}"
    viewers = [*players.items(), ("eve (spectator)", eve)]
    streams = [HeldStream(label, actor.client, url) for label, actor in viewers]
    streams.append(HeldStream("visitor", visitor, url))
    watchers = Watchers(rel_server.base_url, match_id, streams)
    problems: list[str] = []
    seats_seen: list[dict[str, int | None]] = []

    async def step(what: str, announced: bool = True) -> dict[str, dict[str, Any]]:
        try:
            now = await watchers.settle(announced=announced)
        except AssertionError as error:
            raise AssertionError(f"after {what}: {error}") from None
        seats_seen.append({label: now[label]["viewer_seat"] for label in players})
        problems.extend(f"after {what}: {p}" for p in watchers.problems())
        watchers.forget_compared()
        return now

    try:
        for stream in streams:
            await stream.open()
        await step("opening")
        assert (await mallory.post(f"/api/matches/{match_id}/join", {})).status_code == 204
        await step("mallory joins")
        assert (await mallory.post(f"/api/matches/{match_id}/leave", {})).status_code == 204
        await step("mallory leaves")
        assert (await bob.post(f"/api/matches/{match_id}/join", {})).status_code == 204
        await step("bob joins")
        assert (await carol.post(f"/api/matches/{match_id}/join", {})).status_code == 204
        now = await step("carol joins: the start shuffles the seats")
        for turn in range(4):
            await _play_a_turn(match_id, now, players)
            now = await step(f"move {turn + 1}")
        late = next(label for label in players if now[label]["viewer_seat"] in now[label]["to_act"])
        await _late_seat_to_a_stand_in(database_url, match_id)
        await step(f"a stand-in takes {late}'s seat", announced=is_postgres)
        assert (await players[late].post(f"/api/matches/{match_id}/take-back")).status_code == 204
        now = await step(f"{late} takes the seat back")
        await _play_a_turn(match_id, now, players)
        now = await step("a move after the take-back")
        quitter = next(label for label in ("alice", "bob", "carol") if label != late)
        assert (await players[quitter].post(f"/api/matches/{match_id}/resign")).status_code == 200
        now = await step(f"{quitter} resigns")
        leaver = next(label for label in ("alice", "bob", "carol") if label not in (late, quitter))
        assert (await players[leaver].post("/api/auth/logout")).status_code == 204
        gone = next(s for s in streams if s.label == leaver)
        try:
            await asyncio.wait_for(gone.ended.wait(), 1.0)
        except TimeoutError:
            problems.append(f"{leaver} logged out: the stream is still open a second later")
        now = await step(f"{leaver} logs out")
        assert (await players[late].post(f"/api/matches/{match_id}/resign")).status_code == 200
        await step(f"{late} resigns after the logout")
    finally:
        await watchers.close()
        await visitor.aclose()
    assert seats_seen[1]["mallory"] is not None and seats_seen[2]["mallory"] is None
    assert watchers.compared > 20, "too few pushes were compared: the sweep proved little"
    assert not problems, "pushes differ from their viewer's own view:\n" + "\n".join(problems)
