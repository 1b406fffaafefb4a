"""The rules of Duell im Felsental: who acts, the legal moves and how each move is applied.

``legal_moves`` is the single truth: ``apply`` accepts exactly what it lists. Moves
(``action:arg``) and the spec sections they implement:

- ``exchange`` / ``keep`` — option hand_exchange (§6.2); ``place:<dwarf>:<hex>`` — free setup (§6.3)
- ``draw`` (M1), ``discard:<card>`` (M2), ``play:<card>:<option>`` (M3), ``free`` (M4),
  ``fury`` (M5), ``block:<dwarf>:<card>`` / ``accept`` (M6), ``wound:<track>`` (M7), ``confirm``
- choosing the target of a played card: ``to:<hex>``, ``target:<dwarf>``, ``dir:<0-5>``,
  ``dwarf:<dwarf>``, ``attack`` (attack2 with one attacker) and ``done`` (finish the card)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from app.engine.protocol import CONFIRM, Event, IllegalMove, Move, Seat
from app.engine.rng import Rng
from app.games.felsental.board import (
    CARDS,
    DIRECTIONS,
    DRAW_COUNT,
    DWARVES,
    FREE_SETUP_HEXES,
    HAND_LIMIT,
    HEXES,
    START_HAND,
    CardId,
    Dwarf,
    HexId,
    Opt,
    Role,
    Track,
)
from app.games.felsental.combat import PLACEABLE_TRACKS, block, declare, fury, place_wound, resolve
from app.games.felsental.geometry import (
    adjacent_dwarves,
    crossbow_row,
    dragon_steps,
    dwarf_steps,
    fire_hits,
    fire_line,
    fly_targets,
)
from app.games.felsental.match import check_end, draw_cards, private_draw
from app.games.felsental.pieces import card_piece, role_piece
from app.games.felsental.state import (
    Attack,
    DwarfSetup,
    FelsState,
    Phase,
    Play,
    Side,
    discard_card,
    evolve,
    set_hex,
    with_side,
)

DRAW = Move("draw")
DONE = Move("done")
ACCEPT = Move("accept")
FURY = Move("fury")
FREE = Move("free")
ATTACK = Move("attack")
EXCHANGE = Move("exchange")
KEEP = Move("keep")
# Moves are made once here: legal_moves runs for every decision of every self-play game.
_PLAY = {c: tuple(Move("play", (c, str(o.opt))) for o in card.options) for c, card in CARDS.items()}
_DISCARD = {c: Move("discard", (c,)) for c in CARDS}
_TO = {h.id: Move("to", (h.id,)) for h in HEXES}
_DWARF = {d: Move("dwarf", (str(d),)) for d in DWARVES}
_TARGET = {d: Move("target", (str(d),)) for d in DWARVES}
_DIR = tuple(Move("dir", (str(i),)) for i in range(len(DIRECTIONS)))
_WOUND = {t: Move("wound", (str(t),)) for t in PLACEABLE_TRACKS}


# --- who acts ------------------------------------------------------------------------------


def to_act(state: FelsState) -> frozenset[Seat]:
    if state.phase is Phase.OVER:
        return _NOBODY
    if state.phase is Phase.PLACE or state.to_place:
        role = Role.DWARVES
    elif state.attack is not None:
        role = state.attack.by.other
    else:
        role = state.active
    dragon = state.first_dragon if state.leg == 1 else 1 - state.first_dragon
    return _SEATS[dragon if role is Role.DRAGON else 1 - dragon]


_NOBODY: frozenset[Seat] = frozenset()
_SEATS = (frozenset({0}), frozenset({1}))


# --- legal moves ---------------------------------------------------------------------------


def legal_moves(state: FelsState, seat: Seat) -> list[Move]:
    """Every decision ``seat`` may take now, in a fixed order; ``[]`` if it is not to act."""
    # The platform asks several times about the same state (page, check, apply): remember the
    # last answer. States are immutable, and the strong reference keeps the identity unique.
    cached = _last_legal[0]  # one read: another thread may replace the entry meanwhile
    if cached[0] is state and cached[1] == seat:
        return list(cached[2])
    moves = _legal_moves(state, seat)
    _last_legal[0] = (state, seat, tuple(moves))
    return moves


_last_legal: list[tuple[Any, Seat, tuple[Move, ...]]] = [(None, -1, ())]


def _legal_moves(state: FelsState, seat: Seat) -> list[Move]:
    if seat not in to_act(state):
        return []
    if state.phase is Phase.EXCHANGE:
        return [EXCHANGE, KEEP]
    if state.phase is Phase.PLACE:
        dwarf = next(d for d, h in zip(DWARVES, state.dwarf_hexes, strict=True) if h is None)
        taken = state.occupied()
        return [Move("place", (str(dwarf), h)) for h in FREE_SETUP_HEXES if h not in taken]
    if state.attack is not None:
        return _defence_moves(state, state.attack)
    if state.to_place:
        return [_WOUND[t] for t in PLACEABLE_TRACKS if not state.track_full(t)]
    if state.play is not None:
        return _target_moves(state, state.play)
    role = state.active
    side = state.side(role)
    if len(side.hand) > HAND_LIMIT:
        return [_DISCARD[c] for c in side.hand]
    moves: list[Move] = []
    if state.actions > 0:
        if side.deck:
            moves.append(DRAW)
        for card in side.hand:
            moves.extend(_PLAY[card])
        if role is Role.DRAGON and state.netted and state.actions == 2:
            moves.append(FREE)
        if role is Role.DWARVES and not state.fury_used and state.is_alive(Dwarf.WARRIOR):
            moves.append(FURY)
    if state.actions == 0 or not side.has_cards:
        moves.append(CONFIRM)
    return moves


def _defence_moves(state: FelsState, attack: Attack) -> list[Move]:
    blocked = {d for d, _ in attack.blocks}
    cards = [c for c in state.side(attack.by.other).hand if CARDS[c].can_defend]
    moves = [Move("block", (str(d), c)) for d in attack.dwarves if d not in blocked for c in cards]
    return [*moves, ACCEPT]


def _targets(state: FelsState, play: Play) -> list[Move]:
    """The target choices of a card being played (without ``done``)."""
    opt = play.opt
    if opt is Opt.MOVE:
        return [_TO[h] for h in dragon_steps(state, play.value)]
    if opt is Opt.FLY:
        return [_TO[h] for h in fly_targets(state)]
    if opt is Opt.BITE:
        return [_TARGET[d] for d in adjacent_dwarves(state)]
    if opt is Opt.FIRE:
        return [_DIR[i] for i in range(len(DIRECTIONS)) if fire_line(state, i)]
    if opt in (Opt.MOVE1, Opt.MOVE2):
        if play.selected is not None:
            return [_TO[h] for h in dwarf_steps(state, play.selected, play.value)]
        return [_DWARF[d] for d in state.alive() if d not in play.moved and dwarf_steps(state, d, play.value)]
    if opt is Opt.ATTACK1:
        return [_DWARF[d] for d in adjacent_dwarves(state)]
    if opt is Opt.ATTACK2:
        others = [_DWARF[d] for d in adjacent_dwarves(state) if d != play.selected]
        return others if play.selected is None else [*others, ATTACK]
    return []


def _target_moves(state: FelsState, play: Play) -> list[Move]:
    moves = _targets(state, play)
    if play.opt is Opt.ATTACK2 and play.selected is not None:
        return moves  # an attacker is chosen: attack with one or add the second
    return [*moves, DONE]


def option_has_effect(state: FelsState, opt: Opt, value: int) -> bool:
    """Whether playing ``opt`` now can do anything (otherwise the card is just discarded, §8)."""
    if opt is Opt.DEFEND:
        return False
    if opt is Opt.NET:
        return state.is_alive(Dwarf.TRAPPER) and not state.netted
    if opt is Opt.CROSSBOW:
        return crossbow_row(state) is not None
    if opt in (Opt.MOVE, Opt.FLY) and state.netted:
        return False
    lost = {Opt.MOVE: Track.MOVEMENT, Opt.FLY: Track.FLIGHT, Opt.FIRE: Track.FIRE}
    if opt in lost and state.track_full(lost[opt]):
        return False
    return bool(_targets(state, Play("", opt, value)))


# --- apply ---------------------------------------------------------------------------------


def apply(state: FelsState, seat: Seat, move: Move, rng: Rng) -> tuple[FelsState, list[Event]]:
    """Take one decision; raises ``IllegalMove`` with a reason for anything not legal now."""
    if move not in legal_moves(state, seat):
        raise IllegalMove(why_illegal(state, seat, move))
    action = move.action
    if action in ("exchange", "keep"):
        return _exchange(state, action == "exchange", rng)
    if action == "place":
        return _place(state, Dwarf(move.args[0]), move.args[1])
    if action == "confirm":
        return _end_turn(state)
    if action == "draw":
        return _do_draw(state, rng)
    if action == "discard":
        return _discard(state, move.args[0], rng)
    if action == "play":
        return _play(state, move.args[0], Opt(move.args[1]), rng)
    if action == "free":
        events = [Event("net_freed", {}, pieces=("dragon",))]
        return evolve(state, netted=False, actions=0), events
    if action == "fury":
        return fury(state, rng)
    if action == "block":
        return block(state, Dwarf(move.args[0]), move.args[1], rng)
    if action == "accept":
        return resolve(state, rng)
    if action == "wound":
        return place_wound(state, Track(move.args[0]), rng)
    return _target(state, move, rng)


def why_illegal(state: FelsState, seat: Seat, move: Move) -> str:
    """A reason in plain words for a move ``legal_moves`` does not list."""
    if state.phase is Phase.OVER:
        return "the match is over"
    if seat not in to_act(state):
        return "it is not your turn"
    if state.attack is not None:
        return "first decide which attacks to block (block a dwarf with a defence card, or accept)"
    if state.to_place:
        return "first place the dragon's wounds on a track that still has free fields"
    if state.play is not None:
        return f"'{move}' is not a target of the card being played"
    side = state.side(state.active)
    if state.phase is Phase.PLAY and len(side.hand) > HAND_LIMIT:
        return f"discard down to {HAND_LIMIT} cards first"
    if move.action in ("draw", "play", "fury", "free") and state.actions == 0:
        return "no actions left in this turn: confirm"
    if move.action == "draw" and not side.deck:
        return "your draw pile is empty"
    if move.action == "play" and (not move.args or move.args[0] not in side.hand):
        return "that card is not in your hand"
    if move.action == "play":
        return "that card has no such option"
    if move.action == "fury":
        return "fury is used once per game, in the dwarves' turn, while the warrior lives"
    if move.action == "free":
        return "freeing the dragon from the net needs the net and both actions of the turn"
    if move.action == "confirm":
        return "you still have actions: passing is not allowed"
    return f"'{move}' is not a legal move now"


def _exchange(state: FelsState, redraw: bool, rng: Rng) -> tuple[FelsState, list[Event]]:
    role = state.active
    events = [
        Event("hand_exchanged" if redraw else "hand_kept", {"role": str(role)}, pieces=(role_piece(role),))
    ]
    if redraw:
        side = state.side(role)
        side, drawn = draw_cards(
            Side((), tuple(sorted(side.hand + side.deck)), side.discard), START_HAND, rng
        )
        state = with_side(state, role, side)
        events.append(private_draw(state, role, drawn))
    if role is Role.DRAGON:
        return evolve(state, active=Role.DWARVES), events
    if state.dwarf_setup is DwarfSetup.FREE:
        return evolve(state, phase=Phase.PLACE, active=Role.DWARVES), events
    return evolve(state, phase=Phase.PLAY, active=Role.DRAGON, actions=1), events


def _place(state: FelsState, dwarf: Dwarf, hex_id: HexId) -> tuple[FelsState, list[Event]]:
    state = set_hex(state, dwarf, hex_id)
    events = [
        Event(
            "dwarf_placed", {"dwarf": str(dwarf), "hex": hex_id}, pieces=(f"dwarf-{dwarf}", f"hex-{hex_id}")
        )
    ]
    if all(h is not None for h in state.dwarf_hexes):
        state = evolve(state, phase=Phase.PLAY, active=Role.DRAGON, actions=1)
    return state, events


def _end_turn(state: FelsState) -> tuple[FelsState, list[Event]]:
    """Confirm: the other side's turn with two actions; a dragon without cards is skipped (§10)."""
    nxt = state.active.other
    events = [Event("turn_ended", {"role": str(state.active)}, pieces=(role_piece(state.active),))]
    if nxt is Role.DRAGON and not state.dragon.has_cards:
        events.append(Event("dragon_skipped", {}, pieces=("dragon",)))
        nxt = Role.DWARVES
    return evolve(state, active=nxt, actions=2), events


