"""The match record: a finished match as text, written and checked without any I/O.

The format (docs/records.md has its grammar and an example per game)::

    % Drachenhort match record 1
    [Game "draco"]
    [Ruleset "draco-1"]
    [Date "2026-12-06T05:16:00Z"]
    [Language "en"]
    [Seat1 "Anna"]
    [Seat2 "Bert"]
    [Ranks "1 2"]
    [Scores "24 19"]
    [Seed "9f86d0..."]

    0. setup
        ~ 12/110 40/109 ...
    1. Seat 1 (Anna): play:green:1
        | Player 1 plays Green 1: the Green dragon moves from space 0 to space 1 ...
    2. Seat 1 (Anna): confirm
        | Player 1 draws 1 card.
        | (Seat 1 only) You draw: Red 3.

Each decision is the game's own move notation; ``|`` lines are what it did, in the game's
words (hidden lines say whom they were shown to: nothing is hidden once a match has ended);
``~`` lines are its random outcomes, ``value/bound`` for each number the match's Rng drew
below ``bound``. Checking a record replays it: with a ``Seed`` the draws must be the ones the
seed gives, without one the written draws are forced on the engine (``ForcedRng``). Then the
record is written again from what the engine did, and any line that differs is refused with
its number and the reason, so a record edited anywhere is caught.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.engine.protocol import Event, Game, IllegalMove, InvalidMove, Move, Outcome, Seat, State
from app.engine.registry import UnknownGame, get_game
from app.engine.rng import ForcedDrawMismatch, ForcedRng, RecordingRng, Rng
from app.services.play.standings import resigned_last

MAGIC = "% Drachenhort match record 1"
INDENT = "    "
DRAWS_PER_LINE = 16
LANGUAGES = ("en", "de")
MAX_DECISIONS = 20_000
"""More decisions than any match of the three games has; a record beyond is refused early."""

_HEADER = re.compile(r'^\[([A-Za-z][A-Za-z0-9]*) "((?:[^"\\]|\\.)*)"\]$')
_DECISION = re.compile(r"^(\d+)\. (.*)$")
_SEAT_MOVE = re.compile(r"^Seat (\d+)(?: \((.*)\))?: (\S+)$")
_DRAW = re.compile(r"^(\d+)/(\d+)$")
_SEAT_KEY = re.compile(r"^Seat([1-9])$")


class RecordError(ValueError):
    """A record the engine refuses: the line (1-based), the decision if any, and why."""

    def __init__(self, line: int, reason: str, decision: int | None = None) -> None:
        where = f"line {line}" if decision is None else f"decision {decision} (line {line})"
        super().__init__(f"{where}: {reason}")
        self.line = line
        self.decision = decision
        self.reason = reason


@dataclass(frozen=True, slots=True)
class RecordHeader:
    """What a record says about its match besides the decisions."""

    game: str
    ruleset: str
    options: Mapping[str, Any]
    names: tuple[str, ...]
    result: Mapping[str, Any]
    """The match's stored result (``app.services.results``): ranks, scores, tie-breaks, ..."""
    date: str = ""
    language: str = "en"
    seed: bytes | None = None

    @property
    def players(self) -> int:
        return len(self.names)


@dataclass(frozen=True, slots=True)
class CheckedRecord:
    """A record the engine replayed to its end: its header, decisions and final state."""

    header: RecordHeader
    moves: tuple[tuple[Seat, Move], ...]
    events: tuple[tuple[Event, ...], ...]
    """What each decision did (as the move log keeps it)."""
    final: State
    rng_counter: int
    outcome: Outcome | None


@dataclass(slots=True)
class _Block:
    """One numbered entry of the body (the setup or a decision) and its indented lines."""

    line: int
    number: int
    text: str
    lines: list[tuple[int, str]] = field(default_factory=list)


# --- writing ------------------------------------------------------------------------------


