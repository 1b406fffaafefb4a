"""The move path: pending, undo, confirm, optimistic locking, idempotent requests, views."""

from __future__ import annotations

import asyncio
import base64
import random

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.matches import VERSION_SPAN
from app.db.models import LoggedMove, Match, MoveRequest
from app.db.session import dispose, make_engine, make_sessionmaker
from app.db.types import utcnow
from app.engine.protocol import Move
from app.engine.replay import rebuild
from app.services import play, replays
from app.services.errors import (
    Conflict,
    Forbidden,
    IllegalMoveError,
    InvalidInput,
    NotFound,
    NotYourTurn,
    StaleVersion,
)
from app.services.play import views
from app.services.schemas import LogEntry, MatchView, MoveResult, UserOut
from tests.conftest import MakeUser
from tests.support.db import new_request_id, play_to_the_end, start_toy_match
from tests.support.toygame import TOY


async def _two_player_match(db: AsyncSession, make_user: MakeUser) -> tuple[int, UserOut, UserOut]:
    alice, bob = await make_user(), await make_user()
    return await start_toy_match(db, [alice, bob]), alice, bob


async def _move(db: AsyncSession, match_id: int, user: UserOut, move: str, version: int) -> MoveResult:
    return await play.submit_move(
        db,
        match_id=match_id,
        user_id=user.id,
        move=move,
        expected_version=version,
        request_id=new_request_id(),
        locale="en",
    )


async def _confirm(db: AsyncSession, match_id: int, user: UserOut, version: int) -> MoveResult:
    return await play.confirm_turn(
        db,
        match_id=match_id,
        user_id=user.id,
        expected_version=version,
        request_id=new_request_id(),
        locale="en",
    )


async def _undo(db: AsyncSession, match_id: int, user: UserOut, version: int) -> MoveResult:
    return await play.undo_move(
        db,
        match_id=match_id,
        user_id=user.id,
        expected_version=version,
        request_id=new_request_id(),
        locale="en",
    )


async def _view(db: AsyncSession, match_id: int, user: UserOut | None) -> MatchView:
    return await play.get_match(db, match_id=match_id, viewer_id=user.id if user else None, locale="en")


async def _log_count(db: AsyncSession, match_id: int) -> int:
    return (
        await db.scalar(select(func.count()).select_from(LoggedMove).where(LoggedMove.match_id == match_id))
        or 0
    )


async def test_a_legal_move_stays_pending_for_its_seat_only(db: AsyncSession, make_user: MakeUser) -> None:
    match_id, alice, bob = await _two_player_match(db, make_user)
    before = await _view(db, match_id, alice)
    assert before.viewer_seat == 0 and before.to_act == [0]
    assert before.legal[-1] == "confirm" and before.can_confirm and not before.can_undo
    card = before.legal[0]

    result = await _move(db, match_id, alice, card, before.version)
    assert not result.committed and result.version == before.version + 1
    assert result.match.can_undo
    assert len(result.match.view["hand"]) == 2
    assert [e.pending for e in result.match.log] == [True]
    assert await _log_count(db, match_id) == 0  # nothing committed yet

    others = await _view(db, match_id, bob)
    assert others.view["hand_sizes"] == [3, 3]  # the committed state
    assert not any(e.pending for e in others.log) and others.log == []
    assert not others.can_undo and others.legal == []


async def test_pending_move_then_undo(db: AsyncSession, make_user: MakeUser) -> None:
    match_id, alice, _ = await _two_player_match(db, make_user)
    start = await _view(db, match_id, alice)
    played = await _move(db, match_id, alice, start.legal[0], start.version)
    undone = await _undo(db, match_id, alice, played.version)
    assert not undone.committed and not undone.match.can_undo
    assert undone.match.view == start.view and undone.match.legal == start.legal
    with pytest.raises(IllegalMoveError, match="nothing to undo"):
        await _undo(db, match_id, alice, undone.version)