def _do_draw(state: FelsState, rng: Rng) -> tuple[FelsState, list[Event]]:
    role = state.active
    side, drawn = draw_cards(state.side(role), DRAW_COUNT, rng)
    state = evolve(state, actions=state.actions - 1, **{str(role): side})
    data = {"role": str(role), "count": len(drawn), "hand": len(side.hand)}
    public = Event("drew", data, pieces=(role_piece(role),))
    return state, [public, private_draw(state, role, drawn)]


def _discard(state: FelsState, card: CardId, rng: Rng) -> tuple[FelsState, list[Event]]:
    role = state.active
    state = discard_card(state, role, card)
    events = [
        Event("discarded", {"role": str(role), "card": card}, pieces=(role_piece(role), card_piece(card)))
    ]
    return check_end(state, events, rng)


def _play(state: FelsState, card: CardId, opt: Opt, rng: Rng) -> tuple[FelsState, list[Event]]:
    role = state.active
    option = CARDS[card].option(opt)
    assert option is not None
    state = discard_card(state, role, card, actions=state.actions - 1)
    data = {"role": str(role), "card": card, "option": str(opt), "value": option.value}
    if not option_has_effect(state, opt, option.value):
        return check_end(
            state, [Event("card_wasted", data, pieces=(role_piece(role), card_piece(card)))], rng
        )
    if opt is Opt.NET:
        events = [Event("net_thrown", data, pieces=("dragon", f"dwarf-{Dwarf.TRAPPER}", card_piece(card)))]
        return check_end(evolve(state, netted=True), events, rng)
    events = [Event("card_played", data, pieces=(role_piece(role), card_piece(card)))]
    if opt is Opt.CROSSBOW:
        return declare(
            state, Attack(Role.DWARVES, card, opt, option.value, (Dwarf.CROSSBOWMAN,)), events, rng
        )
    return evolve(state, play=Play(card, opt, option.value)), events


