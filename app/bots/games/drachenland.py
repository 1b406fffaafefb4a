"""Drachenland for the bots: sample face-down tiles and hidden treasure, value by the score.

Unseen by a seat: the tiles on face-down volcanoes and the one left in the box, and (unless
variant 2 opens the screens) what the other players hold behind their screens.

- Tiles: the 16 volcano tiles minus every tile seen. With the public log that is exact (each
  ``revealed`` event names its tile); without it, tiles taken from a volcano and played since
  are unknown, so the pool is a superset and its surplus is dropped at random.
- Treasure: every take is announced in the log (``took_gems``/``took_egg``), so the log gives
  each screen's content; without a log the total behind the closed screens (supply minus the
  volcanoes and the open screens) is shared out at random.

The view leaves out some public details of the turn in progress (the nodes entered so far, a
walk just made); they are rebuilt from the log of this turn where it has them. The search only
ever proposes the moves the seat was really offered at the root, so an approximation there
costs accuracy deeper in the tree, never legality.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from app.bots.games import BotGame, margin_rewards
from app.bots.observation import Observation
from app.engine.protocol import JSON
from app.games.drachenland.board import (
    BOARD,
    COLOURS,
    EGG_SUPPLY,
    GEM_SUPPLY,
    GEMS,
    KING_OF,
    PLAYER_TILES,
    QUICK_STEPS_BONUS,
    VOLCANO_TILES,
    Colour,
    NodeIndex,
    Tile,
)
from app.games.drachenland.rules import ALL_TILES_COUNT, replace, score
from app.games.drachenland.state import Phase, PlayerState, State, TurnState, VolcanoState

_FIRST_ENTRANCE = min(BOARD.entrances)
_GAINABLE = (Tile.REROLL, Tile.BOATMAN, Tile.QUICK_STEPS, Tile.SMALL_DRAGON, Tile.MAGIC_HAND)
"""Tiles a player can take from a volcano with an egg (rings and king dragons stay)."""
_KING_TILE = {colour: tile for tile, colour in KING_OF.items()}
_TILE_ORDER = list(Tile)
_RING_WORTH = 1.5
_SCALE = 5.0
Gems = tuple[int, int, int, int]


def determinise(obs: Observation, rng: random.Random) -> State:
    view = obs.view
    players: int = view["players_count"]
    volcano_views = view["volcanoes"]
    kings: tuple[NodeIndex | None, NodeIndex | None, NodeIndex | None] = _three(
        None if view["kings"][c.value] is None else BOARD.index[view["kings"][c.value]] for c in COLOURS
    )
    face_down = [i for i, v in enumerate(volcano_views) if v["face_down"]]
    tiles = _sample_tiles(obs, kings, len(face_down) + 1, rng)
    box_tile, hidden_tiles = tiles[0], tiles[1:]
    volcanoes = []
    for v in volcano_views:
        if v["face_down"]:
            tile: Tile | None = hidden_tiles.pop()
        else:
            tile = None if v["tile"] is None else Tile(v["tile"])
        volcanoes.append(VolcanoState(v["eggs"], _gems(v["gems"]), tile, v["face_down"]))
    holdings = _holdings(obs, volcano_views, rng)
    figures: dict[tuple[int, str], NodeIndex] = {
        (f["seat"], f["colour"]): BOARD.index[f["node"]] for f in view["figures"]
    }
    seats = []
    for s, p in enumerate(view["players"]):
        eggs, gems = holdings[s]
        seats.append(
            PlayerState(
                figures=_three(figures.get((s, c.value)) for c in COLOURS),
                rings=_three(p["rings"][c.value] for c in COLOURS),
                eggs=eggs,
                gems=gems,
                tiles=tuple(Tile(t) for t in p["tiles"]),
            )
        )
    current = view["current"] if view["current"] is not None else obs.seat
    first: int = view["first"]
    turns = (current - first) % players if view["start_round"] else players
    state = State(
        players=players,
        variant1=view["variant1"],
        variant2=view["variant2"],
        first=first,
        current=current,
        turns=turns,
        volcanoes=tuple(volcanoes),
        kings=kings,
        box_tile=box_tile,
        box_eggs=_box_eggs(players),
        discarded=(),
        seats=tuple(seats),
        turn=_turn(obs, seats[current] if current < len(seats) else None),
        rules=2 if view["start_exact"] else 1,
    )
    return _with_discards(state)


def evaluate(state: State) -> tuple[float, ...]:
    values = [score(p.eggs, p.gems, p.rings)[0] + _RING_WORTH * sum(p.rings) for p in state.seats]
    return margin_rewards(values, _SCALE)


BOT_GAME = BotGame(determinise=determinise, evaluate=evaluate, playout_depth=12)


# --- private helpers -------------------------------------------------------------------------


def _sample_tiles(
    obs: Observation, kings: tuple[NodeIndex | None, ...], unseen: int, rng: random.Random
) -> list[Tile]:
    """``unseen`` tiles for the box and the face-down volcanoes, drawn from what is left."""
    pool = Counter(VOLCANO_TILES)
    revealed = [Tile(e["data"]["tile"]) for e in obs.log if e["kind"] == "revealed"]
    if obs.log:
        pool.subtract(revealed)
    else:
        view = obs.view
        seen = [Tile(v["tile"]) for v in view["volcanoes"] if not v["face_down"] and v["tile"] is not None]
        seen += [_KING_TILE[c] for c, k in zip(COLOURS, kings, strict=True) if k is not None]
        for p in view["players"]:
            held = Counter(Tile(t) for t in p["tiles"])
            held.subtract(PLAYER_TILES)
            seen += list(held.elements())
        pool.subtract(seen)
    tiles = list(pool.elements())
    rng.shuffle(tiles)
    while len(tiles) > unseen:
        # Taken from a volcano and played since: only gainable kinds can have gone that way.
        surplus = [i for i, t in enumerate(tiles) if t in _GAINABLE] or list(range(len(tiles)))
        tiles.pop(rng.choice(surplus))
    assert len(tiles) == unseen, "more tiles face down than the box holds"
    return tiles


def _holdings(obs: Observation, volcano_views: list[JSON], rng: random.Random) -> list[tuple[int, Gems]]:
    """(eggs, gems) behind each screen: open ones as shown, closed ones from the log or at random."""
    view = obs.view
    players: int = view["players_count"]
    result: list[tuple[int, Gems] | None] = []
    for p in view["players"]:
        h = p["holdings"]
        result.append(None if h is None else (h["eggs"], _gems(h["gems"])))
    closed = [s for s, r in enumerate(result) if r is None]
    if not closed:
        return [r for r in result if r is not None]
    eggs_left = EGG_SUPPLY - _box_eggs(players) - sum(v["eggs"] for v in volcano_views)
    gems_left = [GEM_SUPPLY[g] - sum(v["gems"][g.value] for v in volcano_views) for g in GEMS]
    for r in result:
        if r is not None:
            eggs_left -= r[0]
            gems_left = [a - b for a, b in zip(gems_left, r[1], strict=True)]
    tally = _tally(obs.log, players)
    if obs.log and sum(tally[s][0] for s in closed) == eggs_left:
        for s in closed:
            result[s] = tally[s]
    else:
        shares = {s: [0, 0, 0, 0, 0] for s in closed}  # eggs, then gems in GEMS order
        for kind, count in enumerate([eggs_left, *gems_left]):
            for _ in range(count):
                shares[rng.choice(closed)][kind] += 1
        for s, share in shares.items():
            result[s] = (share[0], (share[1], share[2], share[3], share[4]))
    return [r for r in result if r is not None]


def _tally(log: tuple[JSON, ...], players: int) -> list[tuple[int, Gems]]:
    eggs = [0] * players
    gems = [[0, 0, 0, 0] for _ in range(players)]
    for event in log:
        data = event["data"]
        if event["kind"] == "took_egg":
            eggs[data["seat"]] += 1
        elif event["kind"] == "took_gems":
            gems[data["seat"]][[g.value for g in GEMS].index(data["gem"])] += data["count"]
    return [(eggs[s], (gems[s][0], gems[s][1], gems[s][2], gems[s][3])) for s in range(players)]


def _turn(obs: Observation, player: PlayerState | None) -> TurnState:
    """The turn in progress: what the view shows, the walking details rebuilt from this turn's log."""
    view = obs.view
    phase = Phase(view["phase"])
    dice = None if view["dice"] is None else (view["dice"][0], view["dice"][1])
    used = (bool(view["dice_used"][0]), bool(view["dice_used"][1]))
    die = None if view["die"] is None else "ab".index(view["die"])
    active = None if view["active"] is None else Colour(view["active"])
    moved = tuple(Colour(c) for c in view["moved"])
    budget: int = view["budget"]
    base = TurnState(phase, dice=dice, dice_used=used, moved=moved, active=active, die=die)
    if phase is not Phase.MOVE or active is None or player is None:
        return replace(base, takes_left=view["takes_left"])
    position = player.figures[COLOURS.index(active)]
    full = dice[die] if dice is not None and die is not None else budget
    die_left, bonus, walked, just_walked = full, 0, False, False
    visited: list[NodeIndex] = []
    start: NodeIndex | None = None
    for event in _this_figure(obs.log):
        kind, data = event["kind"], event["data"]
        if kind in ("walked", "ferried", "flew") and start is None:
            start = BOARD.index[data["from"]]
        if kind == "chose":
            continue
        elif kind == "tile_played" and data["tile"] == Tile.QUICK_STEPS.value:
            bonus += QUICK_STEPS_BONUS
            just_walked = False
        elif kind == "walked":
            steps = data["steps"]
            from_bonus = min(steps, bonus)
            bonus -= from_bonus
            die_left -= steps - from_bonus
            walked = walked or steps > from_bonus
            visited.append(BOARD.index[data["to"]])
            just_walked = True
        elif kind in ("ferried", "flew", "called"):
            if kind != "called":
                visited.append(BOARD.index[data["to"]])
            if data.get("power") == "die":
                die_left = 0
            just_walked = False
    start = position if start is None else start
    if start is not None and start < _FIRST_ENTRANCE:
        visited.insert(0, start)
    if die_left + bonus != budget or die_left < 0:
        # No log (or one that does not fit): the whole budget from the die, nothing walked yet.
        die_left, bonus = budget, 0
        walked = dice is not None and die is not None and budget < dice[die]
    return TurnState(
        phase,
        dice=base.dice,
        dice_used=used,
        moved=moved,
        active=active,
        die=die,
        die_left=die_left,
        die_walked=walked,
        bonus_left=bonus,
        visited=tuple(dict.fromkeys(visited)),
        takes_left=view["takes_left"],
        just_walked=just_walked,
    )