async def test_an_undo_on_a_kept_copy_that_does_not_add_up_reads_the_match_again(
    db: AsyncSession, make_user: MakeUser
) -> None:
    """The process keeps each match as it last read it, and a decision at that version trusts
    the copy (its versioned write checks). A copy whose state and pending decisions do not add
    up (only editing the database by hand makes one, as the hidden-information sweep does) is
    an illegal move there, and the undo is decided again on a fresh read: never an error while
    the answer is built."""
    match_id, alice, bob = await _two_player_match(db, make_user)
    start = await _view(db, match_id, alice)
    first = await _move(db, match_id, alice, start.legal[0], start.version)
    after_first = await _view(db, match_id, alice)
    second = await _move(db, match_id, alice, after_first.legal[0], first.version)
    original = await db.scalar(select(Match.state).where(Match.id == match_id))
    assert original is not None
    hands, *rest = original.split(" ")
    altered = " ".join(["000/" + hands.split("/", 1)[1], *rest])  # alice holds no card she played
    for text in (altered, original):  # the kept copy is read while the state is altered
        await db.execute(update(Match).where(Match.id == match_id).values(state=text))
        await db.commit()
        if text == altered:
            await _view(db, match_id, bob)
    undone = await _undo(db, match_id, alice, second.version)
    assert not undone.committed and undone.match.view == after_first.view


async def test_nobody_can_count_the_trial_and_error_of_a_turn_after_it(
    db: AsyncSession, make_user: MakeUser
) -> None:
    """A commit moves everybody's version on by one span, however many pending decisions and
    undos came before it (issue 11.2: once committed, the turn must not tell its undos)."""
    match_id, alice, bob = await _two_player_match(db, make_user)
    seen = []
    for tries in (0, 5):
        before = await _view(db, match_id, bob)
        mine = await _view(db, match_id, alice if before.to_act == [0] else bob)
        actor = alice if before.to_act == [0] else bob
        version = mine.version
        for _ in range(tries):
            version = (await _move(db, match_id, actor, mine.legal[0], version)).version
            version = (await _undo(db, match_id, actor, version)).version
        done = await _confirm(db, match_id, actor, version)
        after = await _view(db, match_id, bob)
        spectator = await _view(db, match_id, None)
        seen.append((after.version - before.version, spectator.version - before.version))
        assert done.version == after.version == spectator.version
    assert seen == [(VERSION_SPAN, VERSION_SPAN)] * 2


async def test_confirm_commits_pending_and_passes_the_turn(db: AsyncSession, make_user: MakeUser) -> None:
    match_id, alice, bob = await _two_player_match(db, make_user)
    start = await _view(db, match_id, alice)
    played = await _move(db, match_id, alice, start.legal[0], start.version)
    done = await _confirm(db, match_id, alice, played.version)
    assert done.committed and done.version == start.version + VERSION_SPAN
    assert done.match.to_act == [1] and not done.match.can_undo and done.match.legal == []
    assert len(done.match.view["hand"]) == 3
    assert await _log_count(db, match_id) == 2  # the play and the confirm
    assert (await _view(db, match_id, bob)).legal[-1] == "confirm"
    with pytest.raises(IllegalMoveError, match="nothing to undo"):
        await _undo(db, match_id, alice, done.version)


async def test_stale_version_is_refused(db: AsyncSession, make_user: MakeUser) -> None:
    match_id, alice, _ = await _two_player_match(db, make_user)
    start = await _view(db, match_id, alice)
    await _move(db, match_id, alice, start.legal[0], start.version)
    with pytest.raises(StaleVersion) as caught:
        await _move(db, match_id, alice, "confirm", start.version)
    assert caught.value.current_version == start.version + 1 and caught.value.status == 409


async def test_same_request_id_applies_once(db: AsyncSession, make_user: MakeUser) -> None:
    match_id, alice, bob = await _two_player_match(db, make_user)
    start = await _view(db, match_id, alice)
    request_id = new_request_id()
    args = {
        "match_id": match_id,
        "user_id": alice.id,
        "move": start.legal[0],
        "request_id": request_id,
        "locale": "en",
    }
    first = await play.submit_move(db, expected_version=start.version, **args)  # type: ignore[arg-type]
    again = await play.submit_move(db, expected_version=start.version, **args)  # type: ignore[arg-type]
    assert again == first
    assert (await _view(db, match_id, alice)).version == start.version + 1
    with pytest.raises(Exception, match="already used"):
        await play.submit_move(
            db,
            match_id=match_id,
            user_id=bob.id,
            move="confirm",
            expected_version=first.version,
            request_id=request_id,
            locale="en",
        )


