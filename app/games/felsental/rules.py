"""The rules of Duell im Felsental: setup, who acts, legal moves, apply, outcome.

``legal_moves`` is the single truth: ``apply`` accepts exactly what it lists. Moves
(``action:arg``) and the spec sections they implement:

- ``exchange`` / ``keep`` — option hand_exchange (§6.2); ``place:<dwarf>:<hex>`` — free setup (§6.3)
- ``draw`` (M1), ``discard:<card>`` (M2), ``play:<card>:<option>`` (M3), ``free`` (M4),
  ``fury`` (M5), ``block:<dwarf>:<card>`` / ``accept`` (M6), ``wound:<track>`` (M7), ``confirm``
- choosing the target of a played card: ``to:<hex>``, ``target:<dwarf>``, ``dir:<0-5>``,
  ``dwarf:<dwarf>``, ``attack`` (attack2 with one attacker) and ``done`` (finish the card)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from app.engine.protocol import CONFIRM, Event, IllegalMove, Move, Options, Outcome, Seat
from app.engine.rng import Rng
from app.games.felsental.board import (
    CARDS,
    DECKS,
    DIRECTIONS,
    DRAGON_FIELDS,
    DRAGON_START,
    DRAW_COUNT,
    DWARF_FIELDS,
    DWARVES,
    FREE_SETUP_HEXES,
    HAND_LIMIT,
    HEXES,
    NEIGHBOURS,
    RAYS,
    STANDARD_START,
    START_HAND,
    TRACKS,
    CardId,
    Dwarf,
    HexId,
    Opt,
    Role,
    Track,
    between,
)
from app.games.felsental.state import Attack, DwarfSetup, FelsState, LegResult, Phase, Play, Side, evolve

DRAW = Move("draw")
DONE = Move("done")
ACCEPT = Move("accept")
FURY = Move("fury")
FREE = Move("free")
ATTACK = Move("attack")
EXCHANGE = Move("exchange")
KEEP = Move("keep")
PLACEABLE_TRACKS: tuple[Track, ...] = (Track.FLIGHT, Track.MOVEMENT, Track.FIRE)
_HEX_ORDER = {h.id: i for i, h in enumerate(HEXES)}
# Moves are made once here: legal_moves runs for every decision of every self-play game.
_PLAY = {c: tuple(Move("play", (c, str(o.opt))) for o in card.options) for c, card in CARDS.items()}
_DISCARD = {c: Move("discard", (c,)) for c in CARDS}
_TO = {h.id: Move("to", (h.id,)) for h in HEXES}
_DWARF = {d: Move("dwarf", (str(d),)) for d in DWARVES}
_TARGET = {d: Move("target", (str(d),)) for d in DWARVES}
_DIR = tuple(Move("dir", (str(i),)) for i in range(len(DIRECTIONS)))
_WOUND = {t: Move("wound", (str(t),)) for t in PLACEABLE_TRACKS}

# --- setup ---------------------------------------------------------------------------------


def setup(players: int, options: Options, rng: Rng) -> FelsState:
    """A new match: the first dragon is drawn at random, then leg 1 is dealt (spec §6, §12)."""
    if players != 2:
        raise IllegalMove("Duell im Felsental is a game for exactly two players")
    legs = int(options.get("legs", 2))
    empty = Side((), ())
    base = FelsState(
        legs=legs,
        dwarf_setup=DwarfSetup(options.get("dwarf_setup", DwarfSetup.STANDARD)),
        hand_exchange=bool(options.get("hand_exchange", False)),
        leg=1,
        first_dragon=rng.randbelow(2),
        results=(),
        phase=Phase.PLAY,
        dragon=empty,
        dwarves=empty,
        dragon_hex=DRAGON_START,
        dwarf_hexes=(None, None, None),
        dragon_wounds=(0, 0, 0, 0),
        dwarf_wounds=(0, 0, 0),
        netted=False,
        fury_used=False,
        active=Role.DRAGON,
        actions=1,
    )
    state, _ = _start_leg(base, 1, rng)
    return state


def _start_leg(state: FelsState, leg: int, rng: Rng) -> tuple[FelsState, list[Event]]:
    """Fresh figures, tableaus and decks; the dragon opens with one action (spec §6, §7)."""
    sides = {}
    events: list[Event] = []
    state = evolve(state, leg=leg)
    for role in Role:
        deck = tuple(c.id for c in DECKS[role])
        sides[role], drawn = _draw(Side((), deck), START_HAND, rng)
        events.append(_private_draw(state, role, drawn))
    free = state.dwarf_setup is DwarfSetup.FREE
    hexes = (None, None, None) if free else tuple(STANDARD_START[d] for d in DWARVES)
    if state.hand_exchange:
        phase, active = Phase.EXCHANGE, Role.DRAGON
    elif free:
        phase, active = Phase.PLACE, Role.DWARVES
    else:
        phase, active = Phase.PLAY, Role.DRAGON
    state = replace(
        state,
        phase=phase,
        dragon=sides[Role.DRAGON],
        dwarves=sides[Role.DWARVES],
        dragon_hex=DRAGON_START,
        dwarf_hexes=(hexes[0], hexes[1], hexes[2]),
        dragon_wounds=(0, 0, 0, 0),
        dwarf_wounds=(0, 0, 0),
        netted=False,
        fury_used=False,
        active=active,
        actions=1,
        play=None,
        attack=None,
        to_place=0,
    )
    start = Event("leg_started", {"leg": leg, "dragon": state.dragon_seat}, pieces=("dragon",))
    return state, [start, *events]


def _draw(side: Side, count: int, rng: Rng) -> tuple[Side, tuple[CardId, ...]]:
    deck = list(side.deck)
    drawn = tuple(deck.pop(rng.randbelow(len(deck))) for _ in range(min(count, len(deck))))
    return Side(tuple(sorted(side.hand + drawn)), tuple(deck), side.discard), drawn


def _private_draw(state: FelsState, role: Role, drawn: tuple[CardId, ...]) -> Event:
    return Event("cards_drawn", {"role": str(role), "cards": list(drawn)}, state.seat_of(role), True)


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


# --- geometry helpers ----------------------------------------------------------------------


def reachable(start: HexId, steps: int, occupied: Iterable[HexId]) -> list[HexId]:
    """Hexes a figure can walk to in up to ``steps`` steps through empty hexes (start excluded)."""
    blocked = set(occupied)
    seen = {start}
    frontier = {start}
    for _ in range(steps):
        frontier = {n for h in frontier for n in NEIGHBOURS[h] if n not in blocked and n not in seen}
        seen |= frontier
    seen.discard(start)
    return sorted(seen, key=_HEX_ORDER.__getitem__)


def fly_targets(state: FelsState) -> list[HexId]:
    occupied = state.occupied()
    return [h.id for h in HEXES if h.id not in occupied]


def adjacent_dwarves(state: FelsState) -> list[Dwarf]:
    near = NEIGHBOURS[state.dragon_hex]
    return [d for d in DWARVES if state.dwarf_hex(d) in near]


def fire_line(state: FelsState, direction: int) -> tuple[HexId, ...]:
    return RAYS[state.dragon_hex, direction]


def fire_hits(state: FelsState, direction: int) -> tuple[Dwarf, ...]:
    line = fire_line(state, direction)
    return tuple(d for h in line if (d := state.dwarf_on(h)) is not None)


def crossbow_row(state: FelsState) -> tuple[HexId, ...] | None:
    """The free hexes between crossbowman and dragon when a shot is possible (spec §8)."""
    origin = state.dwarf_hex(Dwarf.CROSSBOWMAN)
    if origin is None:
        return None
    row = between(origin, state.dragon_hex)
    if row is None or any(state.dwarf_on(h) is not None for h in row):
        return None
    return row


def dwarf_steps(state: FelsState, dwarf: Dwarf, steps: int) -> list[HexId]:
    start = state.dwarf_hex(dwarf)
    return [] if start is None else reachable(start, steps, state.occupied())


def dragon_steps(state: FelsState, steps: int) -> list[HexId]:
    return reachable(state.dragon_hex, steps, state.occupied())


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
        return _fury(state, rng)
    if action == "block":
        return _block(state, Dwarf(move.args[0]), move.args[1], rng)
    if action == "accept":
        return _resolve(state, rng)
    if action == "wound":
        return _place_wound(state, Track(move.args[0]), rng)
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
    events = [Event("hand_exchanged" if redraw else "hand_kept", {"role": str(role)})]
    if redraw:
        side = state.side(role)
        side, drawn = _draw(Side((), tuple(sorted(side.hand + side.deck)), side.discard), START_HAND, rng)
        state = _with_side(state, role, side)
        events.append(_private_draw(state, role, drawn))
    if role is Role.DRAGON:
        return evolve(state, active=Role.DWARVES), events
    if state.dwarf_setup is DwarfSetup.FREE:
        return evolve(state, phase=Phase.PLACE, active=Role.DWARVES), events
    return evolve(state, phase=Phase.PLAY, active=Role.DRAGON, actions=1), events


def _place(state: FelsState, dwarf: Dwarf, hex_id: HexId) -> tuple[FelsState, list[Event]]:
    state = _set_hex(state, dwarf, hex_id)
    events = [Event("dwarf_placed", {"dwarf": str(dwarf), "hex": hex_id}, pieces=(f"dwarf-{dwarf}",))]
    if all(h is not None for h in state.dwarf_hexes):
        state = evolve(state, phase=Phase.PLAY, active=Role.DRAGON, actions=1)
    return state, events


def _end_turn(state: FelsState) -> tuple[FelsState, list[Event]]:
    """Confirm: the other side's turn with two actions; a dragon without cards is skipped (§10)."""
    nxt = state.active.other
    events = [Event("turn_ended", {"role": str(state.active)})]
    if nxt is Role.DRAGON and not state.dragon.has_cards:
        events.append(Event("dragon_skipped", {}, pieces=("dragon",)))
        nxt = Role.DWARVES
    return evolve(state, active=nxt, actions=2), events


