"""A player who resigned decides nothing any more (issue 19, finding 7).

In a three-seat match the server plays a resigned seat's turns ("the server plays your
turns", README); before, the resigned player still saw legal moves and could move and confirm
on their seat's turn (kingmaking for free). Now their view offers nothing and every decision
they send is refused with a 409 that says why, in their language.
"""

from __future__ import annotations

from typing import Any

from tests.support.client import ApiUser, request_id
from tests.web.conftest import MakeApiUser

RESIGNED = {
    "en": "you have resigned: the server plays your turns",
    "de": "Du hast aufgegeben: Deine Züge macht jetzt der Server",
}


async def _confirm(user: ApiUser, view: dict[str, Any]) -> None:
    """The acting seat passes (the toy game lets a seat confirm without playing)."""
    body = {"expected_version": view["version"], "request_id": request_id()}
    response = await user.post(f"/api/matches/{view['id']}/confirm", body)
    assert response.status_code == 200, response.text


async def test_a_resigned_seat_has_no_moves_and_its_decisions_are_refused(api_user: MakeApiUser) -> None:
    alice, bob = await api_user(), await api_user()
    for carol in (await api_user(), await api_user(locale="de")):
        created = await alice.post("/api/matches", {"game": "toy", "seats": 3, "fixed_order": True})
        match_id = created.json()["id"]
        for other in (bob, carol):
            assert (await other.post(f"/api/matches/{match_id}/join", {})).status_code == 204
        resigned = await carol.post(f"/api/matches/{match_id}/resign")
        assert resigned.status_code == 200 and resigned.json()["resigned"] == [2], resigned.text

        # Alice and Bob pass until it is the resigned seat's turn (should the server's clock
        # round play that turn first, the next round comes back to it).
        for _ in range(6):
            view = (await carol.get(f"/api/matches/{match_id}")).json()
            if view["to_act"] == [2]:
                break
            acting = alice if view["to_act"] == [0] else bob
            await _confirm(acting, (await acting.get(f"/api/matches/{match_id}")).json())
        else:
            raise AssertionError("the resigned seat's turn never came")

        assert view["viewer_seat"] == 2 and view["legal"] == [] and not view["can_confirm"], view
        locale = carol.user["locale"]
        turn = {"expected_version": view["version"]}
        refused = [
            await carol.post(
                f"/api/matches/{match_id}/moves", {**turn, "move": "confirm", "request_id": request_id()}
            ),
            await carol.post(f"/api/matches/{match_id}/confirm", {**turn, "request_id": request_id()}),
            await carol.post(f"/api/matches/{match_id}/undo", {**turn, "request_id": request_id()}),
            await carol.post(f"/api/matches/{match_id}/vote-end"),
            await carol.post(f"/api/matches/{match_id}/take-back"),
        ]
        for response in refused:
            assert response.status_code == 409, response.text
            assert response.json()["detail"] == RESIGNED["en"], response.text  # the API speaks English
        # The match page's own buttons (htmx) say it in the player's language.
        form = {"expected_version": str(view["version"]), "request_id": request_id()}
        page = await carol.post(f"/matches/{match_id}/confirm", data=form, headers={"HX-Request": "true"})
        assert page.status_code == 409 and RESIGNED[locale] in page.text, page.text
        still = (await alice.get(f"/api/matches/{match_id}")).json()
        assert still["version"] == view["version"] and still["to_act"] == [2], "nothing was decided"
