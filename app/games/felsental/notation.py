"""The position string: the full state, hidden parts included, as one line that round-trips.

``fels1 o=2.standard.0 l=1 f=0 r=- ph=play dr=1.5.9|2.3.4|- dw=...|...|- x=C3.A2.D1.D4
wd=0.0.0.0 ww=0.0.0 n=0 fu=0 a=dragon ac=1 p=- at=- tp=0``

Cards are written by number within their deck (``DR07`` is ``7`` in the dragon's field);
``-`` stands for nothing. A test and storage tool: never shown to a player of a running match.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from app.engine.protocol import InvalidMove
from app.games.felsental.board import CARDS, DECK_PREFIX, CardId, Dwarf, HexId, Opt, Role
from app.games.felsental.state import Attack, DwarfSetup, FelsState, LegResult, Phase, Play, Side

TAG = "fels1"
T = TypeVar("T")


def format_position(state: FelsState) -> str:
    fields = {
        "o": f"{state.legs}.{state.dwarf_setup}.{int(state.hand_exchange)}",
        "l": str(state.leg),
        "f": str(state.first_dragon),
        "r": _join("/", (_result(r) for r in state.results)),
        "ph": str(state.phase),
        "dr": _side(state.dragon),
        "dw": _side(state.dwarves),
        "x": ".".join([state.dragon_hex, *(h or "-" for h in state.dwarf_hexes)]),
        "wd": ".".join(map(str, state.dragon_wounds)),
        "ww": ".".join(map(str, state.dwarf_wounds)),
        "n": str(int(state.netted)),
        "fu": str(int(state.fury_used)),
        "a": str(state.active),
        "ac": str(state.actions),
        "p": _play(state.play),
        "at": _attack(state.attack),
        "tp": str(state.to_place),
    }
    return " ".join([TAG, *(f"{k}={v}" for k, v in fields.items())])


def parse_position(text: str) -> FelsState:
    """The inverse of ``format_position``; raises ``InvalidMove`` naming what is wrong."""
    try:
        tag, *parts = text.split(" ")
        if tag != TAG:
            raise ValueError(f"expected {TAG!r}")
        f = dict(p.split("=", 1) for p in parts)
        legs, setup, exchange = f["o"].split(".")
        x = f["x"].split(".")
        wd = [int(v) for v in f["wd"].split(".")]
        ww = [int(v) for v in f["ww"].split(".")]
        return FelsState(
            legs=int(legs),
            dwarf_setup=DwarfSetup(setup),
            hand_exchange=exchange == "1",
            leg=int(f["l"]),
            first_dragon=int(f["f"]),
            results=_split("/", f["r"], _parse_result),
            phase=Phase(f["ph"]),
            dragon=_parse_side(Role.DRAGON, f["dr"]),
            dwarves=_parse_side(Role.DWARVES, f["dw"]),
            dragon_hex=x[0],
            dwarf_hexes=(_opt_hex(x[1]), _opt_hex(x[2]), _opt_hex(x[3])),
            dragon_wounds=(wd[0], wd[1], wd[2], wd[3]),
            dwarf_wounds=(ww[0], ww[1], ww[2]),
            netted=f["n"] == "1",
            fury_used=f["fu"] == "1",
            active=Role(f["a"]),
            actions=int(f["ac"]),
            play=_parse_play(f["p"]),
            attack=_parse_attack(f["at"]),
            to_place=int(f["tp"]),
        )
    except (ValueError, KeyError, IndexError) as exc:
        raise InvalidMove(f"not a Felsental position: {exc}") from None


# --- pieces --------------------------------------------------------------------------------


def _join(sep: str, items: Iterable[str]) -> str:
    text = sep.join(items)
    return text if text else "-"


def _split(sep: str, text: str, parse: Callable[[str], T]) -> tuple[T, ...]:
    return () if text == "-" else tuple(parse(p) for p in text.split(sep))


def _card_no(card: CardId) -> str:
    return str(int(card[2:]))


def _card(role: Role, no: str) -> CardId:
    card = f"{DECK_PREFIX[role]}{int(no):02d}"
    if card not in CARDS:
        raise ValueError(f"no card {card}")
    return card


def _any_card(card: str) -> CardId:
    if card not in CARDS:
        raise ValueError(f"no card {card}")
    return card


def _cards(cards: tuple[CardId, ...]) -> str:
    return _join(".", (_card_no(c) for c in cards))


def _side(side: Side) -> str:
    return "|".join((_cards(side.hand), _cards(side.deck), _cards(side.discard)))


def _parse_side(role: Role, text: str) -> Side:
    hand, deck, discard = (_split(".", p, lambda n: _card(role, n)) for p in text.split("|"))
    return Side(hand, deck, discard)


def _result(r: LegResult) -> str:
    return f"{r.dragon_seat}.{r.winner}.{r.dragon_wounds}.{r.dwarf_wounds}"


def _parse_result(text: str) -> LegResult:
    seat, winner, dw, ww = text.split(".")
    return LegResult(int(seat), Role(winner), int(dw), int(ww))


def _opt_hex(text: str) -> HexId | None:
    return None if text == "-" else text


def _play(play: Play | None) -> str:
    if play is None:
        return "-"
    moved = _join("+", (str(d) for d in play.moved))
    return f"{play.card}.{play.opt}.{play.value}.{play.selected or '-'}.{moved}"


def _parse_play(text: str) -> Play | None:
    if text == "-":
        return None
    card, opt, value, selected, moved = text.split(".")
    return Play(
        _any_card(card),
        Opt(opt),
        int(value),
        None if selected == "-" else Dwarf(selected),
        _split("+", moved, Dwarf),
    )


def _attack(attack: Attack | None) -> str:
    if attack is None:
        return "-"
    dwarves = "+".join(str(d) for d in attack.dwarves)
    blocks = _join("+", (f"{d}_{c}" for d, c in attack.blocks))
    direction = "-" if attack.direction is None else str(attack.direction)
    return f"{attack.by}.{attack.card}.{attack.opt}.{attack.value}.{dwarves}.{blocks}.{direction}"


def _parse_attack(text: str) -> Attack | None:
    if text == "-":
        return None
    by, card, opt, value, dwarves, blocks, direction = text.split(".")

    def block(part: str) -> tuple[Dwarf, CardId]:
        dwarf, card = part.split("_")
        return Dwarf(dwarf), _any_card(card)

    return Attack(
        Role(by),
        _any_card(card),
        Opt(opt),
        int(value),
        tuple(Dwarf(d) for d in dwarves.split("+")),
        _split("+", blocks, block),
        None if direction == "-" else int(direction),
    )
