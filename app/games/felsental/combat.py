"""Attacks, defence and wounds (spec §9) and fury (§7 M5)."""

from __future__ import annotations

from dataclasses import replace

from app.engine.protocol import Event
from app.engine.rng import Rng
from app.games.felsental.board import (
    DRAGON_FIELDS,
    DWARF_FIELDS,
    DWARVES,
    CardId,
    Dwarf,
    Role,
    Track,
)
from app.games.felsental.match import check_end
from app.games.felsental.pieces import card_piece, track_piece
from app.games.felsental.state import (
    Attack,
    FelsState,
    add_wounds,
    discard_card,
    evolve,
    set_hex,
)

PLACEABLE_TRACKS: tuple[Track, ...] = (Track.FLIGHT, Track.MOVEMENT, Track.FIRE)
"""Tracks the dwarf player may put dragon wounds on once the scales are full."""


def declare(state: FelsState, attack: Attack, events: list[Event], rng: Rng) -> tuple[FelsState, list[Event]]:
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
        return resolve(state, rng, events)
    return state, events


def block(state: FelsState, dwarf: Dwarf, card: CardId, rng: Rng) -> tuple[FelsState, list[Event]]:
    attack = state.attack
    assert attack is not None
    defender = attack.by.other
    state = discard_card(state, defender, card)
    attack = replace(attack, blocks=(*attack.blocks, (dwarf, card)))
    state = evolve(state, attack=attack)
    events = [
        Event(
            "blocked",
            {"role": str(defender), "dwarf": str(dwarf), "card": card},
            pieces=(f"dwarf-{dwarf}", card_piece(card)),
        )
    ]
    if len(attack.blocks) == len(attack.dwarves):
        return resolve(state, rng, events)
    return state, events


def resolve(state: FelsState, rng: Rng, events: list[Event] | None = None) -> tuple[FelsState, list[Event]]:
    """Unblocked attacks deal their wounds; dragon wounds fill the scales first (§9)."""
    attack = state.attack
    assert attack is not None
    events = list(events or [])
    blocked = {d for d, _ in attack.blocks}
    hits = [d for d in attack.dwarves if d not in blocked]
    state = evolve(state, attack=None)
    if attack.by is Role.DRAGON:
        for dwarf in hits:
            state, more = wound_dwarf(state, dwarf, attack.value)
            events.extend(more)
    elif hits:
        # Nothing to report when every attack was blocked (no "the dragon took 0 wounds" line).
        state, more = wound_dragon(state, attack.value * len(hits))
        events.extend(more)
    return check_end(state, events, rng)


def wound_dwarf(state: FelsState, dwarf: Dwarf, amount: int) -> tuple[FelsState, list[Event]]:
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
        state = set_hex(state, dwarf, None)
        events.append(Event("dwarf_died", {"dwarf": str(dwarf)}, pieces=(piece,)))
    return state, events


def wound_dragon(state: FelsState, amount: int) -> tuple[FelsState, list[Event]]:
    """Scales take wounds automatically; the rest waits for the dwarf player (M7) when it is a choice."""
    free_scales = DRAGON_FIELDS[Track.SCALES] - state.track(Track.SCALES)
    on_scales = min(amount, free_scales)
    free_rest = sum(DRAGON_FIELDS[t] - state.track(t) for t in PLACEABLE_TRACKS)
    rest = min(amount - on_scales, free_rest)
    state = add_wounds(state, Track.SCALES, on_scales)
    events = [
        Event(
            "dragon_wounded",
            {"wounds": amount, "scales": on_scales, "to_place": rest},
            pieces=("dragon", track_piece(Track.SCALES)),
        )
    ]
    state, more = auto_place(evolve(state, to_place=rest))
    return state, events + more


def auto_place(state: FelsState) -> tuple[FelsState, list[Event]]:
    """Place remaining dragon wounds when there is no choice: one open track, or all fields fill."""
    open_tracks = [t for t in PLACEABLE_TRACKS if not state.track_full(t)]
    free = sum(DRAGON_FIELDS[t] - state.track(t) for t in open_tracks)
    if state.to_place == 0 or (len(open_tracks) > 1 and state.to_place < free):
        return state, []
    events = []
    for track in open_tracks:
        n = min(state.to_place, DRAGON_FIELDS[track] - state.track(track))
        state = evolve(add_wounds(state, track, n), to_place=state.to_place - n)
        events.append(track_event(state, track, n))
    return state, events


def place_wound(state: FelsState, track: Track, rng: Rng) -> tuple[FelsState, list[Event]]:
    state = evolve(add_wounds(state, track, 1), to_place=state.to_place - 1)
    events = [track_event(state, track, 1)]
    state, more = auto_place(state)
    return check_end(state, events + more, rng)


def track_event(state: FelsState, track: Track, n: int) -> Event:
    data = {"track": str(track), "wounds": n, "lost": state.track_full(track)}
    return Event("dragon_track_wounded", data, pieces=("dragon", track_piece(track)))


def fury(state: FelsState, rng: Rng) -> tuple[FelsState, list[Event]]:
    """The warrior takes an undefendable wound; the turn gains an action (§7 M5)."""
    state = evolve(state, fury_used=True, actions=state.actions + 1)
    events = [Event("fury", {}, pieces=(f"dwarf-{Dwarf.WARRIOR}",))]
    state, more = wound_dwarf(state, Dwarf.WARRIOR, 1)
    return check_end(state, events + more, rng)
