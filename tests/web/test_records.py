"""Match records over HTTP on a real server: no record while a match runs (for players and
spectators alike), the record of a finished one as text, its import by API and by the page."""

from __future__ import annotations

import re
import socket

import httpx

from tests.support.records import play_match, record_of
from tests.support.server import Server
from tests.web.conftest import MakeApiUser


def _announced(server: Server, length: int) -> int:
    """The status the server answers a record upload announcing ``length`` bytes with, before
    any of them is sent."""
    head = f"POST /api/records HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {length}\r\n\r\n"
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(head.encode())
        if length < 1024 * 1024:
            sock.sendall(b"x" * length)
        answer = sock.recv(4096)
    return int(answer.split()[1])


async def _felsental(api_user: MakeApiUser) -> tuple[int, list]:
    alice, bob = await api_user(), await api_user()
    created = await alice.post("/api/matches", {"game": "felsental", "seats": 2, "fixed_order": True})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    assert (await bob.post(f"/api/matches/{match_id}/join", {})).status_code == 204
    return match_id, [alice, bob]


async def test_no_record_while_the_match_runs_then_the_record_as_text(
    server: Server, api_user: MakeApiUser
) -> None:
    match_id, (alice, bob) = await _felsental(api_user)
    stranger = await api_user()
    async with httpx.AsyncClient(base_url=server.base_url) as anonymous:
        for client in (alice, bob, stranger, anonymous):
            running = await client.get(f"/api/matches/{match_id}/record")
            assert running.status_code == 403, running.text
            assert "[Seed" not in running.text and "Seat 1" not in running.text
        assert (await anonymous.get("/api/matches/999999/record")).status_code == 404
        assert (await alice.post(f"/api/matches/{match_id}/resign", {})).status_code == 200
        finished = await anonymous.get(f"/api/matches/{match_id}/record")
    assert finished.status_code == 200
    assert finished.headers["content-type"].startswith("text/plain")
    assert "attachment" in finished.headers["content-disposition"]
    text = finished.text
    assert text.startswith("% Drachenhort match record 1\n")
    assert f'[Seat1 "{alice.name}"]' in text and f'[Seat2 "{bob.name}"]' in text
    assert re.search(r'^\[Seed "[0-9a-f]{64}"\]$', text, re.M)
    assert '[Conclusion "resigned"]' in text and '[Ranks "2 1"]' in text
    # The result page offers the download.
    page = await bob.get(f"/matches/{match_id}")
    assert f'href="/api/matches/{match_id}/record"' in page.text


async def test_import_by_api_makes_a_marked_match_and_refuses_a_tampered_record_at_its_line(
    server: Server, api_user: MakeApiUser
) -> None:
    text = record_of(play_match("draco", 2, {}, number=9))
    importer = await api_user()
    created = await importer.post(
        "/api/records", content=text.encode(), headers={"Content-Type": "text/plain"}
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    assert (await importer.get(f"/api/matches/{match_id}/record")).text == text
    replay = await importer.get(f"/matches/{match_id}/replay")
    assert replay.status_code == 200
    assert "data-imported" in replay.text and importer.name in replay.text and "Anna" in replay.text
    assert f'href="/api/matches/{match_id}/record"' in replay.text

    lines = text.split("\n")
    index = next(i for i, line in enumerate(lines) if line.startswith("12. "))
    lines[index] = re.sub(r": \S+$", ": play:purple:9", lines[index])
    refused = await importer.post(
        "/api/records", content="\n".join(lines).encode(), headers={"Content-Type": "text/plain"}
    )
    assert refused.status_code == 422
    assert refused.json()["line"] == index + 1 and refused.json()["decision"] == 12
    assert refused.json()["detail"].startswith(f"decision 12 (line {index + 1}): ")

    async with httpx.AsyncClient(base_url=server.base_url) as anonymous:
        csrf = (await anonymous.get("/api/auth/csrf")).json()["csrf_token"]
        nobody = await anonymous.post("/api/records", content=text.encode(), headers={"X-CSRF-Token": csrf})
    assert nobody.status_code == 401
    assert _announced(server, 2 * 1024 * 1024) == 413  # over the record limit: refused unread
    assert _announced(server, 200 * 1024) != 413  # over other bodies' 64 KiB: a record may be
    binary = await importer.post("/api/records", content=b"\xff\xfe\x00")
    assert binary.status_code == 422 and binary.json()["detail"] == "a record is UTF-8 text"


async def test_the_import_page_takes_a_file_and_shows_a_refusal(
    server: Server, api_user: MakeApiUser
) -> None:
    text = record_of(play_match("felsental", 2, {"legs": 1}, number=3))
    user = await api_user()
    form = await user.get("/records/import")
    assert form.status_code == 200 and 'type="file"' in form.text
    csrf = {"csrf_token": user.csrf}
    done = await user.client.post(
        "/records/import", data=csrf, files={"file": ("match.txt", text.encode(), "text/plain")}
    )
    assert done.status_code == 303 and re.fullmatch(r"/matches/\d+/replay", done.headers["location"])
    bad = text.replace('[Ranks "', '[Ranks "x', 1)
    refused = await user.client.post("/records/import", data={**csrf, "record": bad})
    assert refused.status_code == 422
    assert "The record was refused:" in refused.text and "Ranks are numbers" in refused.text
