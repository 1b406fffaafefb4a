"""The table's chat over real HTTP (issue 19, finding 10).

- Only those who may read a match's chat hear of a new message on the pages' stream: its
  players; not a spectator, a logged-out visitor or someone who sat at the open table and left.
- A message is kept NFC-normalised; one that could disguise text (bidirectional controls,
  invisible characters, a pile of combining marks) is refused with a 422 and its reason, in
  the page's language on the page, and nothing is stored.
"""

from __future__ import annotations

import asyncio
import unicodedata
from typing import Any

import httpx

from tests.reliability.observed import StreamRecorder
from tests.reliability.support import Actor, request_id

REFUSED = [
    (
        "a right-to-left override",
        "gg \u202eevil.exe",
        "the message contains characters that change the direction of text",
    ),
    ("an isolate", "a \u2067b\u2069", "the message contains characters that change the direction of text"),
    ("a zero-width space", "pass\u200bword", "the message contains invisible characters"),
    ("a word joiner", "a\u2060b", "the message contains invisible characters"),
    ("a Hangul filler", "\u3164", "the message contains invisible characters"),
    ("499 combining marks", "Z" + "\u0336" * 499, "the message stacks too many marks on one character"),
    (
        "five marks on one letter",
        "q\u0300\u0301\u0302\u0303\u0304",
        "the message stacks too many marks on one character",
    ),
]
GERMAN = {
    "the message contains characters that change the direction of text": "Schreibrichtung",
    "the message contains invisible characters": "unsichtbare Zeichen",
    "the message stacks too many marks on one character": "zu viele Akzente",
}


async def _messages(actor: Actor, match_id: int) -> list[dict[str, Any]]:
    answer = await actor.get(f"/api/matches/{match_id}/messages")
    assert answer.status_code == 200, answer.text
    return list(answer.json())


async def test_a_message_that_could_disguise_text_is_refused_with_its_reason(actors: list[Actor]) -> None:
    alice, bob = actors[:2]
    match_id = await _toy_match(alice, bob)
    for what, text, reason in REFUSED:
        answer = await alice.post(f"/api/matches/{match_id}/messages", {"text": text})
        assert answer.status_code == 422, (what, answer.status_code, answer.text)
        assert answer.json()["detail"] == reason, what
    german = await alice.client.post(
        alice.url("/locale"), data={"locale": "de"}, headers={"X-CSRF-Token": alice.csrf}
    )
    assert german.status_code == 303, german.text
    for what, text, reason in REFUSED:
        page = await alice.client.post(
            alice.url(f"/matches/{match_id}/chat"),
            data={"text": text},
            headers={"X-CSRF-Token": alice.csrf, "HX-Request": "true"},
        )
        assert page.status_code == 422, (what, page.status_code)
        assert page.headers["hx-retarget"] == "#flash", "the reason shows where the page shows errors"
        assert GERMAN[reason] in page.text, (what, page.text[:300])
    assert await _messages(bob, match_id) == [], "a refused message was stored"


async def test_a_message_is_kept_composed_and_real_scripts_and_emoji_pass(actors: list[Actor]) -> None:
    alice, bob = actors[:2]
    match_id = await _toy_match(alice, bob)
    composed = "\u00e9t\u00e9"
    texts = [
        "e\u0301te\u0301",  # decomposed accents: kept composed (NFC)
        "Vi\u1ec7t Nam",
        "\u05e9\u05c1\u05b8\u05dc\u05d5\u05b9\u05dd",  # Hebrew points
        "\u0928\u092e\u0938\u094d\u0924\u0947",  # Devanagari vowel signs and virama
        "\U0001f469\u200d\U0001f4bb \U0001f44d\U0001f3fd \u2764\ufe0f",  # emoji keep their joiners
        "two\nlines\tand a tab",
    ]
    for text in texts:
        answer = await alice.post(f"/api/matches/{match_id}/messages", {"text": text})
        assert answer.status_code == 201, (text, answer.text)
    kept = [m["text"] for m in await _messages(bob, match_id)]
    assert kept == [unicodedata.normalize("NFC", t) for t in texts]
    assert kept[0] == composed


async def test_only_those_who_may_read_the_chat_hear_of_a_message(
    actors: list[Actor],
) -> None:
    """Mallory sits at the open table with her pages' stream open and leaves; the match starts
    with Alice, Bob and Carol. When Alice chats, Bob's stream says so; Mallory's, a spectator's and a
    visitor's do not. A move afterwards reaches every stream (each says ``area``), so by then
    any chat event sent before it has arrived too."""
    alice, bob, carol, mallory, eve = actors
    created = await alice.post("/api/matches", {"game": "toy", "seats": 3, "options": {}})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    assert (await mallory.post(f"/api/matches/{match_id}/join", {})).status_code == 204
    visitor = httpx.AsyncClient(timeout=15.0)
    url = alice.url(f"/sse/live?m={match_id}")
    listeners = {
        "bob": StreamRecorder(bob.client, [url]),
        "mallory (left)": StreamRecorder(mallory.client, [url]),
        "eve (spectator)": StreamRecorder(eve.client, [url]),
        "visitor": StreamRecorder(visitor, [url]),
    }
    try:
        for recorder in listeners.values():
            await recorder.start()
        assert (await mallory.post(f"/api/matches/{match_id}/leave", {})).status_code == 204
        for player in (bob, carol):
            assert (await player.post(f"/api/matches/{match_id}/join", {})).status_code == 204
        said = await alice.post(f"/api/matches/{match_id}/messages", {"text": "hello Bob"})
        assert said.status_code == 201, said.text
        await _commit_a_turn(match_id, [alice, bob, carol])
        for label, recorder in listeners.items():
            await _wait_for(recorder, "event: area", label)
        heard = {label: _chat_events(recorder) for label, recorder in listeners.items()}
    finally:
        for recorder in listeners.values():
            await recorder.stop()
        await visitor.aclose()
    assert heard == {"bob": 1, "mallory (left)": 0, "eve (spectator)": 0, "visitor": 0}


async def _toy_match(alice: Actor, bob: Actor) -> int:
    created = await alice.post("/api/matches", {"game": "toy", "seats": 2, "options": {}})
    assert created.status_code == 201, created.text
    match_id = int(created.json()["id"])
    assert (await bob.post(f"/api/matches/{match_id}/join", {})).status_code == 204
    return match_id


async def _commit_a_turn(match_id: int, players: list[Actor]) -> None:
    for player in players:
        mine = (await player.get(f"/api/matches/{match_id}")).json()
        if mine["viewer_seat"] in mine["to_act"]:
            break
    for _ in range(20):
        body: dict[str, Any] = {"expected_version": mine["version"], "request_id": request_id()}
        plays = [m for m in mine["legal"] if m != "confirm"]
        if mine["can_confirm"] or not plays:
            answer = await player.post(f"/api/matches/{match_id}/confirm", body)
        else:
            answer = await player.post(f"/api/matches/{match_id}/moves", {**body, "move": plays[0]})
        assert answer.status_code == 200, answer.text
        if answer.json()["committed"]:
            return
        mine = answer.json()["match"]
    raise AssertionError("the turn did not end")


async def _wait_for(recorder: StreamRecorder, line: str, label: str) -> None:
    try:
        async with asyncio.timeout(5):
            while not any(event.endswith(line) for event in recorder.events):
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"{label}: no {line!r} within 5 s") from None


def _chat_events(recorder: StreamRecorder) -> int:
    return sum(event.endswith("event: chat") for event in recorder.events)
