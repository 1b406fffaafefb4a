"""Issue 14: a server killed while its bot thinks loses nothing. The bot's turn is found again in
the database by the next process and applied exactly once."""

from __future__ import annotations

import asyncio
import random
import signal
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.reliability.support import Actor, new_actor, read_matches
from tests.support.server import Server

pytestmark = [pytest.mark.slow, pytest.mark.serial]  # kills a worker while a bot thinks: alone
THINK_MS = "4000"
"""The strong bot's budget on the killed server: long enough to kill it mid-thought."""


async def _view(actor: Actor, match_id: int) -> dict[str, Any]:
    answer = await actor.get(f"/api/matches/{match_id}")
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


async def _play_turn(actor: Actor, match_id: int, chooser: random.Random) -> None:
    """The person's whole turn over the API, until the turn passes on."""
    for _ in range(50):
        view = await _view(actor, match_id)
        if view["status"] != "active" or view["viewer_seat"] not in view["to_act"]:
            return
        body: dict[str, Any] = {
            "expected_version": view["version"],
            "request_id": f"p{random.getrandbits(48)}",
        }
        if "confirm" in view["legal"]:
            answer = await actor.post(f"/api/matches/{match_id}/confirm", body)
        else:
            answer = await actor.post(
                f"/api/matches/{match_id}/moves", {**body, "move": chooser.choice(view["legal"])}
            )
        assert answer.status_code == 200, answer.text
    raise AssertionError("the person's turn did not end")


async def test_a_server_killed_while_its_bot_thinks_loses_nothing_and_the_next_takes_the_turn_up(
    database_url: str, tmp_path: Path
) -> None:
    env = {"DRACHENHORT_BOT_THINK_MS": THINK_MS}
    victim = Server(database_url, tmp_path / "victim", env=env)
    victim.start()
    try:
        alice = await new_actor(victim.base_url, database_url)
        created = await alice.post(
            "/api/matches", {"game": "felsental", "seats": 2, "fixed_order": True, "bots": "strong"}
        )
        assert created.status_code == 201, created.text
        match_id = created.json()["id"]
        chooser = random.Random(7)
        await asyncio.sleep(0.5)  # should the bot move first, it does so now (no kill yet)
        deadline = time.monotonic() + 30
        while (await _view(alice, match_id))["viewer_seat"] not in (await _view(alice, match_id))["to_act"]:
            assert time.monotonic() < deadline, "the bot's first turn never came"
            await asyncio.sleep(0.2)
        await _play_turn(alice, match_id, chooser)
        before = (await read_matches(database_url, [match_id]))[0]
        await asyncio.sleep(1.0)  # the bot is thinking (4 s) in the victim's process pool
        assert victim.process is not None
        thinkers = psutil.Process(victim.process.pid).children(recursive=True)
        assert thinkers, "the victim's bot is thinking in its process pool"
        victim.process.send_signal(signal.SIGKILL)
        victim.process.wait(timeout=5)
        victim.process = None
        mid = (await read_matches(database_url, [match_id]))[0]
        assert len(mid.log) == len(before.log), "the bot had not committed before the kill"
    finally:
        victim.stop()

    # The next process (a restart, or another host) finds the bot's turn at its start.
    with Server(database_url, tmp_path / "next", env={"DRACHENHORT_BOT_THINK_MS": "50"}) as restarted:
        alice.base_url = restarted.base_url
        deadline = time.monotonic() + 30
        while True:
            view = await _view(alice, match_id)
            if view["status"] != "active" or view["viewer_seat"] in view["to_act"]:
                break
            assert time.monotonic() < deadline, "nobody took the bot's turn up again"
            await asyncio.sleep(0.2)
        after = (await read_matches(database_url, [match_id]))[0]
        await alice.aclose()
        assert "Traceback" not in restarted.log(), restarted.log()[-3000:]
    bot_seat = 1 - view["viewer_seat"]
    taken = after.log[len(before.log) :]
    assert taken and {row.seat for row in taken} == {bot_seat}, "the bot's turn, and nothing else"
    assert [row.seq for row in after.log] == list(range(1, len(after.log) + 1)), "each decision once"