async def test_a_repeated_request_gets_the_same_answer_after_the_match_moved_on(
    db: AsyncSession, make_user: MakeUser
) -> None:
    """The stored answer keeps the log by reference (a seq range), yet answers exactly as before."""
    match_id, alice, bob = await _two_player_match(db, make_user)
    start = await _view(db, match_id, alice)
    played = await _move(db, match_id, alice, start.legal[0], start.version)
    request_id = new_request_id()
    args = {"match_id": match_id, "user_id": alice.id, "request_id": request_id, "locale": "en"}
    first = await play.confirm_turn(db, expected_version=played.version, **args)  # type: ignore[arg-type]
    assert first.committed and any(not e.pending for e in first.match.log)
    stored = await db.scalar(
        select(MoveRequest.answer).where(
            MoveRequest.match_id == match_id, MoveRequest.request_id == request_id
        )
    )
    assert stored is not None and "log" not in stored["match"]  # no log lines stored
    # Bob moves on: the log grows, the repeated request still gets its own answer.
    bobs = await _view(db, match_id, bob)
    played = await _move(db, match_id, bob, bobs.legal[0], bobs.version)
    await _confirm(db, match_id, bob, played.version)
    again = await play.confirm_turn(db, expected_version=played.version, **args)  # type: ignore[arg-type]
    assert again == first
    # A pending decision's lines are not logged: they are stored with the answer.
    now = await _view(db, match_id, alice)
    pending = await _move(db, match_id, alice, now.legal[0], now.version)
    assert any(e.pending for e in pending.match.log)


async def test_a_move_sent_with_confirm_ends_the_turn_once_only_confirm_is_left(
    db: AsyncSession, make_user: MakeUser
) -> None:
    """``then_confirm`` folds the confirm into the move that leaves nothing else to decide: one
    write, both decisions logged as if sent apart, and a repeated request applies once."""
    match_id, alice, bob = await _two_player_match(db, make_user)
    start = await _view(db, match_id, alice)
    args = {"match_id": match_id, "user_id": alice.id, "locale": "en", "then_confirm": True}
    first_card = start.legal[0]
    first = await play.submit_move(
        db, move=first_card, expected_version=start.version, request_id=new_request_id(), **args
    )  # type: ignore[arg-type]
    assert not first.committed and first.match.can_undo, "a second card may still be played: no confirm"
    second_card, request_id = first.match.legal[0], new_request_id()
    second = await play.submit_move(
        db, move=second_card, expected_version=first.version, request_id=request_id, **args
    )  # type: ignore[arg-type]
    assert second.committed and second.match.to_act == [1] and not second.match.can_undo
    assert second.version == start.version + VERSION_SPAN, "one commit: the public version moved by one"
    logged = list(
        await db.scalars(select(LoggedMove).where(LoggedMove.match_id == match_id).order_by(LoggedMove.seq))
    )
    assert [m.move for m in logged] == [first_card, second_card, "confirm"]
    again = await play.submit_move(
        db, move=second_card, expected_version=first.version, request_id=request_id, **args
    )  # type: ignore[arg-type]
    assert again == second and await _log_count(db, match_id) == 3
    row = await db.get(Match, match_id, populate_existing=True)
    assert row is not None
    last = rebuild(TOY, 2, row.options, row.seed, [(m.seat, Move.parse(m.move)) for m in logged])
    assert TOY.format_position(last.state) == row.state
    assert (await _view(db, match_id, bob)).legal, "the turn passed to bob"


