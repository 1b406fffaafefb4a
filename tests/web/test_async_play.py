"""Asynchronous play over HTTP against a real uvicorn process: clock panel, draw, rematch,
profile, ranking, notifications, settings, the forgotten-password mail, administration.

The server is the platform's own app, sending mail to a real aiosmtpd sink.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from app.services import admin
from tests.services.async_support import Sink, smtp_sink
from tests.support.client import PASSWORD, ApiUser, csrf_for, log_in, register
from tests.support.server import Server


class AsyncPlayServer(Server):
    """The shared test server's recipe with SMTP to a sink."""

    def __init__(self, database_url: str, data_dir: Path, smtp_port: int) -> None:
        smtp = {
            "DRACHENHORT_SMTP_HOST": "127.0.0.1",
            "DRACHENHORT_SMTP_PORT": str(smtp_port),
            "DRACHENHORT_SMTP_FROM": "drachenhort@example.org",
            "DRACHENHORT_SMTP_STARTTLS": "false",
        }
        super().__init__(database_url, data_dir, env=smtp)
        self.smtp_port = smtp_port


@pytest.fixture(scope="module")
def sink_and_server(
    database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Sink, Server]]:
    with (
        smtp_sink() as (sink, port),
        AsyncPlayServer(database_url, tmp_path_factory.mktemp("async"), port) as server,
    ):
        yield sink, server


@pytest.fixture
async def pair(sink_and_server: tuple[Sink, Server]) -> AsyncIterator[tuple[ApiUser, ApiUser]]:
    _, server = sink_and_server
    alice, bob = await register(server.base_url), await register(server.base_url)
    yield alice, bob
    await alice.aclose()
    await bob.aclose()


async def _form(user: ApiUser, path: str, data: dict[str, str] | None = None) -> httpx.Response:
    return await user.client.post(path, data={"csrf_token": user.csrf, **(data or {})})


async def test_a_clocked_match_is_drawn_rematched_and_shows_in_profile_and_ranking(
    pair: tuple[ApiUser, ApiUser],
) -> None:
    alice, bob = pair
    created = await alice.post("/api/matches", {"game": "toy", "seats": 2, "fixed_order": True})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    refused = await _form(alice, f"/matches/{match_id}/time-control", {"days": "30", "policy": "vote"})
    assert refused.status_code == 422 and "1 to 14 days" in refused.text
    answer = await _form(alice, f"/matches/{match_id}/time-control", {"days": "3", "policy": "vote"})
    assert answer.status_code == 303
    assert (await bob.post(f"/api/matches/{match_id}/join", {})).status_code == 204

    panel = await alice.get(f"/matches/{match_id}/clock")
    assert panel.status_code == 200
    assert "Time control: 3 days per move" in panel.text and "Deadline" in panel.text
    assert 'data-action="draw-offer"' in panel.text and 'data-action="resign"' in panel.text

    assert (await _form(alice, f"/matches/{match_id}/draw/offer")).status_code == 303
    assert 'data-action="draw-accept"' in (await bob.get(f"/matches/{match_id}/clock")).text
    notes = await bob.get("/notifications")
    assert 'data-kind="draw_offered"' in notes.text
    assert "new" in (await bob.get("/me/unread")).text
    assert (await _form(bob, f"/matches/{match_id}/draw/accept")).status_code == 303
    panel = await alice.get(f"/matches/{match_id}/clock")
    assert 'data-conclusion="draw"' in panel.text
    ended = (await alice.get(f"/matches/{match_id}")).text
    assert "Drawn by agreement." in ended and 'data-action="rematch"' in ended
    stale = await _form(bob, f"/matches/{match_id}/resign")
    assert stale.status_code == 409 and "not running" in stale.text

    rematch = await _form(bob, f"/matches/{match_id}/rematch")
    assert rematch.status_code == 303
    new_id = int(rematch.headers["location"].rsplit("/", 1)[1])
    assert new_id != match_id
    assert 'data-kind="invited"' in (await alice.get("/notifications")).text

    profile = await bob.get(f"/users/{alice.name}")
    assert profile.status_code == 200 and f'data-match="{match_id}"' in profile.text
    assert 'data-game="toy"' in profile.text
    filtered = await bob.get(f"/users/{alice.name}", params={"opponent": "somebody-else"})
    assert f'data-match="{match_id}"' not in filtered.text
    ranking = await bob.get("/rankings/toy")
    assert ranking.status_code == 200 and alice.name in ranking.text and bob.name in ranking.text
    assert (await bob.get("/users/no-such-player-here")).status_code == 404


