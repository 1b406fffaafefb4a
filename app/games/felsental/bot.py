"""A simple greedy bot: the server's timeout move (and a sparring partner in tests)."""

from __future__ import annotations

from app.engine.protocol import Move, Seat
from app.games.felsental.board import CARDS, DWARVES, Opt, Role, Track, distance
from app.games.felsental.geometry import fire_hits
from app.games.felsental.rules import legal_moves, option_has_effect
from app.games.felsental.state import FelsState

ATTACKS = frozenset({Opt.BITE, Opt.FIRE, Opt.ATTACK1, Opt.ATTACK2, Opt.CROSSBOW})
TRACK_PREFERENCE = {Track.FIRE: 3, Track.FLIGHT: 2, Track.MOVEMENT: 1}


def timeout_move(state: FelsState, seat: Seat) -> Move:
    """The best legal move by a one-step greedy score (ties: the first in legal order)."""
    moves = legal_moves(state, seat)
    if not moves:
        raise ValueError("this seat has nothing to decide")
    return max(moves, key=lambda m: _score(state, m))


def _card_worth(card: str) -> int:
    return max(o.value + (2 if o.opt in ATTACKS or o.opt is Opt.DEFEND else 0) for o in CARDS[card].options)


def _score(state: FelsState, move: Move) -> float:
    action, args = move.action, move.args
    if action == "block":
        return 10.0 + (state.attack.value if state.attack else 0)
    if action == "wound":
        return float(TRACK_PREFERENCE[Track(args[0])])
    if action == "discard":
        return -float(_card_worth(args[0]))
    if action == "play":
        opt = Opt(args[1])
        option = CARDS[args[0]].option(opt)
        value = option.value if option else 0
        if not option_has_effect(state, opt, value):
            return -10.0
        if opt in ATTACKS:
            return 20.0 + value
        return {Opt.NET: 8.0, Opt.DEFEND: -5.0}.get(opt, 4.0)
    if action == "draw":
        return 6.0 if len(state.side(state.active).hand) <= 3 else 1.0
    if action == "to":
        return 5.0 - _distance_after(state, args[0])
    if action == "dir":
        return 10.0 * _hits(state, int(args[0]))
    if action in ("dwarf", "target"):
        return 5.0
    if action == "free":
        return 7.0
    if action == "fury":
        return 3.0 if state.wounds_of(DWARVES[0]) <= 2 else -1.0
    if action == "place":
        return -abs(distance(args[1], state.dragon_hex) - 2)
    if action == "exchange":
        return -1.0
    return 0.0


def _distance_after(state: FelsState, dest: str) -> float:
    """Dwarves walk towards the dragon; the dragon walks towards the nearest living dwarf."""
    if state.active is Role.DWARVES:
        return float(distance(dest, state.dragon_hex))
    others = [h for h in state.dwarf_hexes if h is not None]
    return float(min((distance(dest, h) for h in others), default=0))


def _hits(state: FelsState, direction: int) -> int:
    return len(fire_hits(state, direction))