async def test_an_answer_stored_whole_is_still_understood(db: AsyncSession, make_user: MakeUser) -> None:
    match_id, alice, _ = await _two_player_match(db, make_user)
    start = await _view(db, match_id, alice)
    answer = MoveResult(version=start.version + 1, committed=False, match=start)
    request_id = new_request_id()
    db.add(
        MoveRequest(
            match_id=match_id,
            request_id=request_id,
            user_id=alice.id,
            answer=answer.model_dump(mode="json"),
            created_at=utcnow(),
        )
    )
    await db.commit()
    again = await play.submit_move(
        db,
        match_id=match_id,
        user_id=alice.id,
        move=start.legal[0],
        expected_version=start.version,
        request_id=request_id,
        locale="en",
    )
    assert again == answer


@pytest.mark.parametrize("same_request", [True, False], ids=["same-request-id", "different-request-ids"])
async def test_concurrent_twins_apply_once(
    sessionmaker: async_sessionmaker[AsyncSession], make_user: MakeUser, db: AsyncSession, same_request: bool
) -> None:
    match_id, alice, _ = await _two_player_match(db, make_user)
    start = await _view(db, match_id, alice)
    shared = new_request_id()

    async def attempt() -> MoveResult | StaleVersion:
        async with sessionmaker() as session:
            try:
                return await play.submit_move(
                    session,
                    match_id=match_id,
                    user_id=alice.id,
                    move=start.legal[0],
                    expected_version=start.version,
                    request_id=shared if same_request else new_request_id(),
                    locale="en",
                )
            except StaleVersion as error:
                return error

    outcomes = await asyncio.gather(attempt(), attempt())
    answers = [o for o in outcomes if isinstance(o, MoveResult)]
    stale = [o for o in outcomes if isinstance(o, StaleVersion)]
    after = await _view(db, match_id, alice)
    assert after.version == start.version + 1  # exactly one applied
    assert len([e for e in after.log if e.pending]) == 1
    if same_request:
        assert len(answers) == 2 or len(stale) == 1
        if len(answers) == 2:
            assert answers[0] == answers[1]
    else:
        assert len(answers) == 1 and len(stale) == 1


async def test_wrong_seat_and_strangers_are_refused(db: AsyncSession, make_user: MakeUser) -> None:
    match_id, _, bob = await _two_player_match(db, make_user)
    start = await _view(db, match_id, bob)
    with pytest.raises(NotYourTurn, match="not your turn") as caught:
        await _move(db, match_id, bob, "confirm", start.version)
    assert caught.value.status == 403
    stranger = await make_user()
    with pytest.raises(Forbidden, match="do not play"):
        await _move(db, match_id, stranger, "confirm", start.version)


async def test_illegal_and_malformed_moves_carry_the_reason(db: AsyncSession, make_user: MakeUser) -> None:
    match_id, alice, _ = await _two_player_match(db, make_user)
    start = await _view(db, match_id, alice)
    missing = next(v for v in range(1, 10) if v not in start.view["hand"])
    with pytest.raises(IllegalMoveError, match=f"'play:{missing}' is not a legal move now") as caught:
        await _move(db, match_id, alice, f"play:{missing}", start.version)
    assert caught.value.status == 422
    with pytest.raises(IllegalMoveError, match="malformed move"):
        await _move(db, match_id, alice, "play:<b>", start.version)
    assert (await _view(db, match_id, alice)).version == start.version  # nothing changed


async def test_pending_survives_a_restart(database_url: str, db: AsyncSession, make_user: MakeUser) -> None:
    match_id, alice, _ = await _two_player_match(db, make_user)
    start = await _view(db, match_id, alice)
    played = await _move(db, match_id, alice, start.legal[0], start.version)
    await db.close()

    engine = make_engine(database_url)  # a fresh engine, as after a restart or on another worker
    try:
        async with make_sessionmaker(engine)() as fresh:
            view = await _view(fresh, match_id, alice)
            assert view.can_undo and view.version == played.version and view.view == played.match.view
            done = await _confirm(fresh, match_id, alice, view.version)
            assert done.committed and await _log_count(fresh, match_id) == 2
    finally:
        await dispose(engine)