def _this_figure(log: tuple[JSON, ...]) -> list[JSON]:
    """The log since the active figure was chosen (its ``chose`` event first)."""
    for i in range(len(log) - 1, -1, -1):
        if log[i]["kind"] == "chose":
            return list(log[i:])
        if log[i]["kind"] == "turn_ended":
            break
    return []


def _with_discards(state: State) -> State:
    """Played tiles are out of the game and out of every view; only their number must be right."""
    on_board = sum(v.tile is not None for v in state.volcanoes)
    held = sum(len(p.tiles) for p in state.seats)
    kings = sum(k is not None for k in state.kings)
    missing = ALL_TILES_COUNT + len(PLAYER_TILES) * state.players - on_board - held - kings - 1
    filler = sorted((PLAYER_TILES * state.players)[:missing], key=_TILE_ORDER.index)
    return _replace_discarded(state, tuple(filler))


def _replace_discarded(state: State, discarded: tuple[Tile, ...]) -> State:
    return replace(state, discarded=discarded)


def _box_eggs(players: int) -> int:
    return EGG_SUPPLY - sum(v.eggs_two_players if players == 2 else v.eggs for v in BOARD.volcanoes)


def _gems(raw: dict[str, int]) -> Gems:
    return (raw[GEMS[0].value], raw[GEMS[1].value], raw[GEMS[2].value], raw[GEMS[3].value])


def _three(values: Any) -> Any:
    v = list(values)
    return (v[0], v[1], v[2])
