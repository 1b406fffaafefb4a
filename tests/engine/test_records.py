"""Match records without a database: written from a match's seed, read back by replaying them.

Every game and variant: the record replays to the same state at every step; any edit is refused
at the line edited; the published seed gives exactly the draws the record writes out (checked
here by HMAC-SHA256 as docs/records.md tells anyone to); without a seed, the written draws are
forced on the engine.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.engine.registry import get_game
from app.engine.replay import replay
from app.services.records.format import RecordError, check_record, write_record
from tests.support.records import CASES, PlayedMatch, case_id, play_match, record_of


@cache
def _played(slug: str, players: int, options: tuple[tuple[str, Any], ...]) -> tuple[PlayedMatch, str]:
    played = play_match(slug, players, dict(options))
    return played, record_of(played)


def _case(case: tuple[str, int, dict[str, Any]]) -> tuple[PlayedMatch, str]:
    slug, players, options = case
    return _played(slug, players, tuple(sorted(options.items())))


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_a_record_replays_to_the_same_state_at_every_step(case: tuple[str, int, dict[str, Any]]) -> None:
    played, text = _case(case)
    checked = check_record(text)
    assert list(checked.moves) == played.moves
    assert checked.final == played.states[-1]
    game = get_game(played.header.game)
    header = checked.header
    assert header.seed is not None
    steps = [s.state for s in replay(game, header.players, header.options, header.seed, checked.moves)]
    assert steps == played.states
    # Written again from what was read, the record is the same text.
    assert write_record(checked.header, checked.moves) == text


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_without_the_seed_the_written_draws_are_forced_on_the_engine(
    case: tuple[str, int, dict[str, Any]],
) -> None:
    played, text = _case(case)
    seedless = "\n".join(line for line in text.split("\n") if not line.startswith("[Seed "))
    checked = check_record(seedless)
    assert checked.header.seed is None
    assert checked.final == played.states[-1]


def _edit(line: str, chooser: random.Random) -> str:
    at = chooser.randrange(len(line))
    replacement = "7" if line[at] != "7" else "3"
    return line[:at] + replacement + line[at + 1 :]


@pytest.mark.parametrize("case", CASES[::3], ids=case_id)
def test_an_edit_anywhere_is_refused_at_the_line_edited(case: tuple[str, int, dict[str, Any]]) -> None:
    _, text = _case(case)
    lines = text.rstrip("\n").split("\n")
    chooser = random.Random(case_id(case))
    checkable = [
        i for i, line in enumerate(lines) if line and not line.startswith(("[Date ", "[Seat", "[Language "))
    ]
    for index in chooser.sample(checkable, 25):
        edited = lines.copy()
        edited[index] = _edit(lines[index], chooser)
        with pytest.raises(RecordError) as refused:
            check_record("\n".join(edited))
        assert refused.value.line == index + 1, (lines[index], edited[index], str(refused.value))
    # A name or the language changed is caught where the game's words no longer match.
    for prefix in ("[Seat1 ", "[Language "):
        index = next(i for i, line in enumerate(lines) if line.startswith(prefix))
        edited = lines.copy()
        edited[index] = edited[index].replace('"Anna"', '"Anne"').replace('"en"', '"de"')
        with pytest.raises(RecordError):
            check_record("\n".join(edited))


def test_a_dropped_or_swapped_decision_is_refused_with_its_number() -> None:
    _, text = _case(CASES[0])
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if re.match(r"^\d+\. Seat", line)]
    dropped = lines[: starts[5]] + lines[starts[6] :]
    with pytest.raises(RecordError, match=r"expected decision number 6, not 7") as refused:
        check_record("\n".join(dropped))
    assert refused.value.line == starts[5] + 1
    # The plays of two turns exchanged (numbers kept): refused within the first of them (by the
    # rules, or where what the card did differs when both happened to hold the card).
    plays = [i for i in starts if ": play:" in lines[i]]
    first, second = (
        plays[0],
        next(i for i in plays if lines[i].split(": ")[1] != lines[plays[0]].split(": ")[1]),
    )
    swapped = lines.copy()
    head_a, move_a = lines[first].split(": ", 1)
    head_b, move_b = lines[second].split(": ", 1)
    swapped[first], swapped[second] = f"{head_a}: {move_b}", f"{head_b}: {move_a}"
    with pytest.raises(RecordError) as refused:
        check_record("\n".join(swapped))
    assert first + 1 <= refused.value.line < starts[starts.index(first) + 1] + 1
    assert refused.value.decision == int(lines[first].split(".")[0])


def test_a_card_not_in_hand_is_refused_in_the_rules_words() -> None:
    played, text = _case(CASES[0])
    lines = text.split("\n")
    index = next(i for i, line in enumerate(lines) if re.match(r"^\d+\. Seat 1 \(Anna\): play:", line))
    hand = {f"{card.dragon.value}:{card.value}" for card in played.states[0].hands[0]}
    missing = next(
        f"{colour}:{value}"
        for colour in ("brown", "red", "blue", "green", "black", "yellow", "gray", "orange")
        for value in range(1, 6)
        if f"{colour}:{value}" not in hand
    )
    lines[index] = re.sub(r"play:\S+", f"play:{missing}", lines[index])
    with pytest.raises(RecordError) as refused:
        check_record("\n".join(lines))
    colour, value = missing.split(":")
    assert str(refused.value) == f"decision 1 (line {index + 1}): you have no {colour} {value} in your hand"


def _seed_draw(seed: bytes, counter: int, bound: int) -> tuple[int, int]:
    """docs/records.md: draw k is HMAC-SHA256(seed, k as 8 bytes big-endian), taken below the
    largest multiple of the bound (else the next k), modulo the bound."""
    limit = (1 << 256) - ((1 << 256) % bound)
    while True:
        value = int.from_bytes(hmac.new(seed, counter.to_bytes(8, "big"), hashlib.sha256).digest(), "big")
        counter += 1
        if value < limit:
            return value % bound, counter


@pytest.mark.parametrize("case", [CASES[0], CASES[2], CASES[6]], ids=case_id)
def test_the_published_seed_reproduces_every_draw_of_the_record(
    case: tuple[str, int, dict[str, Any]],
) -> None:
    _, text = _case(case)
    seed = bytes.fromhex(re.search(r'^\[Seed "([0-9a-f]+)"\]$', text, re.M).group(1))  # type: ignore[union-attr]
    written = [
        (int(value), int(bound))
        for line in text.split("\n")
        if line.startswith("    ~ ")
        for value, bound in (word.split("/") for word in line[6:].split())
    ]
    assert written, "a record of this game writes random outcomes out"
    counter = 0
    for value, bound in written:
        expected, counter = _seed_draw(seed, counter, bound)
        assert value == expected
    # Another seed gives other draws: the check above is not trivially true.
    other = hashlib.sha256(seed).digest().hex()
    with pytest.raises(RecordError, match="not the ones the published seed gives"):
        check_record(text.replace(seed.hex(), other))


def test_verify_record_says_ok_or_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, text = _case(CASES[6])
    good = tmp_path / "match.txt"
    good.write_text(text, encoding="utf-8")
    assert cli.main(["verify-record", str(good)]) == 0
    out = capsys.readouterr().out
    assert "ok: felsental" in out and "every random draw follows from the published seed" in out
    lines = text.split("\n")
    index = next(i for i, line in enumerate(lines) if line.startswith("    ~ ") and i > 20)
    lines[index] = "    ~ " + " ".join(
        f"{(int(v) + 1) % int(b)}/{b}" for v, b in (w.split("/") for w in lines[index][6:].split())
    )
    bad = tmp_path / "edited.txt"
    bad.write_text("\n".join(lines), encoding="utf-8")
    assert cli.main(["verify-record", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"(line {index + 1}): the random outcomes are not the ones the published seed gives" in err
    assert cli.main(["verify-record", str(tmp_path / "missing.txt")]) == 2