async def test_a_forgotten_password_is_reset_through_the_mailed_link(
    pair: tuple[ApiUser, ApiUser], sink_and_server: tuple[Sink, Server]
) -> None:
    sink, server = sink_and_server
    alice, _ = pair
    saved = await _form(alice, "/settings", {"email": "alice-web@example.org"})
    assert saved.status_code == 200 and "Saved." in saved.text and "alice-web@example.org" in saved.text
    async with httpx.AsyncClient(base_url=server.base_url) as visitor:
        csrf = (await visitor.get("/api/auth/csrf")).json()["csrf_token"]
        assert (await visitor.get("/password/forgot")).status_code == 200
        sent = await visitor.post("/password/forgot", data={"csrf_token": csrf, "name": alice.name})
        assert sent.status_code == 200 and "on its way" in sent.text
        [message] = sink.to("alice-web@example.org")
        link = re.search(r"http://\S+/password/reset/(\S+)", message.get_content())
        assert link is not None
        reset = await visitor.post(
            f"/password/reset/{link.group(1)}", data={"csrf_token": csrf, "password": "a brand new password"}
        )
        assert reset.status_code == 303, reset.text[-400:]
    again = await log_in(server.base_url, alice.name, "a brand new password")
    await again.aclose()


async def test_the_administrator_resets_a_password_and_others_may_not(
    pair: tuple[ApiUser, ApiUser], sink_and_server: tuple[Sink, Server], db: AsyncSession
) -> None:
    _, server = sink_and_server
    alice, bob = pair
    assert (await bob.get("/admin")).status_code == 403
    await admin.create_admin(db, name=alice.name, password=PASSWORD)
    # Setting her password ended alice's sessions (every password change does): she logs in again.
    admin_alice = await log_in(server.base_url, alice.name)
    try:
        # The first page lists 500 people by name; a whole test run has more: find bob by name.
        page = await admin_alice.get("/admin", params={"name": bob.name[:4].upper()})
        assert page.status_code == 200 and f'data-user="{bob.name}"' in page.text
        shown = await _form(admin_alice, f"/admin/users/{bob.id}/reset-password")
        found = re.search(r'id="new-password">[^<]*<code>([^<]+)</code>', shown.text)
        assert shown.status_code == 200 and found is not None
        bob_again = await log_in(server.base_url, bob.name, found.group(1))
        await bob_again.aclose()
        assert (await _form(admin_alice, f"/admin/users/{bob.id}/disable")).status_code == 303
        assert await admin.is_disabled(db, user_id=bob.id)
    finally:
        await admin_alice.aclose()


async def test_the_json_api_resigns_and_reports_clock_badge_ranking_and_history(
    pair: tuple[ApiUser, ApiUser],
) -> None:
    alice, bob = pair
    created = await alice.post("/api/matches", {"game": "toy", "seats": 2, "fixed_order": True})
    match_id = created.json()["id"]
    clock = await alice.client.put(
        f"/api/matches/{match_id}/clock",
        json={"days_per_move": 7, "policy": "abort"},
        headers={"X-CSRF-Token": alice.csrf},
    )
    assert clock.status_code == 200 and clock.json()["days_per_move"] == 7
    assert (await bob.post(f"/api/matches/{match_id}/join", {})).status_code == 204
    badge = (await alice.get("/api/me/badge")).json()
    assert badge["your_turn"] >= 1
    answer = await bob.post(f"/api/matches/{match_id}/resign")
    assert answer.status_code == 200 and answer.json()["conclusion"] == "resigned"
    assert answer.json()["resigned"] == [1]
    again = await bob.post(f"/api/matches/{match_id}/resign")
    assert again.status_code == 409 and "not running" in again.json()["detail"]
    history = (await bob.get(f"/api/users/{alice.name}/ratings/toy")).json()
    assert [p["match_id"] for p in history][-1] == match_id and history[-1]["rank"] == 1
    table = (await bob.get("/api/rankings/toy")).json()
    names = [row["name"] for row in table]
    assert names.index(alice.name) < names.index(bob.name)
    kinds = [n["kind"] for n in (await alice.get("/api/me/notifications")).json()]
    assert "match_ended" in kinds