def _do_draw(state: FelsState, rng: Rng) -> tuple[FelsState, list[Event]]:
    role = state.active
    side, drawn = _draw(state.side(role), DRAW_COUNT, rng)
    state = evolve(state, actions=state.actions - 1, **{str(role): side})
    public = Event("drew", {"role": str(role), "count": len(drawn), "hand": len(side.hand)})
    return state, [public, _private_draw(state, role, drawn)]


def _discard(state: FelsState, card: CardId, rng: Rng) -> tuple[FelsState, list[Event]]:
    role = state.active
    state = _move_card_to_discard(state, role, card)
    events = [Event("discarded", {"role": str(role), "card": card})]
    return _check_end(state, events, rng)


def _play(state: FelsState, card: CardId, opt: Opt, rng: Rng) -> tuple[FelsState, list[Event]]:
    role = state.active
    option = CARDS[card].option(opt)
    assert option is not None
    state = _move_card_to_discard(state, role, card, actions=state.actions - 1)
    data = {"role": str(role), "card": card, "option": str(opt), "value": option.value}
    if not option_has_effect(state, opt, option.value):
        return _check_end(state, [Event("card_wasted", data)], rng)
    if opt is Opt.NET:
        events = [Event("net_thrown", data, pieces=("dragon", f"dwarf-{Dwarf.TRAPPER}"))]
        return _check_end(evolve(state, netted=True), events, rng)
    events = [Event("card_played", data)]
    if opt is Opt.CROSSBOW:
        return _declare(
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
        return _check_end(finished, [Event("card_finished", {"card": play.card})], rng)
    if action == "to" and play.opt in (Opt.MOVE, Opt.FLY):
        dest = move.args[0]
        events = [_moved_event("dragon", state.dragon_hex, dest)]
        return _check_end(evolve(state, dragon_hex=dest, play=None), events, rng)
    if action == "to":
        dwarf = play.selected
        assert dwarf is not None
        origin = state.dwarf_hex(dwarf)
        assert origin is not None
        state = _set_hex(state, dwarf, move.args[0])
        events = [_moved_event(f"dwarf-{dwarf}", origin, move.args[0])]
        play = replace(play, selected=None, moved=(*play.moved, dwarf))
        more = play.opt is Opt.MOVE2 and len(play.moved) < 2 and _targets(state, play)
        return _check_end(evolve(state, play=play if more else None), events, rng)
    if action == "target":
        attack = Attack(Role.DRAGON, play.card, play.opt, play.value, (Dwarf(move.args[0]),))
        return _declare(evolve(state, play=None), attack, [], rng)
    if action == "dir":
        direction = int(move.args[0])
        hits = fire_hits(state, direction)
        data = {"direction": direction, "line": list(fire_line(state, direction))}
        if not hits:
            return _check_end(evolve(state, play=None), [Event("fire_missed", data)], rng)
        attack = Attack(Role.DRAGON, play.card, play.opt, play.value, hits, direction=direction)
        return _declare(evolve(state, play=None), attack, [], rng)
    if action == "dwarf" and play.opt in (Opt.MOVE1, Opt.MOVE2):
        return evolve(state, play=replace(play, selected=Dwarf(move.args[0]))), []
    dwarf = Dwarf(move.args[0]) if action == "dwarf" else None
    if play.opt is Opt.ATTACK2 and play.selected is None:
        assert dwarf is not None
        if len(adjacent_dwarves(state)) > 1:
            return evolve(state, play=replace(play, selected=dwarf)), []
    attackers = tuple(d for d in (play.selected, dwarf) if d is not None)
    attack = Attack(Role.DWARVES, play.card, play.opt, play.value, attackers)
    return _declare(evolve(state, play=None), attack, [], rng)


def _declare(
    state: FelsState, attack: Attack, events: list[Event], rng: Rng
) -> tuple[FelsState, list[Event]]:
    """An attack is declared; the defender answers out of turn (a hand-over barrier, §9)."""
    pieces = ("dragon", *(f"dwarf-{d}" for d in attack.dwarves))
    data = {
        "by": str(attack.by),
        "option": str(attack.opt),
        "value": attack.value,
        "dwarves": [str(d) for d in attack.dwarves],
        "direction": attack.direction,
    }
    events = [*events, Event("attack_declared", data, pieces=pieces)]
    state = evolve(state, attack=attack)
    if not state.side(attack.by.other).hand:
        # The hand size is public, so skipping the prompt of an empty hand reveals nothing.
        return _resolve(state, rng, events)
    return state, events


def _block(state: FelsState, dwarf: Dwarf, card: CardId, rng: Rng) -> tuple[FelsState, list[Event]]:
    attack = state.attack
    assert attack is not None
    defender = attack.by.other
    state = _move_card_to_discard(state, defender, card)
    attack = replace(attack, blocks=(*attack.blocks, (dwarf, card)))
    state = evolve(state, attack=attack)
    events = [
        Event(
            "blocked", {"role": str(defender), "dwarf": str(dwarf), "card": card}, pieces=(f"dwarf-{dwarf}",)
        )
    ]
    if len(attack.blocks) == len(attack.dwarves):
        return _resolve(state, rng, events)
    return state, events


def _resolve(state: FelsState, rng: Rng, events: list[Event] | None = None) -> tuple[FelsState, list[Event]]:
    """Unblocked attacks deal their wounds; dragon wounds fill the scales first (§9)."""
    attack = state.attack
    assert attack is not None
    events = list(events or [])
    blocked = {d for d, _ in attack.blocks}
    hits = [d for d in attack.dwarves if d not in blocked]
    state = evolve(state, attack=None)
    if attack.by is Role.DRAGON:
        for dwarf in hits:
            state, more = _wound_dwarf(state, dwarf, attack.value)
            events.extend(more)
    else:
        total = attack.value * len(hits)
        state, more = _wound_dragon(state, total)
        events.extend(more)
    return _check_end(state, events, rng)


def _wound_dwarf(state: FelsState, dwarf: Dwarf, amount: int) -> tuple[FelsState, list[Event]]:
    i = DWARVES.index(dwarf)
    before = state.dwarf_wounds[i]
    after = min(DWARF_FIELDS[dwarf], before + amount)
    wounds = list(state.dwarf_wounds)
    wounds[i] = after
    state = evolve(state, dwarf_wounds=(wounds[0], wounds[1], wounds[2]))
    piece = f"dwarf-{dwarf}"
    events = [
        Event(
            "dwarf_wounded", {"dwarf": str(dwarf), "wounds": after - before, "total": after}, pieces=(piece,)
        )
    ]
    if after >= DWARF_FIELDS[dwarf]:
        state = _set_hex(state, dwarf, None)
        events.append(Event("dwarf_died", {"dwarf": str(dwarf)}, pieces=(piece,)))
    return state, events


def _wound_dragon(state: FelsState, amount: int) -> tuple[FelsState, list[Event]]:
    """Scales take wounds automatically; the rest waits for the dwarf player (M7) when it is a choice."""
    free_scales = DRAGON_FIELDS[Track.SCALES] - state.track(Track.SCALES)
    on_scales = min(amount, free_scales)
    free_rest = sum(DRAGON_FIELDS[t] - state.track(t) for t in PLACEABLE_TRACKS)
    rest = min(amount - on_scales, free_rest)
    state = _add_wounds(state, Track.SCALES, on_scales)
    events = [
        Event("dragon_wounded", {"wounds": amount, "scales": on_scales, "to_place": rest}, pieces=("dragon",))
    ]
    state, more = _auto_place(evolve(state, to_place=rest))
    return state, events + more


def _auto_place(state: FelsState) -> tuple[FelsState, list[Event]]:
    """Place remaining dragon wounds when there is no choice: one open track, or all fields fill."""
    open_tracks = [t for t in PLACEABLE_TRACKS if not state.track_full(t)]
    free = sum(DRAGON_FIELDS[t] - state.track(t) for t in open_tracks)
    if state.to_place == 0 or (len(open_tracks) > 1 and state.to_place < free):
        return state, []
    events = []
    for track in open_tracks:
        n = min(state.to_place, DRAGON_FIELDS[track] - state.track(track))
        state = evolve(_add_wounds(state, track, n), to_place=state.to_place - n)
        events.append(_track_event(state, track, n))
    return state, events


def _place_wound(state: FelsState, track: Track, rng: Rng) -> tuple[FelsState, list[Event]]:
    state = evolve(_add_wounds(state, track, 1), to_place=state.to_place - 1)
    events = [_track_event(state, track, 1)]
    state, more = _auto_place(state)
    return _check_end(state, events + more, rng)


def _track_event(state: FelsState, track: Track, n: int) -> Event:
    data = {"track": str(track), "wounds": n, "lost": state.track_full(track)}
    return Event("dragon_track_wounded", data, pieces=("dragon",))


def _fury(state: FelsState, rng: Rng) -> tuple[FelsState, list[Event]]:
    """The warrior takes an undefendable wound; the turn gains an action (§7 M5)."""
    state = evolve(state, fury_used=True, actions=state.actions + 1)
    events = [Event("fury", {}, pieces=(f"dwarf-{Dwarf.WARRIOR}",))]
    state, more = _wound_dwarf(state, Dwarf.WARRIOR, 1)
    return _check_end(state, events + more, rng)


def _check_end(state: FelsState, events: list[Event], rng: Rng) -> tuple[FelsState, list[Event]]:
    """The end checks of §11 in order, once nothing is half resolved; then leg 2 or the match end."""
    if not state.quiet or state.phase is not Phase.PLAY:
        return state, events
    if state.dragon_dead:
        winner = Role.DWARVES
        why = "dragon_dead"
    elif not state.alive():
        winner, why = Role.DRAGON, "dwarves_dead"
    elif not state.dwarves.has_cards:
        winner, why = Role.DRAGON, "dwarves_out_of_cards"
    else:
        return state, events
    result = LegResult(state.dragon_seat, winner, sum(state.dragon_wounds), sum(state.dwarf_wounds))
    state = evolve(state, results=(*state.results, result))
    events = [
        *events,
        Event(
            "leg_won",
            {
                "leg": state.leg,
                "winner": str(winner),
                "seat": result.winner_seat(),
                "reason": why,
                "dragon_wounds": result.dragon_wounds,
                "dwarf_wounds": result.dwarf_wounds,
            },
        ),
    ]
    if len(state.results) < state.legs:
        state, more = _start_leg(state, state.leg + 1, rng)
        return state, events + more
    state = evolve(state, phase=Phase.OVER)
    final = outcome(state)
    assert final is not None
    return state, [*events, Event("match_over", {"ranks": list(final.ranks), **final.summary})]


# --- outcome -------------------------------------------------------------------------------


def match_score(state: FelsState) -> tuple[tuple[int, int], tuple[int, int]]:
    """(legs won, wounds inflicted) per seat so far."""
    legs = tuple(sum(1 for r in state.results if r.winner_seat() == s) for s in (0, 1))
    wounds = tuple(sum(r.inflicted_by(s) for r in state.results) for s in (0, 1))
    return (legs[0], legs[1]), (wounds[0], wounds[1])


def outcome(state: FelsState) -> Outcome | None:
    """After the whole match: legs won, then wounds inflicted over both legs; else a draw (§12)."""
    if state.phase is not Phase.OVER:
        return None
    legs, wounds = match_score(state)
    key = [(legs[s], wounds[s]) if legs[0] == legs[1] else (legs[s], 0) for s in (0, 1)]
    ranks = tuple(1 + sum(1 for other in key if other > mine) for mine in key)
    summary = {"legs": list(legs), "wounds": list(wounds), "tiebreak": legs[0] == legs[1]}
    return Outcome((float(legs[0]), float(legs[1])), ranks, summary)


# --- small state helpers -------------------------------------------------------------------


def _with_side(state: FelsState, role: Role, side: Side) -> FelsState:
    return evolve(state, dragon=side) if role is Role.DRAGON else evolve(state, dwarves=side)


def _move_card_to_discard(state: FelsState, role: Role, card: CardId, **changes: Any) -> FelsState:
    side = state.side(role)
    hand = tuple(c for c in side.hand if c != card)
    changes[str(role)] = Side(hand, side.deck, (*side.discard, card))
    return evolve(state, **changes)


def _set_hex(state: FelsState, dwarf: Dwarf, hex_id: HexId | None) -> FelsState:
    hexes = list(state.dwarf_hexes)
    hexes[DWARVES.index(dwarf)] = hex_id
    return evolve(state, dwarf_hexes=(hexes[0], hexes[1], hexes[2]))


def _add_wounds(state: FelsState, track: Track, n: int) -> FelsState:
    wounds = list(state.dragon_wounds)
    wounds[TRACKS.index(track)] += n
    return evolve(state, dragon_wounds=(wounds[0], wounds[1], wounds[2], wounds[3]))


def _moved_event(piece: str, origin: HexId, dest: HexId) -> Event:
    return Event("moved", {"piece": piece, "from": origin, "to": dest}, pieces=(piece, f"hex-{dest}"))
