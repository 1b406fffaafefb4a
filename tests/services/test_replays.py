"""Replay steps from the kept index (checkpoints, the last state built) equal a rebuild from decision 1.

Issue 19.4: a step used to rebuild the whole match and carry its whole log. Now it starts from
the nearest kept state; these tests compare every answer with the old way of working it out,
at random steps, across checkpoint boundaries, for every game, while the match still grows.
"""

from __future__ import annotations

import json
import random

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

import app.games  # noqa: F401 - importing registers every game
from app.db.models import LoggedMove, Match
from app.db.store.records import LogRow
from app.engine.protocol import Move
from app.engine.registry import all_games, get_game
from app.engine.replay import rebuild
from app.services import play, replays
from app.services.errors import Conflict
from app.services.play.log import LoggedRow, visible
from app.services.play.views import LOG_PAGE
from app.services.schemas import ReplayView, UserOut
from tests.conftest import MakeUser
from tests.support.db import new_request_id, start_toy_match

SMALL_CHECKPOINTS = 7
"""Checkpoints this close make a short match cross many of them (the server keeps 100)."""


async def _play(
    db: AsyncSession, match_id: int, users: list[UserOut], chooser: random.Random, count: int
) -> None:
    """Up to ``count`` random legal decisions (now and then an undo) through the services."""
    for _ in range(count):
        public = await play.get_match(db, match_id=match_id, viewer_id=None, locale="en")
        if public.status != "active":
            return
        user = users[public.to_act[0]]
        view = await play.get_match(db, match_id=match_id, viewer_id=user.id, locale="en")
        ids = {"match_id": match_id, "user_id": user.id, "expected_version": view.version}
        if view.can_undo and chooser.random() < 0.15:
            await play.undo_move(db, **ids, request_id=new_request_id(), locale="en")
        else:
            move = chooser.choice(view.legal)
            await play.submit_move(db, **ids, move=move, request_id=new_request_id(), locale="en")


async def _expected(db: AsyncSession, match_id: int) -> tuple[Match, list[LoggedMove]]:
    match = await db.scalar(
        select(Match).where(Match.id == match_id).execution_options(populate_existing=True)
    )
    assert match is not None and match.seed is not None
    rows = await db.scalars(
        select(LoggedMove).where(LoggedMove.match_id == match_id).order_by(LoggedMove.seq)
    )
    return match, list(rows)


def _json(value: object) -> object:
    return json.loads(json.dumps(value))


def _assert_rebuilt_from_the_start(
    shown: ReplayView, match: Match, logged: list[LoggedMove], seat: int | None
) -> None:
    """``shown`` is what rebuilding the step from decision 1 gives (the old way), its log a page."""
    assert match.seed is not None
    game = get_game(match.game, match.ruleset)
    ends = replays.step_ends([(row.seat, row.move) for row in logged])
    step = shown.step
    assert shown.steps == len(ends)
    upto = ends[step - 1] if step else 0
    start = ends[step - 2] if step > 1 else 0
    moves = [(row.seat, Move.parse(row.move)) for row in logged[:upto]]
    state = rebuild(game, match.players, match.options, match.seed, moves).state
    assert _json(shown.view) == _json(game.view(state, seat)), f"step {step} for seat {seat}"
    rows = [LoggedRow.from_row(LogRow(r.seq, r.seat, r.move, tuple(r.events))) for r in logged[:upto]]
    assert shown.log == visible(game, rows[-LOG_PAGE:] if upto else [], seat, "en")
    assert shown.step_log == visible(game, rows[start:], seat, "en")
    assert (shown.seat, shown.move) == ((logged[start].seat, logged[start].move) if step else (None, None))
    assert shown.log_before == max(0, upto - LOG_PAGE)


@pytest.mark.parametrize("slug", [g.slug for g in all_games()])
async def test_any_step_equals_the_rebuild_from_the_first_decision(
    db: AsyncSession, make_user: MakeUser, monkeypatch: pytest.MonkeyPatch, slug: str
) -> None:
    monkeypatch.setattr(replays, "CHECKPOINT_EVERY", SMALL_CHECKPOINTS)
    game = get_game(slug)
    users = [await make_user() for _ in range(game.info.min_players)]
    viewers: list[tuple[int | None, int | None]] = [(None, None), *((u.id, i) for i, u in enumerate(users))]
    match_id = await start_toy_match(db, users, game=slug)
    chooser = random.Random(f"replay:{slug}")
    for _ in range(3):  # the index keeps up with a running match (and then a finished one)
        await _play(db, match_id, users, chooser, 40)
        match, logged = await _expected(db, match_id)
        steps = len(replays.step_ends([(row.seat, row.move) for row in logged]))
        # Random jumps (from checkpoints) and runs of next steps (from the last state built).
        wanted = [chooser.randint(0, steps) for _ in range(12)]
        start = chooser.randint(0, steps)
        wanted += list(range(start, min(steps, start + 2 * SMALL_CHECKPOINTS) + 1))
        wanted += [steps, 0]
        for step in wanted:
            user_id, seat = chooser.choice(viewers)
            shown = await replays.replay(db, match_id=match_id, viewer_id=user_id, step=step, locale="en")
            _assert_rebuilt_from_the_start(shown, match, logged, seat)
        with pytest.raises(Conflict, match=r"no such step"):
            await replays.replay(db, match_id=match_id, viewer_id=None, step=steps + 1, locale="en")


async def test_the_answer_carries_a_log_page_not_the_whole_log(db: AsyncSession, make_user: MakeUser) -> None:
    users = [await make_user() for _ in range(3)]
    match_id = await start_toy_match(db, users, game="drachenland")
    await _play(db, match_id, users, random.Random("long"), 6 * LOG_PAGE)
    match, logged = await _expected(db, match_id)
    assert len(logged) > 4 * LOG_PAGE

    last = await replays.replay(db, match_id=match_id, viewer_id=users[0].id, step=None, locale="en")
    _assert_rebuilt_from_the_start(last, match, logged, 0)
    assert last.log and {line.seq for line in last.log} <= set(
        range(len(logged) - LOG_PAGE + 1, len(logged) + 1)
    )
    assert last.log_before == len(logged) - LOG_PAGE  # the match's log pages on from there
    early = await replays.replay(db, match_id=match_id, viewer_id=users[0].id, step=LOG_PAGE, locale="en")
    # The answer's size does not grow with the step (before: with every line up to it).
    assert len(last.model_dump_json()) < 1.5 * len(early.model_dump_json())