async def test_a_clock_chosen_with_computer_opponents_is_the_match_clock(
    pair: tuple[ApiUser, ApiUser],
) -> None:
    """A table of bots starts at once: the clock the form took is still the match's clock."""
    alice, _ = pair
    answer = await _form(
        alice, "/matches", {"game": "draco", "seats": "2", "bots": "normal", "days": "1", "policy": "vote"}
    )
    assert answer.status_code == 303, answer.text
    match_id = int(answer.headers["location"].rsplit("/", 1)[1])
    clock = (await alice.get(f"/api/matches/{match_id}/clock")).json()
    assert (clock["days_per_move"], clock["policy"]) == (1, "vote")
    assert "Time control: 1 day per move" in (await alice.get(f"/matches/{match_id}/clock")).text

    created = await alice.post(
        "/api/matches", {"game": "draco", "seats": 2, "bots": "easy", "days_per_move": 3, "policy": "abort"}
    )
    assert created.status_code == 201, created.text
    assert created.json()["status"] == "active"
    clock = (await alice.get(f"/api/matches/{created.json()['id']}/clock")).json()
    assert (clock["days_per_move"], clock["policy"]) == (3, "abort")


async def test_a_password_is_changed_in_the_settings_and_other_sessions_end(
    sink_and_server: tuple[Sink, Server],
) -> None:
    """Issue 20.13: no mail needed; the current password is asked; other sessions end, this one stays."""
    _, server = sink_and_server
    alice = await register(server.base_url)
    other = await log_in(server.base_url, alice.user["name"])
    try:
        page = await alice.get("/settings")
        assert 'action="/settings/password"' in page.text and 'name="time_zone"' in page.text
        assert 'name="language"' in page.text and 'name="mail_opt_out"' in page.text

        wrong = {"current": "not my password", "new": "a new secret 1", "repeated": "a new secret 1"}
        refused = await _form(alice, "/settings/password", wrong)
        assert refused.status_code == 422 and "current password is not right" in refused.text
        differ = {"current": PASSWORD, "new": "a new secret 1", "repeated": "a new secret 2"}
        assert (await _form(alice, "/settings/password", differ)).status_code == 422
        assert (await other.get("/settings")).status_code == 200  # nothing changed yet

        right = {"current": PASSWORD, "new": "a new secret 1", "repeated": "a new secret 1"}
        changed = await _form(alice, "/settings/password", right)
        assert changed.status_code == 303 and changed.headers["location"] == "/settings?password=changed"
        shown = await alice.get("/settings?password=changed")
        assert shown.status_code == 200 and "Every other session" in shown.text  # this browser stays in
        assert (await other.get("/api/me/badge")).status_code == 401  # the other one is out
        with pytest.raises(AssertionError):
            await log_in(server.base_url, alice.user["name"])  # the old password is gone
        again = await log_in(server.base_url, alice.user["name"], "a new secret 1")
        await again.aclose()
    finally:
        await alice.aclose()
        await other.aclose()


async def test_the_settings_choose_language_and_time_zone(pair: tuple[ApiUser, ApiUser]) -> None:
    """Issue 20.10/13: times in the chosen zone and language, never UTC in ISO form."""
    alice, _ = pair
    alice.csrf = await csrf_for(alice.client)
    bad = await _form(alice, "/settings", {"time_zone": "Mars/Olympus"})
    assert bad.status_code == 422
    saved = await _form(alice, "/settings", {"time_zone": "Europe/Berlin", "language": "de"})
    assert saved.status_code == 200 and "Gespeichert" in saved.text
    assert 'value="Europe/Berlin" selected' in saved.text
    # A chat line's time, in Berlin's zone and in German, the whole moment on hover.
    created = await alice.post("/api/matches", {"game": "toy", "seats": 2, "fixed_order": True})
    match_id = created.json()["id"]
    assert (await alice.post(f"/api/matches/{match_id}/messages", {"text": "hallo"})).status_code == 201
    shown = (await alice.get(f"/matches/{match_id}")).text
    assert re.search(r"heute \d\d:\d\d", shown) and " UTC" not in shown
    assert "MEZ" in shown or "MESZ" in shown