def write_record(header: RecordHeader, moves: Sequence[tuple[Seat, Move]]) -> str:
    """The record of a finished match: its header, then every decision replayed from its seed."""
    if header.seed is None:
        raise ValueError("a record is written from the match's seed")
    game = get_game(header.game, header.ruleset)
    rng = RecordingRng(header.seed)
    state = game.setup(header.players, header.options, rng)
    lines = [*_header_lines(game, header), "", *_setup_lines(game, state, rng.draws)]
    for number, (seat, move) in enumerate(moves, start=1):
        rng = RecordingRng(header.seed, rng.counter)
        state, events = game.apply(state, seat, move, rng)
        lines.extend(_decision_lines(game, header, number, seat, move, rng.draws, events))
    return "\n".join(lines) + "\n"


def _header_lines(game: Game, header: RecordHeader) -> list[str]:
    pairs: list[tuple[str, str]] = [("Game", header.game), ("Ruleset", header.ruleset)]
    pairs += [("Option", f"{o.key}={_option_text(header.options[o.key])}") for o in game.info.options]
    if header.date:
        pairs.append(("Date", header.date))
    pairs.append(("Language", header.language))
    pairs += [(f"Seat{n}", name) for n, name in enumerate(header.names, start=1)]
    result = header.result
    pairs.append(("Ranks", " ".join(str(int(r)) for r in result["ranks"])))
    pairs.append(("Scores", " ".join(_number(s) for s in result.get("scores") or [0] * header.players)))
    if result.get("score_label"):
        pairs.append(("ScoreLabel", str(result["score_label"])))
    for tiebreak in result.get("tiebreaks") or ():
        values = " ".join(str(int(v)) for v in tiebreak["values"])
        pairs.append(("Tiebreak", f"{tiebreak['label']} {values}"))
    if result.get("conclusion"):
        pairs.append(("Conclusion", str(result["conclusion"])))
    if result.get("resigned"):
        pairs.append(("Resigned", " ".join(str(int(s) + 1) for s in result["resigned"])))
    if header.seed is not None:
        pairs.append(("Seed", header.seed.hex()))
    return [MAGIC, *(f'[{key} "{_quote(value)}"]' for key, value in pairs)]


def _setup_lines(game: Game, state: State, draws: Sequence[tuple[int, int]]) -> list[str]:
    """The setup's draws, then the position they dealt (hands, deck, tiles: all written out)."""
    return ["0. setup", *_draw_lines(draws), f"{INDENT}= {game.format_position(state)}"]


def _decision_lines(
    game: Game,
    header: RecordHeader,
    number: int,
    seat: Seat,
    move: Move,
    draws: Sequence[tuple[int, int]],
    events: Sequence[Event],
) -> list[str]:
    name = header.names[seat] if 0 <= seat < header.players else ""
    lines = [f"{number}. Seat {seat + 1}{f' ({name})' if name else ''}: {move}", *_draw_lines(draws)]
    for event in events:
        text = " ".join(game.describe(event, header.language).split())
        only = "" if event.audience is None else f"(Seat {event.audience + 1} only) "
        lines.append(f"{INDENT}| {only}{text}")
    return lines


def _draw_lines(draws: Sequence[tuple[int, int]]) -> list[str]:
    return [
        INDENT + "~ " + " ".join(f"{value}/{bound}" for bound, value in draws[i : i + DRAWS_PER_LINE])
        for i in range(0, len(draws), DRAWS_PER_LINE)
    ]


def _option_text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


# --- reading and checking -----------------------------------------------------------------


