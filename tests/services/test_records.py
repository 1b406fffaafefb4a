"""Match records through the services on a real database: export of finished matches only,
import as finished, unrated, marked matches whose replay equals the original at every step."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.async_play import RatingChange
from app.db.models import ImportedMatch, LoggedMove, Match, MatchSeat
from app.engine.registry import get_game
from app.services import conclusions, replays
from app.services.errors import Forbidden, InvalidInput, NotFound, RateLimited
from app.services.records import store
from app.services.records.format import check_record
from tests.conftest import MakeUser
from tests.support.db import play_to_the_end, start_toy_match
from tests.support.records import CASES, case_id, play_match, record_of


async def _replays_equal(
    db: AsyncSession, original: int, imported: int, steps: list[int] | None = None
) -> int:
    last = await replays.replay(db, match_id=original, viewer_id=None, step=None, locale="en")
    copy = await replays.replay(db, match_id=imported, viewer_id=None, step=None, locale="en")
    assert copy.steps == last.steps
    for step in steps if steps is not None else range(last.steps + 1):
        a = await replays.replay(db, match_id=original, viewer_id=None, step=step, locale="en")
        b = await replays.replay(db, match_id=imported, viewer_id=None, step=step, locale="en")
        assert b.view == a.view, step
        assert [e.text for e in b.step_log] == [e.text for e in a.step_log], step
        assert (b.seat, b.move) == (a.seat, a.move)
    return last.steps


async def test_a_running_match_has_no_record(db: AsyncSession, make_user: MakeUser) -> None:
    users = [await make_user(), await make_user()]
    match_id = await start_toy_match(db, users, game="draco")
    with pytest.raises(Forbidden):
        await store.export(db, match_id=match_id, locale="en")
    with pytest.raises(NotFound):
        await store.export(db, match_id=match_id + 10_000, locale="en")


async def test_a_finished_match_exports_imports_and_replays_the_same_at_every_step(
    db: AsyncSession, make_user: MakeUser
) -> None:
    users = [await make_user(), await make_user()]
    match_id = await start_toy_match(db, users, game="draco")
    await play_to_the_end(db, match_id, users, seed=22)
    record = await store.export(db, match_id=match_id, locale="de")
    assert f'[Seat1 "{users[0].name}"]' in record.text and '[Language "de"]' in record.text
    checked = check_record(record.text)
    original = await db.get(Match, match_id, populate_existing=True)
    assert original is not None and checked.header.seed == original.seed

    importer = await make_user()
    copy_id = await store.import_record(db, user_id=importer.id, text=record.text)
    copy = await db.get(Match, copy_id, populate_existing=True)
    assert copy is not None and copy.status == "finished" and copy.result == original.result
    assert copy.state == original.state and copy.rng_counter == original.rng_counter
    marked = await db.get(ImportedMatch, copy_id)
    assert marked is not None and marked.imported_by == importer.id
    assert marked.names == [users[0].name, users[1].name]
    # Unrated and nobody's: no seat holds a user, no rating moved.
    assert (
        await db.scalar(
            select(func.count()).where(MatchSeat.match_id == copy_id, MatchSeat.user_id.is_not(None))
        )
        == 0
    )
    assert (
        await db.scalar(
            select(func.count()).select_from(RatingChange).where(RatingChange.match_id == copy_id)
        )
        == 0
    )
    # The imported match's record is the same text (the record's date is kept).
    again = await store.export(db, match_id=copy_id, locale="de")
    assert again.text == record.text
    steps = await _replays_equal(db, match_id, copy_id)
    assert steps > 20
    shown = await replays.replay(db, match_id=copy_id, viewer_id=None, step=0, locale="en")
    assert shown.imported and shown.imported_by == importer.name
    assert [s.name for s in shown.seats] == [users[0].name, users[1].name]


async def test_a_resigned_match_round_trips_with_its_conclusion(
    db: AsyncSession, make_user: MakeUser
) -> None:
    users = [await make_user(), await make_user()]
    match_id = await start_toy_match(db, users, game="felsental")
    await conclusions.resign(db, match_id=match_id, user_id=users[1].id)
    record = await store.export(db, match_id=match_id, locale="en")
    assert '[Conclusion "resigned"]' in record.text and '[Ranks "1 2"]' in record.text
    copy_id = await store.import_record(db, user_id=users[0].id, text=record.text)
    copy = await db.get(Match, copy_id, populate_existing=True)
    original = await db.get(Match, match_id, populate_existing=True)
    assert copy is not None and original is not None
    assert copy.result["ranks"] == original.result["ranks"] and copy.result["conclusion"] == "resigned"  # type: ignore[index]
    # The ranks of a match ended outside the rules are what the record says; the rest is checked.
    swapped = record.text.replace('[Ranks "1 2"]', '[Ranks "2 1"]')
    assert (
        await store.export(
            db, match_id=await store.import_record(db, user_id=users[0].id, text=swapped), locale="en"
        )
    ).text == swapped


DB_CASES = [
    case
    for case in CASES
    if case_id(case) not in ("drachenland-3-variant1=True", "drachenland-4-variant2=True")
]
"""Each game and variant (Drachenland's two variants together: its long random matches cost the
most here; tests/engine/test_records.py checks every case and player count without a database)."""


@pytest.mark.parametrize("case", DB_CASES, ids=case_id)
async def test_a_record_of_every_game_and_variant_imports_and_replays(
    db: AsyncSession, make_user: MakeUser, case: tuple[str, int, dict]
) -> None:
    slug, players, options = case
    played = play_match(slug, players, options, number=5)
    text = record_of(played)
    importer = await make_user()
    match_id = await store.import_record(db, user_id=importer.id, text=text)
    match = await db.get(Match, match_id, populate_existing=True)
    assert match is not None and match.options == dict(played.header.options) and match.players == players
    game = get_game(slug)
    assert match.state == game.format_position(played.states[-1])
    logged = list(
        await db.scalars(select(LoggedMove).where(LoggedMove.match_id == match_id).order_by(LoggedMove.seq))
    )
    assert [(row.seat, row.move) for row in logged] == [(s, str(m)) for s, m in played.moves]
    # The replay at steps across the match shows the state the match was in there.
    ends = replays.step_ends([(row.seat, row.move) for row in logged])
    chooser = random.Random(case_id(case))
    for step in sorted({0, len(ends), *chooser.sample(range(1, len(ends)), 6)}):
        shown = await replays.replay(db, match_id=match_id, viewer_id=None, step=step, locale="en")
        assert shown.view == game.view(played.states[ends[step - 1] if step else 0], None), step
    assert (await store.export(db, match_id=match_id, locale="en")).text == text


async def test_a_tampered_record_is_refused_at_its_line_and_creates_nothing(
    db: AsyncSession, make_user: MakeUser
) -> None:
    text = record_of(play_match("draco", 3, {}, number=2))
    lines = text.split("\n")
    index = next(i for i, line in enumerate(lines) if line.startswith("7. "))
    lines[index + 1] = lines[index + 1].replace("moves from", "flies from")
    user = await make_user()
    before = await db.scalar(select(func.count()).select_from(Match))
    with pytest.raises(store.RecordRefused) as refused:
        await store.import_record(db, user_id=user.id, text="\n".join(lines))
    assert refused.value.line == index + 2 and refused.value.decision == 7
    assert refused.value.reason.startswith(f"decision 7 (line {index + 2}): the record says")
    assert await db.scalar(select(func.count()).select_from(Match)) == before
    # No seed: checked, but not imported (a replay here rebuilds every draw from the seed).
    seedless = "\n".join(line for line in text.split("\n") if not line.startswith("[Seed "))
    with pytest.raises(InvalidInput, match="no Seed"):
        await store.import_record(db, user_id=user.id, text=seedless)


async def test_imports_are_limited_per_user_and_in_size(db: AsyncSession, make_user: MakeUser) -> None:
    user, other = await make_user(), await make_user()
    with pytest.raises(InvalidInput, match="at most"):
        await store.import_record(db, user_id=user.id, text="x" * (store.MAX_RECORD_BYTES + 1))
    for _ in range(store.IMPORTS.per):
        with pytest.raises(store.RecordRefused, match="line 1"):
            await store.import_record(db, user_id=user.id, text="not a record")
    with pytest.raises(RateLimited):
        await store.import_record(db, user_id=user.id, text="not a record")
    with pytest.raises(store.RecordRefused):  # another user's quota is their own
        await store.import_record(db, user_id=other.id, text="not a record")
