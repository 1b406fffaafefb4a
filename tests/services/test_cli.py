"""The ``drachenhort`` command: migrate and self-play (serve and bench only start other things)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app import cli
from app.config import get_settings
from app.db.migrate import current_revision
from app.engine.protocol import Game
from app.engine.registry import register, unregister
from tests.support.toygame import TOY


@pytest.fixture
def broken_toy() -> Iterator[Game]:
    def invariants(state: object) -> None:
        raise AssertionError("a card fell off the table")

    game = dataclasses.replace(
        TOY, info=dataclasses.replace(TOY.info, slug="broken-toy"), invariants=invariants
    )
    register(game)
    yield game
    unregister(game.slug)


def test_selfplay_prints_a_one_line_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["selfplay", "--game", "toy", "--players", "3", "--games", "4", "--seed", "9"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    summary = json.loads(lines[0])
    assert summary["games"] == 4 and summary["moves"] > 0 and summary["moves_per_second"] > 0
    assert summary["score_min"] <= summary["score_mean"] <= summary["score_max"]
    assert sum(summary["wins_by_seat"]) >= 4


def test_selfplay_fails_on_an_invariant_violation(
    broken_toy: Game, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["selfplay", "--game", broken_toy.slug, "--players", "2", "--games", "2"]) == 1
    assert "a card fell off the table" in capsys.readouterr().err


def test_selfplay_refuses_unknown_games_and_player_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["selfplay", "--game", "no-such-game", "--players", "2"]) == 2
    assert cli.main(["selfplay", "--game", "toy", "--players", "9"]) == 2
    assert "no game called" in capsys.readouterr().err


def test_migrate_uses_the_configured_database(
    database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DRACHENHORT_DATABASE_URL", database_url)
    monkeypatch.setenv("DRACHENHORT_SECRET_KEY", "k" * 32)
    get_settings.cache_clear()
    try:
        assert cli.main(["migrate"]) == 0
    finally:
        get_settings.cache_clear()
    assert f"revision {current_revision(database_url)}" in capsys.readouterr().out


def test_bench_hands_its_options_to_bench_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main(["bench"]) == 2  # no bench/run.py here
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "run.py").write_text("import sys\nprint(sys.argv[1:])\nsys.exit(3)\n")
    assert cli.main(["bench", "--quick", "--workers", "1"]) == 3
    assert "['--quick', '--workers', '1']" in capfd.readouterr().out
    with pytest.raises(SystemExit):
        cli.main(["migrate", "--quick"])


def test_serve_refuses_several_workers_on_sqlite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Live updates between workers travel through PostgreSQL; SQLite would strand them.
    monkeypatch.setenv("DRACHENHORT_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path}/one.db")
    monkeypatch.setenv("DRACHENHORT_SECRET_KEY", "k" * 32)
    get_settings.cache_clear()
    try:
        assert cli.main(["serve", "--workers", "2", "--no-migrate"]) == 2
    finally:
        get_settings.cache_clear()
    assert "several workers need PostgreSQL" in capsys.readouterr().err
    assert not (tmp_path / "one.db").exists()