async def test_log_shows_a_drawn_hand_only_to_its_owner(db: AsyncSession, make_user: MakeUser) -> None:
    match_id, alice, bob = await _two_player_match(db, make_user)
    start = await _view(db, match_id, alice)
    played = await _move(db, match_id, alice, start.legal[0], start.version)
    await _confirm(db, match_id, alice, played.version)
    kinds = {
        "alice": [e.kind for e in (await _view(db, match_id, alice)).log],
        "bob": [e.kind for e in (await _view(db, match_id, bob)).log],
        "spectator": [e.kind for e in (await _view(db, match_id, None)).log],
    }
    assert kinds["alice"] == ["played", "drew", "drew_cards"]
    assert kinds["bob"] == kinds["spectator"] == ["played", "drew"]
    alice_log = (await _view(db, match_id, alice)).log
    assert alice_log[-1].text.startswith("You drew")


async def test_replay_of_every_step_equals_the_snapshot(db: AsyncSession, make_user: MakeUser) -> None:
    users = [await make_user(), await make_user(), await make_user()]
    match_id = await start_toy_match(db, users)
    final = await play_to_the_end(db, match_id, users, seed=7)
    assert final.status == "finished" and final.outcome is not None
    assert [s.rank for s in final.seats] == final.outcome.ranks

    row = await db.scalar(select(Match).where(Match.id == match_id))
    assert row is not None and row.seed is not None and row.state is not None
    logged = list(
        await db.scalars(select(LoggedMove).where(LoggedMove.match_id == match_id).order_by(LoggedMove.seq))
    )
    assert [m.seq for m in logged] == list(range(1, len(logged) + 1))
    last = rebuild(TOY, 3, row.options, row.seed, [(m.seat, Move.parse(m.move)) for m in logged])
    assert TOY.format_position(last.state) == row.state
    assert last.rng_counter == row.rng_counter

    # A step is a decision a player counts: a confirm belongs to the decision it ends.
    ends = replays.step_ends([(m.seat, m.move) for m in logged])
    assert ends[-1] == len(logged) and len(ends) < len(logged)
    for step in range(len(ends) + 1):
        shown = await replays.replay(db, match_id=match_id, viewer_id=users[1].id, step=step, locale="en")
        assert shown.step == step and shown.steps == len(ends)
        first = logged[ends[step - 2] if step > 1 else 0]
        assert (shown.seat, shown.move) == ((first.seat, first.move) if step else (None, None))
        if step:
            assert logged[ends[step - 1] - 1].seat == first.seat  # the step is one seat's
            assert {e.seq for e in shown.step_log} <= set(
                range(first.seq, logged[ends[step - 1] - 1].seq + 1)
            )
    assert shown.view == (await _view(db, match_id, users[1])).view
    assert (await replays.replay(db, match_id=match_id, viewer_id=None, step=None, locale="en")).step == len(
        ends
    )
    with pytest.raises(Conflict, match=r"no such step"):
        await replays.replay(db, match_id=match_id, viewer_id=None, step=len(ends) + 1, locale="en")


def test_a_confirm_belongs_to_the_step_it_ends() -> None:
    """Issue 13.9: play, play, confirm is two steps; a confirm alone (a pass) is one."""
    decisions = [(0, "play:3"), (0, "play:5"), (0, "confirm"), (1, "confirm"), (0, "play:1"), (0, "confirm")]
    assert replays.step_ends(decisions) == [1, 3, 4, 6]


async def test_no_seed_or_hidden_data_reaches_another_seat(db: AsyncSession, make_user: MakeUser) -> None:
    alice, bob = await make_user(), await make_user()
    match_id = await start_toy_match(db, [alice, bob])
    start = await _view(db, match_id, alice)
    played = await _move(db, match_id, alice, start.legal[0], start.version)
    await _confirm(db, match_id, alice, played.version)
    bob_view = await _view(db, match_id, bob)
    await _move(db, match_id, bob, bob_view.legal[0], bob_view.version)  # bob's pending decision

    row = await db.scalar(select(Match).where(Match.id == match_id))
    assert row is not None and row.seed is not None and row.state is not None
    state = TOY.parse_position(row.state)
    secrets_ = [
        row.seed.hex(),
        base64.b64encode(row.seed).decode(),
        base64.urlsafe_b64encode(row.seed).decode(),
        row.state,
    ]
    steps = (await replays.replay(db, match_id=match_id, viewer_id=None, step=0, locale="en")).steps
    for viewer, seat in [(alice, 0), (None, None)]:
        shown = [await _view(db, match_id, viewer)]
        shown += [
            await replays.replay(
                db, match_id=match_id, viewer_id=viewer.id if viewer else None, step=s, locale="en"
            )
            for s in range(steps + 1)
        ]
        for item in shown:
            text = item.model_dump_json()
            assert not any(s in text for s in secrets_)
            assert "You drew" not in text or seat == 0
            assert '"pending":true' not in text  # bob's pending play is his alone
            if seat is None:
                assert item.view["hand"] is None
            elif isinstance(item, MatchView):
                assert item.view["hand"] == list(state.hands[0])
    alice_now = await _view(db, match_id, alice)
    assert alice_now.view["hand_sizes"][1] == 3  # bob's pending play is not applied for alice


