"""What one replay step costs at step 10, 1,000 and 2,800 of a real long Drachenland match (issue 19.4).

A two-seat Drachenland match is created, joined and played to its end through the services on
a fresh, migrated database (SQLite unless ``--database-url``), one decision at a time as the
API would play it. The decisions are random self-play, chosen by a pure engine run on the
match's own seed so that the match lasts at least ``--steps`` steps (random play ends
anywhere between ~700 and ~3,500). Then ``replays.replay`` answers steps as
``GET /api/matches/{id}/replay/{step}`` would, for a spectator:

- cold: the first step asked in this process (the index of the match is built: one read of
  its (seat, move) columns and one rebuild up to that step);
- per step: the median process CPU time (database driver threads included) and wall time over
  ``--repeat`` answers of that step, after one answer of a step elsewhere, so that each comes
  from a checkpoint and not from the state the step before it built, and the answer's bytes;
- autoplay: the next steps one after another (what the replay page's play button asks).

Prints figures, asserts nothing about time. Run:
    .venv/bin/python bench/replay_step.py [--database-url URL] [--steps 2900] [--repeat 15]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sqlalchemy import select  # noqa: E402
from sqlalchemy.ext.asyncio import AsyncSession  # noqa: E402

import app.games  # noqa: E402, F401 - registers every game
from app.db.migrate import upgrade_to_head  # noqa: E402
from app.db.models import Match  # noqa: E402
from app.db.session import dispose, make_engine, make_sessionmaker  # noqa: E402
from app.engine.protocol import Seat  # noqa: E402
from app.engine.registry import get_game  # noqa: E402
from app.engine.rng import Rng  # noqa: E402
from app.services import accounts, lobby, play, replays  # noqa: E402
from app.services.schemas import UserOut  # noqa: E402

GAME = "drachenland"
MEASURED = (10, 1_000, 2_800)
AUTOPLAY = 100
"""Consecutive steps timed as autoplay asks them."""


@dataclass(frozen=True)
class StepFigures:
    step: int
    cpu_ms: float
    wall_ms: float
    answer_bytes: int


@dataclass(frozen=True)
class Figures:
    decisions: int
    steps: int
    build_s: float
    cold: StepFigures
    measured: list[StepFigures]
    autoplay_cpu_ms: float


async def _users(db: AsyncSession, count: int) -> list[UserOut]:
    users = []
    for number in range(count):
        name = f"bench-replay-{number}-{secrets.token_hex(3)}"
        users.append(await accounts.register(db, name=name, password=secrets.token_hex(12), locale="en"))
    return users


def _long_self_play(
    seed: bytes, players: int, options: dict[str, object], steps: int
) -> list[tuple[Seat, str]]:
    """Random self-play on the match's seed lasting at least ``steps`` steps (the longest of 500 tries)."""
    game = get_game(GAME)
    best: list[tuple[Seat, str]] = []
    for attempt in range(500):
        chooser = random.Random(attempt)
        rng = Rng(seed)
        state = game.setup(players, options, rng)
        decisions: list[tuple[Seat, str]] = []
        while game.outcome(state) is None:
            seat = min(game.to_act(state))
            move = chooser.choice(game.legal_moves(state, seat))
            state, _ = game.apply(state, seat, move, rng)
            decisions.append((seat, str(move)))
        if len(replays.step_ends(decisions)) >= steps:
            return decisions
        best = max(best, decisions, key=len)
    return best


async def build_match(db: AsyncSession, steps: int) -> tuple[int, int, int]:
    """A finished Drachenland match of at least ``steps`` steps, played through the services."""
    users = await _users(db, 2)
    created = await lobby.create_match(
        db, creator_id=users[0].id, game=GAME, seats=2, options={}, invite=[users[1].name], fixed_order=True
    )
    await lobby.join_match(db, match_id=created.id, user_id=users[1].id, invite_token=None)
    match = await db.scalar(select(Match).where(Match.id == created.id))
    assert match is not None and match.seed is not None
    decisions = _long_self_play(match.seed, match.players, dict(match.options), steps)
    for seat, move in decisions:
        user = users[seat]
        view = await play.get_match(db, match_id=created.id, viewer_id=user.id, locale="en")
        assert move in view.legal, f"self-play and the services disagree at {move!r}"
        await play.submit_move(
            db,
            match_id=created.id,
            user_id=user.id,
            move=move,
            expected_version=view.version,
            request_id=secrets.token_hex(8),
            locale="en",
        )
    final = await play.get_match(db, match_id=created.id, viewer_id=None, locale="en")
    assert final.status == "finished", final.status
    return created.id, len(decisions), len(replays.step_ends(decisions))


