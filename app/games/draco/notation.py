"""Text forms: the position string (the full state on one line) and card codes.

A position reads like ``draco 2 a=0 ph=play pos=0,0,0,0,0,0,0,0,0,0 sc=0,0 h=B1B3/K2R5
p=N3/Y1 d=R1G4... pl=-``: player count, active seat, phase, dragon positions (Yucata order),
scores, hands and piles per seat (``/``-separated; piles bottom to top), the draw pile from the
top, the card played this turn as ``card:from:to:last:scored``, and per seat the cards it drew
at its last confirm (``n=``; positions written before it existed have none). Cards are a dragon
letter (``BNKRYGALPO``) and a value; ``-`` is empty.
"""

from __future__ import annotations

from app.games.draco.board import ALL_CARDS, DRAGONS, Card
from app.games.draco.state import DracoState, Phase, Play

_TAG = "draco"
_KEYS = ("a", "ph", "pos", "sc", "h", "p", "d", "pl", "n")
_OPTIONAL = 1
"""The last keys may be missing (stored positions older than them)."""
_CODE: dict[Card, str] = {card: f"{card.dragon.code}{card.value}" for card in ALL_CARDS}
_CARD: dict[str, Card] = {code: card for card, code in _CODE.items()}


def format_cards(cards: tuple[Card, ...]) -> str:
    return "".join(map(_CODE.__getitem__, cards)) or "-"


def parse_cards(text: str) -> tuple[Card, ...]:
    if text == "-":
        return ()
    if len(text) % 2:
        raise ValueError(f"bad card list {text!r}")
    try:
        return tuple(_CARD[text[i : i + 2]] for i in range(0, len(text), 2))
    except KeyError as bad:
        raise ValueError(f"bad card {bad.args[0]!r} in {text!r}") from None


def format_position(state: DracoState) -> str:
    play = "-"
    if state.play is not None:
        p = state.play
        play = f"{p.card}:{p.origin}:{p.target}:{int(p.was_last)}:{int(p.scored)}"
    fields = [
        _TAG,
        str(state.players),
        f"a={state.active}",
        f"ph={state.phase.value}",
        "pos=" + ",".join(map(str, state.positions)),
        "sc=" + ",".join(map(str, state.scores)),
        "h=" + "/".join(format_cards(h) for h in state.hands),
        "p=" + "/".join(format_cards(p) for p in state.piles),
        "d=" + format_cards(state.deck),
        f"pl={play}",
        "n=" + "/".join(format_cards(state.drawn_by(s)) for s in range(state.players)),
    ]
    return " ".join(fields)


def parse_position(text: str) -> DracoState:
    """The inverse of ``format_position``; raises ``ValueError`` naming what is wrong."""
    parts = text.split()
    if not 2 + len(_KEYS) - _OPTIONAL <= len(parts) <= 2 + len(_KEYS) or parts[0] != _TAG:
        raise ValueError(f"not a Draco position: {text!r}")
    fields: dict[str, str] = {}
    for part, key in zip(parts[2:], _KEYS[: len(parts) - 2], strict=True):
        name, sep, value = part.partition("=")
        if name != key or not sep:
            raise ValueError(f"expected '{key}=' in position, got {part!r}")
        fields[key] = value
    players = int(parts[1])
    positions = tuple(int(v) for v in fields["pos"].split(","))
    if len(positions) != len(DRAGONS):
        raise ValueError("a position lists ten dragons")
    scores = tuple(int(v) for v in fields["sc"].split(","))
    hands = tuple(parse_cards(h) for h in fields["h"].split("/"))
    piles = tuple(parse_cards(p) for p in fields["p"].split("/"))
    if not len(scores) == len(hands) == len(piles) == players:
        raise ValueError("scores, hands and piles must be given for every player")
    play: Play | None = None
    if fields["pl"] != "-":
        card, origin, target, last, scored = fields["pl"].split(":")
        (played,) = parse_cards(card)
        play = Play(played, int(origin), int(target), last == "1", scored == "1")
    drawn: tuple[tuple[Card, ...], ...] = ()
    if "n" in fields:
        drawn = tuple(parse_cards(n) for n in fields["n"].split("/"))
        if len(drawn) != players:
            raise ValueError("new cards must be given for every player")
        if not any(drawn):
            drawn = ()
    return DracoState(
        players=players,
        positions=positions,
        hands=hands,
        piles=piles,
        deck=parse_cards(fields["d"]),
        scores=scores,
        active=int(fields["a"]),
        phase=Phase(fields["ph"]),
        play=play,
        drawn=drawn,
    )
