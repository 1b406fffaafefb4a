"""The self-play helper: batches cover every seed once, counts can only be raised, results keep job order."""

from __future__ import annotations

import pytest

from tests.games.parallel import batches, count_from_env, run_batches


def test_batches_cover_every_seed_once_in_order() -> None:
    parts = batches(100, 1003, 25)
    assert [s for part in parts for s in part] == list(range(100, 1103))
    assert max(len(p) for p in parts) == 25 and len(parts[-1]) == 3


def test_counts_can_be_raised_but_not_lowered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TEST_SELFPLAY_GAMES", raising=False)
    assert count_from_env("TEST_SELFPLAY_GAMES", 1000) == 1000
    monkeypatch.setenv("TEST_SELFPLAY_GAMES", "5000")
    assert count_from_env("TEST_SELFPLAY_GAMES", 1000) == 5000
    monkeypatch.setenv("TEST_SELFPLAY_GAMES", "10")
    with pytest.raises(ValueError, match="raised"):
        count_from_env("TEST_SELFPLAY_GAMES", 1000)


def test_results_come_back_in_job_order() -> None:
    run = run_batches(sum, [((i, i),) for i in range(6)], workers=2)
    assert run.results == [0, 2, 4, 6, 8, 10]
    assert run.workers == 2 and run.wall > 0 and run.cpu >= 0
