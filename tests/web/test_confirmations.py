"""Issue 13.2 over HTTP: resign, leave, cancel and abort act only when confirmed; unconfirmed,
each answers with the question saying what follows (the page a form without scripts gets)."""

from __future__ import annotations

import httpx
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import User
from tests.support.client import ApiUser
from tests.web.conftest import MakeApiUser, start_toy_match


async def _form(user: ApiUser, path: str, **data: str) -> httpx.Response:
    return await user.client.post(path, data={"csrf_token": user.csrf, **data})


async def _status(user: ApiUser, match_id: int) -> str:
    return str((await user.get(f"/api/matches/{match_id}")).json()["status"])


async def _open_table(creator: ApiUser, guest: ApiUser) -> int:
    created = await creator.post("/api/matches", {"game": "toy", "seats": 3, "fixed_order": True})
    assert created.status_code == 201, created.text
    match_id = int(created.json()["id"])
    assert (await guest.post(f"/api/matches/{match_id}/join", {})).status_code == 204
    return match_id


async def test_resign_asks_first(api_user: MakeApiUser) -> None:
    match = await start_toy_match(await api_user(), await api_user())
    path = f"/matches/{match.id}/resign"
    for answer in (
        await match.mover.get(path),
        await _form(match.mover, path),
        await _form(match.mover, path, confirmed="no"),
    ):
        assert answer.status_code == 200
        assert f"The match ends now: {match.other.name} wins, and you are ranked second." in answer.text
        assert 'name="confirmed" value="yes"' in answer.text
    assert await _status(match.mover, match.id) == "active"
    done = await _form(match.mover, path, confirmed="yes")
    assert done.status_code == 303 and await _status(match.mover, match.id) == "finished"
    assert (await match.mover.get(path)).status_code == 409  # nothing to resign from any more


async def test_leave_and_cancel_ask_first(api_user: MakeApiUser) -> None:
    alice, bob = await api_user(), await api_user(locale="de")
    match_id = await _open_table(alice, bob)

    leave = await _form(bob, f"/matches/{match_id}/leave")
    assert leave.status_code == 200 and "Dein Platz wird für jemand anderen frei." in leave.text
    assert bob.id in [s["user_id"] for s in (await bob.get(f"/api/matches/{match_id}")).json()["seats"]]
    cancel = await _form(alice, f"/matches/{match_id}/cancel")
    assert cancel.status_code == 200 and f"{bob.name} loses the seat." in cancel.text
    assert await _status(alice, match_id) == "open"
    assert (await alice.get(f"/matches/{match_id}/leave")).status_code == 409  # the creator cancels

    assert (await _form(bob, f"/matches/{match_id}/leave", confirmed="yes")).status_code == 303
    assert bob.id not in [s["user_id"] for s in (await bob.get(f"/api/matches/{match_id}")).json()["seats"]]
    assert (await _form(alice, f"/matches/{match_id}/cancel", confirmed="yes")).status_code == 303
    assert await _status(alice, match_id) == "cancelled"


async def test_abort_asks_the_administrator_first(api_user: MakeApiUser, db: AsyncSession) -> None:
    admin, alice, bob = await api_user(fresh=True), await api_user(fresh=True), await api_user(fresh=True)
    await db.execute(update(User).where(User.id == admin.id).values(is_admin=True))
    await db.commit()
    match = await start_toy_match(alice, bob)
    path = f"/admin/matches/{match.id}/abort"

    assert (await alice.get(path)).status_code == 403
    asked = await _form(admin, path)
    assert asked.status_code == 200 and "The match ends without a result and is not rated." in asked.text
    assert alice.name in asked.text and await _status(alice, match.id) == "active"
    assert (await _form(admin, path, confirmed="yes")).status_code == 303
    assert await _status(alice, match.id) == "aborted"
