"""Small helpers to build Draco positions for tests (through the position string)."""

from __future__ import annotations

from collections import Counter

from app.engine.protocol import Move
from app.engine.rng import Rng
from app.engine.selfplay import derive_seed
from app.games.draco.board import ALL_CARDS, DRAGON_BY_ID, DRAGONS
from app.games.draco.notation import format_cards, parse_cards, parse_position
from app.games.draco.state import DracoState

RNG_SEED = derive_seed("draco-tests", 0)


def rng() -> Rng:
    return Rng(RNG_SEED)


def position(
    *,
    hands: list[str],
    piles: list[str],
    at: dict[str, int] | None = None,
    scores: list[int] | None = None,
    active: int = 0,
    phase: str = "play",
    play: str = "-",
    deck: str | None = None,
) -> DracoState:
    """A state with the given hands and piles (card codes like ``R3``), dragons placed by id.

    The draw pile gets every card not named (in a fixed order) unless ``deck`` is given.
    """
    players = len(hands)
    positions = [0] * len(DRAGONS)
    for dragon, space in (at or {}).items():
        positions[DRAGON_BY_ID[dragon].index] = space
    named = Counter(c for text in [*hands, *piles] for c in parse_cards(text or "-"))
    if play != "-" and phase == "mount":
        named.update(parse_cards(play.split(":")[0]))
    if deck is None:
        rest = Counter(ALL_CARDS) - named
        deck = format_cards(tuple(sorted(rest.elements())))
    text = " ".join(
        [
            "draco",
            str(players),
            f"a={active}",
            f"ph={phase}",
            "pos=" + ",".join(map(str, positions)),
            "sc=" + ",".join(map(str, scores or [0] * players)),
            "h=" + "/".join(sorted_cards(h) for h in hands),
            "p=" + "/".join(p or "-" for p in piles),
            f"d={deck or '-'}",
            f"pl={play}",
        ]
    )
    return parse_position(text)


def sorted_cards(text: str) -> str:
    return format_cards(tuple(sorted(parse_cards(text or "-"))))


def m(text: str) -> Move:
    return Move.parse(text)