async def test_chat_is_for_players(db: AsyncSession, make_user: MakeUser) -> None:
    match_id, alice, bob = await _two_player_match(db, make_user)
    await play.post_message(db, match_id=match_id, user_id=alice.id, text="  good luck  ")
    await play.post_message(db, match_id=match_id, user_id=bob.id, text="<b>thanks</b>")
    said = await play.list_messages(db, match_id=match_id, user_id=bob.id)
    assert [(m.name, m.text) for m in said] == [(alice.name, "good luck"), (bob.name, "<b>thanks</b>")]
    stranger = await make_user()
    with pytest.raises(Forbidden):
        await play.post_message(db, match_id=match_id, user_id=stranger.id, text="hi")
    with pytest.raises(Forbidden):
        await play.list_messages(db, match_id=match_id, user_id=stranger.id)
    with pytest.raises(InvalidInput, match="empty"):
        await play.post_message(db, match_id=match_id, user_id=alice.id, text="   ")


async def test_pending_decisions_do_not_show_in_others_version(db: AsyncSession, make_user: MakeUser) -> None:
    """Other seats see the version of the last commit: no peeking at the acting player's trials."""
    match_id, alice, bob = await _two_player_match(db, make_user)
    start = await _view(db, match_id, alice)
    assert (await _view(db, match_id, bob)).version == start.version
    played = await _move(db, match_id, alice, start.legal[0], start.version)
    undone = await _undo(db, match_id, alice, played.version)
    assert undone.version == start.version + 2
    for viewer in (bob, None):
        assert (await _view(db, match_id, viewer)).version == start.version
    # A waiting seat gets "not your turn", never a 409 carrying the private version.
    with pytest.raises(NotYourTurn):
        await _move(db, match_id, bob, "confirm", undone.version + 5)
    done = await _confirm(db, match_id, alice, undone.version)
    assert (await _view(db, match_id, bob)).version == done.version
    assert (await _view(db, match_id, None)).version == done.version