def _target(state: FelsState, move: Move, rng: Rng) -> tuple[FelsState, list[Event]]:
    """A target choice for the card being played (``to``, ``target``, ``dir``, ``dwarf``, ...)."""
    play = state.play
    assert play is not None
    action = move.action
    if action == "done":
        finished = evolve(state, play=None)
        event = Event("card_finished", {"card": play.card}, pieces=(card_piece(play.card),))
        return check_end(finished, [event], rng)
    if action == "to" and play.opt in (Opt.MOVE, Opt.FLY):
        dest = move.args[0]
        events = [_moved_event("dragon", state.dragon_hex, dest)]
        return check_end(evolve(state, dragon_hex=dest, play=None), events, rng)
    if action == "to":
        dwarf = play.selected
        assert dwarf is not None
        origin = state.dwarf_hex(dwarf)
        assert origin is not None
        state = set_hex(state, dwarf, move.args[0])
        events = [_moved_event(f"dwarf-{dwarf}", origin, move.args[0])]
        play = replace(play, selected=None, moved=(*play.moved, dwarf))
        more = play.opt is Opt.MOVE2 and len(play.moved) < 2 and _targets(state, play)
        return check_end(evolve(state, play=play if more else None), events, rng)
    if action == "target":
        attack = Attack(Role.DRAGON, play.card, play.opt, play.value, (Dwarf(move.args[0]),))
        return declare(evolve(state, play=None), attack, [], rng)
    if action == "dir":
        direction = int(move.args[0])
        hits = fire_hits(state, direction)
        line = list(fire_line(state, direction))
        data = {"direction": direction, "line": line}
        if not hits:
            missed = Event("fire_missed", data, pieces=("dragon", *(f"hex-{h}" for h in line)))
            return check_end(evolve(state, play=None), [missed], rng)
        attack = Attack(Role.DRAGON, play.card, play.opt, play.value, hits, direction=direction)
        return declare(evolve(state, play=None), attack, [], rng)
    if action == "dwarf" and play.opt in (Opt.MOVE1, Opt.MOVE2):
        return evolve(state, play=replace(play, selected=Dwarf(move.args[0]))), []
    dwarf = Dwarf(move.args[0]) if action == "dwarf" else None
    if play.opt is Opt.ATTACK2 and play.selected is None:
        assert dwarf is not None
        if len(adjacent_dwarves(state)) > 1:
            return evolve(state, play=replace(play, selected=dwarf)), []
    attackers = tuple(d for d in (play.selected, dwarf) if d is not None)
    attack = Attack(Role.DWARVES, play.card, play.opt, play.value, attackers)
    return declare(evolve(state, play=None), attack, [], rng)


def _moved_event(piece: str, origin: HexId, dest: HexId) -> Event:
    return Event(
        "moved", {"piece": piece, "from": origin, "to": dest}, pieces=(piece, f"hex-{origin}", f"hex-{dest}")
    )