async def one_step(db: AsyncSession, match_id: int, step: int) -> StepFigures:
    """One answer of ``step`` as the API sends it to a spectator: its CPU, wall time and bytes."""
    cpu, wall = time.process_time(), time.perf_counter()
    answer = await replays.replay(db, match_id=match_id, viewer_id=None, step=step, locale="en")
    body = answer.model_dump_json()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return StepFigures(step, cpu * 1000, wall * 1000, len(body.encode()))


async def measure(db: AsyncSession, match_id: int, steps: int, repeat: int) -> Figures:
    wanted = [s for s in MEASURED if s <= steps] or [steps]
    cold = await one_step(db, match_id, wanted[-1])
    measured = []
    for step in wanted:
        samples = []
        for _ in range(repeat):
            await one_step(db, match_id, 0 if step > 1 else steps)  # elsewhere: no state to step on from
            samples.append(await one_step(db, match_id, step))
        measured.append(
            StepFigures(
                step,
                statistics.median(s.cpu_ms for s in samples),
                statistics.median(s.wall_ms for s in samples),
                samples[-1].answer_bytes,
            )
        )
    first = max(0, steps - AUTOPLAY)
    await one_step(db, match_id, first)
    cpu = time.process_time()
    for step in range(first + 1, steps + 1):
        await one_step(db, match_id, step)
    autoplay = (time.process_time() - cpu) * 1000 / max(1, steps - first)
    return Figures(0, steps, 0.0, cold, measured, autoplay)


async def run(database_url: str, steps: int = 2_900, repeat: int = 15) -> Figures:
    engine = make_engine(database_url)
    try:
        async with make_sessionmaker(engine)() as db:
            started = time.perf_counter()
            match_id, decisions, steps = await build_match(db, steps)
            built = time.perf_counter() - started
        async with make_sessionmaker(engine)() as db:
            figures = await measure(db, match_id, steps, repeat)
        return Figures(
            decisions, figures.steps, built, figures.cold, figures.measured, figures.autoplay_cpu_ms
        )
    finally:
        await dispose(engine)


def run_fresh(steps: int = 2_900, repeat: int = 15, database_url: str | None = None) -> Figures:
    """``run`` on ``database_url``, or on a fresh, migrated SQLite file dropped afterwards."""
    with tempfile.TemporaryDirectory() as directory:
        url = database_url
        if url is None:
            url = f"sqlite+aiosqlite:///{Path(directory) / 'replay-bench.db'}"
            upgrade_to_head(url)
        return asyncio.run(run(url, steps, repeat))


def rows(f: Figures) -> list[tuple[str, ...]]:
    """The figures as table rows for ``bench/run.py``: one per step, then the cold and autoplay ones."""
    first = f.measured[0]
    out: list[tuple[str, ...]] = [
        (
            f"{s.step:,}",
            f"{s.cpu_ms:.2f}",
            f"{s.wall_ms:.2f}",
            f"{s.answer_bytes:,}",
            f"{s.cpu_ms / first.cpu_ms:.2f}x / {s.answer_bytes / first.answer_bytes:.2f}x",
        )
        for s in f.measured
    ]
    cold = f.cold
    out.append(
        (f"{cold.step:,} cold", f"{cold.cpu_ms:.2f}", f"{cold.wall_ms:.2f}", f"{cold.answer_bytes:,}", "")
    )
    out.append(("autoplay", f"{f.autoplay_cpu_ms:.2f}", "", "", ""))
    return out


def print_figures(f: Figures) -> None:
    print(
        f"A finished Drachenland match of {f.decisions:,} decisions ({f.steps:,} steps), "
        f"played through the services in {f.build_s:.0f} s."
    )
    print(
        f"cold (first step asked in the process, index built): step {f.cold.step:,}: "
        f"{f.cold.cpu_ms:.1f} ms CPU, {f.cold.wall_ms:.1f} ms wall, {f.cold.answer_bytes:,} bytes"
    )
    print(f"{'step':>6} {'CPU ms':>8} {'wall ms':>8} {'bytes':>8}")
    for s in f.measured:
        print(f"{s.step:>6,} {s.cpu_ms:>8.2f} {s.wall_ms:>8.2f} {s.answer_bytes:>8,}")
    first, last = f.measured[0], f.measured[-1]
    print(
        f"step {last.step:,} / step {first.step:,}: CPU {last.cpu_ms / first.cpu_ms:.2f}x, "
        f"bytes {last.answer_bytes / first.answer_bytes:.2f}x"
    )
    print(f"autoplay (the last {AUTOPLAY} steps one after another): {f.autoplay_cpu_ms:.2f} ms CPU a step")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database-url", help="a migrated database to use (default: a fresh SQLite file)")
    parser.add_argument("--steps", type=int, default=2_900, help="the match lasts at least this many steps")
    parser.add_argument("--repeat", type=int, default=15, help="answers timed per step")
    args = parser.parse_args()
    print_figures(run_fresh(args.steps, args.repeat, args.database_url))


if __name__ == "__main__":
    main()
