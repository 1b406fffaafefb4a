"""The end of a match on its page (issue 13.14): who won, a table of names, integer scores,
ranks and the game's tie-break, links to the replay and a rematch."""

from __future__ import annotations

import re

import httpx
from sqlalchemy.ext.asyncio import AsyncSession

import app.games  # noqa: F401 - importing registers every game
from app.services import play
from tests.conftest import MakeUser
from tests.support.db import new_request_id, start_toy_match
from tests.support.server import Server


async def _play_out(db: AsyncSession, match_id: int, users: list, first_choice: bool = True) -> None:  # type: ignore[type-arg]
    """The first legal decision of whoever is to act, until the end (deterministic and quick)."""
    for _ in range(5000):
        spectator = await play.get_match(db, match_id=match_id, viewer_id=None, locale="en")
        if spectator.status != "active":
            return
        user = users[spectator.to_act[0]]
        view = await play.get_match(db, match_id=match_id, viewer_id=user.id, locale="en")
        await play.submit_move(
            db,
            match_id=match_id,
            user_id=user.id,
            move=view.legal[0] if first_choice else view.legal[-1],
            expected_version=view.version,
            request_id=new_request_id(),
            locale="en",
        )
    raise AssertionError("the match did not end")


def _cells(page: str, seat: int) -> list[str]:
    row = re.search(rf'<tr[^>]*data-seat="{seat}">(.*?)</tr>', page, re.S)
    assert row is not None, page
    return re.findall(r"<t[dh][^>]*>\s*([^<]+?)\s*<", row.group(1))


async def test_felsental_shows_legs_won_and_wounds_inflicted_with_names(
    db: AsyncSession, make_user: MakeUser, server: Server
) -> None:
    alice, bob = await make_user(), await make_user(locale="de")
    match_id = await start_toy_match(db, [alice, bob], game="felsental")
    await _play_out(db, match_id, [alice, bob])
    final = await play.get_match(db, match_id=match_id, viewer_id=None, locale="en")
    outcome = final.outcome
    assert final.status == "finished" and outcome is not None
    assert outcome.score_label == "legs_won" and [t.label for t in outcome.tiebreaks] == ["wounds_inflicted"]

    async with httpx.AsyncClient(base_url=server.base_url) as spectator:
        english = (await spectator.get(f"/matches/{match_id}", headers={"Accept-Language": "en"})).text
        german = (await spectator.get(f"/matches/{match_id}", headers={"Accept-Language": "de"})).text
    headings = re.compile(
        r'<th scope="col" class="num">([^<]+)</th>\s*<th scope="col" class="num">([^<]+)</th>'
    )
    assert headings.findall(english)[-1] == ("Legs won", "Wounds inflicted")
    assert headings.findall(german)[-1] == ("Gewonnene Etappen", "Zugefügte Wunden")
    for seat, user in enumerate([alice, bob]):
        legs, wounds = int(outcome.scores[seat]), outcome.tiebreaks[0].values[seat]
        assert _cells(english, seat) == [f"{outcome.ranks[seat]}.", user.name, str(legs), str(wounds)]
    winners = [u.name for u, rank in zip([alice, bob], outcome.ranks, strict=True) if rank == 1]
    if len(winners) == 1:
        assert f"{winners[0]} wins!" in english and f"{winners[0]} gewinnt!" in german
    assert ("decided by the tie-break: Wounds inflicted" in english) is outcome.tiebreak_decided
    assert f'href="/matches/{match_id}/replay"' in english


async def test_a_resignation_says_who_won_and_shows_ranks_without_scores(
    db: AsyncSession, make_user: MakeUser, server: Server
) -> None:
    from app.services import conclusions

    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    await conclusions.resign(db, match_id=match_id, user_id=bob.id)
    async with httpx.AsyncClient(base_url=server.base_url) as spectator:
        page = (await spectator.get(f"/matches/{match_id}", headers={"Accept-Language": "en"})).text
    assert f"{alice.name} wins: {bob.name} resigned." in page
    assert _cells(page, 0) == ["1.", alice.name]
    assert _cells(page, 1)[:2] == ["2.", bob.name] and "resigned" in page