def check_record(text: str, *, lookup: Callable[[str, str], Game] = get_game) -> CheckedRecord:
    """Replay ``text`` through the engine; ``RecordError`` at the first line that is not so."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    if not lines or lines[0] != MAGIC:
        raise RecordError(1, f"a record begins with the line {MAGIC!r}")
    blank = lines.index("") if "" in lines else len(lines)
    header_lines = lines[1:blank]
    game, header = _read_header(header_lines, lookup)
    blocks = _read_blocks(lines, blank + 1)
    checked = _replay(game, header, blocks)
    # The result the engine reached, written as the header says it: any other value differs.
    verified = _with_result(header, checked)
    _compare(header_lines, _header_lines(game, verified)[1:], first_line=2)
    return dataclasses.replace(checked, header=verified)


def _read_header(lines: Sequence[str], lookup: Callable[[str, str], Game]) -> tuple[Game, RecordHeader]:
    values: dict[str, list[tuple[int, str]]] = {}
    for number, line in enumerate(lines, start=2):
        found = _HEADER.match(line)
        if found is None:
            raise RecordError(number, 'a header line reads [Name "value"]')
        values.setdefault(found.group(1), []).append((number, _unquote(found.group(2))))

    def one(key: str, required: bool = True) -> tuple[int, str] | None:
        given = values.get(key, [])
        if len(given) > 1:
            raise RecordError(given[1][0], f"the header names {key} twice")
        if not given and required:
            raise RecordError(len(lines) + 1, f"the header has no {key} line")
        return given[0] if given else None

    game_line = one("Game")
    ruleset_line = one("Ruleset")
    assert game_line is not None and ruleset_line is not None
    try:
        game = lookup(game_line[1], ruleset_line[1])
    except UnknownGame:
        raise RecordError(game_line[0], f"this server has no game {game_line[1]!r}") from None
    if game.info.ruleset != ruleset_line[1]:
        raise RecordError(ruleset_line[0], f"this server does not keep the ruleset {ruleset_line[1]!r}")
    options: dict[str, Any] = {}
    known = {o.key: o for o in game.info.options}
    for number, text in values.get("Option", []):
        key, _, value = text.partition("=")
        option = known.get(key)
        if option is None:
            raise RecordError(number, f"{game.info.title['en']} has no option {key!r}")
        choices = {_option_text(c): c for c in option.choices}
        if value not in choices:
            raise RecordError(number, f"the option {key} cannot be {value!r}")
        options[key] = choices[value]
    names: list[str] = []
    for seat in range(1, 10):
        given = one(f"Seat{seat}", required=False)
        if given is None:
            break
        names.append(given[1])
    if not game.info.min_players <= len(names) <= game.info.max_players:
        raise RecordError(
            len(lines) + 1,
            f"{game.info.title['en']} is for {game.info.min_players} to {game.info.max_players} players,"
            f" the header names {len(names)} (Seat1, Seat2, ...)",
        )
    language = one("Language", required=False)
    if language is not None and language[1] not in LANGUAGES:
        raise RecordError(language[0], "the language is en or de")
    seed_line = one("Seed", required=False)
    seed: bytes | None = None
    if seed_line is not None:
        try:
            seed = bytes.fromhex(seed_line[1])
        except ValueError:
            seed = None
        if seed is None or len(seed) < 16:
            raise RecordError(seed_line[0], "the seed is at least 32 hexadecimal digits")
    date = one("Date", required=False)
    header = RecordHeader(
        game=game.slug,
        ruleset=game.info.ruleset,
        options=game.info.normalise_options(options),
        names=tuple(names),
        result=_read_result(values, len(names)),
        date=date[1] if date else "",
        language=language[1] if language else "en",
        seed=seed,
    )
    return game, header


def _read_result(values: Mapping[str, list[tuple[int, str]]], players: int) -> dict[str, Any]:
    """The result as the header gives it; the engine's own result replaces what it can check."""

    def numbers(key: str, parse: Callable[[str], Any]) -> list[Any]:
        given = values.get(key)
        if not given:
            return []
        number, text = given[0]
        try:
            found = [parse(word) for word in text.split()]
        except ValueError:
            raise RecordError(number, f"{key} are numbers, one a seat") from None
        if len(found) != players and key in ("Ranks", "Scores"):
            raise RecordError(number, f"{key} gives one number for each of the {players} seats")
        return found

    ranks = numbers("Ranks", int)
    if not ranks:
        raise RecordError(1, "the header has no Ranks line")
    resigned = [s - 1 for s in numbers("Resigned", int)]
    given_conclusion = values.get("Conclusion")
    for number, _ in values.get("Resigned", []):
        if any(not 0 <= s < players for s in resigned):
            raise RecordError(number, "Resigned names seats by their numbers")
    result: dict[str, Any] = {"ranks": ranks, "scores": numbers("Scores", float) or [0.0] * players}
    if given_conclusion:
        result["conclusion"] = given_conclusion[0][1]
    if resigned:
        result["resigned"] = resigned
    return result