async def test_the_view_log_shows_the_newest_decisions(
    db: AsyncSession, make_user: MakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id, alice, bob = await _two_player_match(db, make_user)
    monkeypatch.setattr(views, "LOG_PAGE", 2)
    version = (await _view(db, match_id, alice)).version
    for user in (alice, bob, alice):
        version = (await _confirm(db, match_id, user, version)).version
    log = (await _view(db, match_id, bob)).log
    # Decisions 2 (bob's confirm: his cards shown to him) and 3 (alice's: only the count).
    assert [(e.seq, e.kind) for e in log] == [(2, "drew"), (2, "drew_cards"), (3, "drew")]


async def test_hostile_text_and_ids_are_refused_cleanly(db: AsyncSession, make_user: MakeUser) -> None:
    """PostgreSQL refuses NUL in text and ids beyond 32 bits: the services answer first."""
    match_id, alice, _ = await _two_player_match(db, make_user)
    for text in ("a\x00b", "a\ud800b", "\x1b[31mred"):
        with pytest.raises(InvalidInput, match="control characters"):
            await play.post_message(db, match_id=match_id, user_id=alice.id, text=text)
    line = await play.post_message(db, match_id=match_id, user_id=alice.id, text="two\nlines")
    assert line.text == "two\nlines"
    for huge in (2**31, 10**30, 0, -1):
        with pytest.raises(NotFound):
            await play.get_match(db, match_id=huge, viewer_id=None, locale="en")
    start = await _view(db, match_id, alice)
    for bad in ("", "x" * 65, "a\x00b", "spaces are bad"):
        with pytest.raises(InvalidInput, match="request id"):
            await play.submit_move(
                db,
                match_id=match_id,
                user_id=alice.id,
                move="confirm",
                expected_version=start.version,
                request_id=bad,
                locale="en",
            )


_LOG_LOOP = """        <ol class="log-list" reversed>
        {% for seq, lines in log | groupby("seq") | reverse %}{% for e in lines %}
          <li class="log-entry{% if e.seat is not none %} seat-{{ e.seat }}{% endif %}{% if e.pending %} pending{% endif %}{% if loop.first %} decision" value="{{ seq }}"{% else %} goes-on"{% endif %} data-seq="{{ seq }}" data-seat="{{ '' if e.seat is none else e.seat }}" data-pieces="{{ e.pieces | join(' ') }}" tabindex="0">{% if e.pending %}<span class="tag">{{ _("pending") }}</span> {% endif %}{{ e.text }}</li>
        {% endfor %}{% else %}
          <li class="empty">{{ _("Nothing has happened yet.") }}</li>
        {% endfor %}
        </ol>"""  # noqa: E501 - the board page's log loop as it would be written in Jinja
"""The log list as a Jinja loop would render it: decisions newest first, each decision's lines in
order, the first numbered with its decision's seq."""


@pytest.mark.parametrize("locale", ["en", "de"])
def test_the_log_items_render_as_the_jinja_loop_did(locale: str) -> None:
    from app.web.pages.matches import log_items
    from app.web.templating import environment

    env = environment(locale)
    through_python = env.from_string('        <ol class="log-list" reversed>\n{{ items }}        </ol>')
    logs = [
        [],
        [
            LogEntry(
                seq=1, seat=0, text='Seat 1 played <5> & "won"', pieces=["card-5", "a&b"], pending=False
            ),
            LogEntry(
                seq=2, seat=None, text="Runde 2: Drache über 'Fluss'", pieces=[], pending=False, kind="x"
            ),
            LogEntry(seq=3, seat=1, text="moved", pieces=["hex-7"], pending=True),
            LogEntry(seq=3, seat=1, text="and on", pieces=[], pending=True),
        ],
    ]
    for log in logs:
        expected = env.from_string(_LOG_LOOP).render(log=log)
        assert through_python.render(items=log_items(log, locale)) == expected


async def test_a_decision_answers_with_the_json_pydantic_makes_of_it(
    db: AsyncSession, make_user: MakeUser
) -> None:
    """The move path serialises an answer once (for the stored answer and the API's) and splices
    the log back in: byte for byte what pydantic makes of the whole answer, pending, committed
    and at the end of the match; a stored answer given again says the same."""
    match_id, alice, bob = await _two_player_match(db, make_user)
    users, chooser, seen = [alice, bob], random.Random(3), 0
    kinds: set[tuple[bool, bool]] = set()
    for _ in range(500):
        spectator = await _view(db, match_id, None)
        if spectator.status != "active":
            break
        user = users[spectator.to_act[0]]
        view = await _view(db, match_id, user)
        request_id = new_request_id()
        args = {"match_id": match_id, "user_id": user.id, "request_id": request_id, "locale": "en"}
        move = chooser.choice(view.legal)
        answer = await play.submit_move(
            db, move=move, expected_version=view.version, log_after=seen or None, **args
        )  # type: ignore[arg-type]
        assert answer.answer_json() == answer.model_dump_json()
        again = await play.submit_move(db, move=move, expected_version=view.version, **args)  # type: ignore[arg-type]
        assert again == answer and again.answer_json() == answer.model_dump_json()
        kinds.add((answer.committed, answer.match.outcome is not None))
        seen = max([seen] + [e.seq for e in answer.match.log if not e.pending])
    assert kinds == {(False, False), (True, False), (True, True)}, "pending, committed, the end"
