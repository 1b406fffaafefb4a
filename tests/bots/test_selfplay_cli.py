"""``drachenhort selfplay --bots``: one JSON line with the figures per level."""

from __future__ import annotations

import json

import pytest

from app.cli import main


def test_selfplay_with_bots_prints_one_line_of_figures_per_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            ["selfplay", "--game", "draco", "--players", "3", "--games", "3", "--bots", "easy,random,random"]
        )
        == 0
    )
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    summary = json.loads(lines[0])
    assert summary["bots"] == ["easy", "random", "random"]
    levels = summary["levels"]
    assert set(levels) == {"easy", "random"}
    assert levels["easy"]["seats"] == 3 and levels["random"]["seats"] == 6
    assert 0 <= levels["easy"]["wins"] <= 3
    assert levels["easy"]["win_rate"] == round(levels["easy"]["wins"] / 3, 3)
    assert levels["easy"]["ms_per_decision"] > 0


def test_selfplay_refuses_a_level_list_that_does_not_fit_the_seats(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["selfplay", "--game", "draco", "--players", "3", "--bots", "easy,random"]) == 2
    assert "2 levels for 3 seats" in capsys.readouterr().err
    assert main(["selfplay", "--game", "draco", "--players", "2", "--bots", "easy,genius"]) == 2


def test_selfplay_without_bots_keeps_its_random_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--game", "felsental", "--players", "2", "--games", "2"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert "levels" not in summary and len(summary["wins_by_seat"]) == 2