def _read_blocks(lines: Sequence[str], first: int) -> list[_Block]:
    blocks: list[_Block] = []
    for index in range(first, len(lines)):
        number, line = index + 1, lines[index]
        if line.startswith(INDENT):
            if not blocks:
                raise RecordError(number, "an indented line belongs to a decision above it")
            if not line[len(INDENT) :].startswith(("~ ", "| ", "= ")):
                raise RecordError(
                    number, "an indented line begins with '~ ', '| ' or '= '", blocks[-1].number or None
                )
            blocks[-1].lines.append((number, line))
            continue
        found = _DECISION.match(line)
        if found is None:
            raise RecordError(number, "a decision line reads 'N. Seat S (name): move'")
        expected = len(blocks)
        if int(found.group(1)) != expected:
            raise RecordError(number, f"expected decision number {expected}, not {found.group(1)}")
        if expected > MAX_DECISIONS:
            raise RecordError(number, f"a record holds at most {MAX_DECISIONS} decisions")
        blocks.append(_Block(number, expected, found.group(2)))
    if not blocks or blocks[0].text != "setup":
        raise RecordError(first + 1, "the decisions begin with the line '0. setup'")
    return blocks


def _draws_of(block: _Block) -> list[tuple[int, int]]:
    draws: list[tuple[int, int]] = []
    for number, line in block.lines:
        body = line[len(INDENT) :]
        if not body.startswith("~ "):
            continue
        for word in body[2:].split():
            found = _DRAW.match(word)
            if found is None or not 0 <= int(found.group(1)) < int(found.group(2)):
                raise RecordError(
                    number, f"a random outcome reads value/bound, not {word!r}", block.number or None
                )
            draws.append((int(found.group(2)), int(found.group(1))))
    return draws


def _rng(header: RecordHeader, counter: int, block: _Block) -> Rng:
    if header.seed is not None:
        return RecordingRng(header.seed, counter)
    return ForcedRng(_draws_of(block), counter)


def _replay(game: Game, header: RecordHeader, blocks: Sequence[_Block]) -> CheckedRecord:
    setup = blocks[0]
    rng = _rng(header, 0, setup)
    try:
        state = game.setup(header.players, header.options, rng)
    except ForcedDrawMismatch as exc:
        raise RecordError(setup.line, f"the setup's random outcomes do not fit: {exc}") from None
    _check_draws(rng, setup)
    _compare([line for _, line in setup.lines], _setup_lines(game, state, _drawn(rng))[1:], setup.line + 1)
    moves: list[tuple[Seat, Move]] = []
    done: list[tuple[Event, ...]] = []
    for block in blocks[1:]:
        seat, move = _read_decision(game, header, block)
        if game.outcome(state) is not None:
            raise RecordError(block.line, "the game is over before this decision", block.number)
        if seat not in game.to_act(state):
            acting = ", ".join(f"Seat {s + 1}" for s in sorted(game.to_act(state)))
            raise RecordError(block.line, f"it is not Seat {seat + 1}'s turn but {acting}'s", block.number)
        if move not in game.legal_moves(state, seat):
            raise RecordError(block.line, _why_illegal(game, state, seat, move), block.number)
        rng = _rng(header, rng.counter, block)
        try:
            state, events = game.apply(state, seat, move, rng)
        except IllegalMove as exc:
            raise RecordError(block.line, exc.reason, block.number) from None
        except ForcedDrawMismatch as exc:
            raise RecordError(block.line, str(exc), block.number) from None
        _check_draws(rng, block)
        expected = _decision_lines(game, header, block.number, seat, move, _drawn(rng), events)
        _compare(
            [f"{block.number}. {block.text}", *(line for _, line in block.lines)],
            expected,
            block.line,
            block.number,
        )
        moves.append((seat, move))
        done.append(tuple(events))
    return CheckedRecord(header, tuple(moves), tuple(done), state, rng.counter, game.outcome(state))


def _why_illegal(game: Game, state: State, seat: Seat, move: Move) -> str:
    """The game's own reason (``apply`` names it: "you have no brown 3 in your hand")."""
    try:
        game.apply(state, seat, move, Rng(bytes(32)))  # a throwaway Rng: nothing is kept
    except IllegalMove as exc:
        return exc.reason
    except Exception:
        pass
    return f"'{move}' is not a legal move now"


def _read_decision(game: Game, header: RecordHeader, block: _Block) -> tuple[Seat, Move]:
    found = _SEAT_MOVE.match(block.text)
    if found is None:
        raise RecordError(block.line, "a decision line reads 'N. Seat S (name): move'", block.number)
    seat = int(found.group(1)) - 1
    if not 0 <= seat < header.players:
        raise RecordError(block.line, f"there is no Seat {seat + 1} in this match", block.number)
    try:
        move = Move.parse(found.group(3))
    except InvalidMove as exc:
        raise RecordError(block.line, str(exc), block.number) from None
    return seat, move


def _drawn(rng: Rng) -> list[tuple[int, int]]:
    if isinstance(rng, RecordingRng):
        return rng.draws
    assert isinstance(rng, ForcedRng)
    return rng.used


def _check_draws(rng: Rng, block: _Block) -> None:
    """With a seed: the written draws must be the seed's; forced: every written one is used."""
    decision = block.number or None
    if isinstance(rng, RecordingRng):
        drawn = rng.draws
        seen = 0
        for number, text in block.lines:
            if not text.startswith(INDENT + "~"):
                continue
            written = _draws_of(_Block(block.line, block.number, block.text, [(number, text)]))
            if written != drawn[seen : seen + len(written)]:
                raise RecordError(
                    number, "the random outcomes are not the ones the published seed gives", decision
                )
            seen += len(written)
        if seen != len(drawn):
            raise RecordError(
                block.line,
                f"the published seed gives {len(drawn)} random outcomes here, the record {seen}",
                decision,
            )
    elif isinstance(rng, ForcedRng) and rng.left:
        raise RecordError(block.line, f"{rng.left} written random outcomes are never drawn", decision)


def _compare(
    given: Sequence[str], expected: Sequence[str], first_line: int, decision: int | None = None
) -> None:
    for offset, (have, want) in enumerate(zip(given, expected, strict=False)):
        if have != want:
            raise RecordError(
                first_line + offset, f"the record says {have!r}, the game says {want!r}", decision
            )
    if len(given) != len(expected):
        line = first_line + min(len(given), len(expected))
        if len(given) > len(expected):
            reason = f"the game has nothing for {given[len(expected)]!r}"
        else:
            reason = f"a line is missing: the game says {expected[len(given)]!r}"
        raise RecordError(line, reason, decision)


def _with_result(header: RecordHeader, checked: CheckedRecord) -> RecordHeader:
    """The header with the result the engine reached (what a record of this match must say)."""
    given = header.result
    outcome = checked.outcome
    resigned = [int(s) for s in given.get("resigned", [])]
    if outcome is None:
        if not given.get("conclusion"):
            raise RecordError(1, "the decisions end before the game does, and the header gives no Conclusion")
        # Ended outside the rules (resignation, agreed draw, vote): ranks as given, no scores.
        result: dict[str, Any] = {
            "ranks": list(given["ranks"]),
            "scores": [0.0] * header.players,
            "conclusion": given["conclusion"],
        }
    else:
        result = {
            "ranks": resigned_last(list(outcome.ranks), resigned),
            "scores": list(outcome.scores),
            "score_label": outcome.score_label,
            "tiebreaks": [{"label": t.label, "values": list(t.values)} for t in outcome.tiebreaks],
        }
    if resigned:
        result["resigned"] = resigned
    return RecordHeader(
        header.game,
        header.ruleset,
        header.options,
        header.names,
        result,
        header.date,
        header.language,
        header.seed,
    )
