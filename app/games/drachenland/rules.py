"""Drachenland rules: setup, legal moves, apply, outcome, invariants (spec §3–§6).

Moves (one decision each, ``action:arg``):

- ``choose:<colour>`` start round / second figure; ``choose:<colour>:<a|b>`` first figure + die
- ``roll``, ``reroll``
- ``move:<node>`` (figure on the board) or ``move:<entrance>:<node>`` (figure off the board)
- ``quick``, ``boat:<link>``, ``fly:<volcano>:<die|small>``, ``call:<die|small>``, ``end``
- ``gems``, ``clear``, ``egg``, ``ring``, ``hand``, ``pass``
- ``confirm``
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from app.engine.protocol import CONFIRM, Event, IllegalMove, Move, Options, Outcome, Seat
from app.engine.rng import Rng
from app.games.drachenland.board import (
    BOARD,
    COLOURS,
    DIE_A,
    DIE_B,
    DRAGON_POWER,
    EGG_SUPPLY,
    GEM_SUPPLY,
    GEMS,
    KING_OF,
    MAX_SAME_GEM_PER_VOLCANO,
    PLAYER_TILES,
    QUICK_STEPS_BONUS,
    START_STEPS,
    VOLCANO_COUNT,
    VOLCANO_TILES,
    Colour,
    Gem,
    NodeIndex,
    NodeKind,
    Tile,
)
from app.games.drachenland.state import Phase, PlayerState, State, TurnState, VolcanoState

DIE_NAMES = ("a", "b")
END = Move("end")
PASS = Move("pass")
POWER_DIE = "die"
POWER_SMALL = "small"
CLEAR = GEMS.index(Gem.CLEAR)
ENTRANCE_IDS = {BOARD.nodes[e].id: e for e in BOARD.entrances}
COLOUR_BY_NAME = {c.value: c for c in COLOURS}
WATER_BY_ID = {w.id: w for w in BOARD.water}
SPACE_KIND = NodeKind.SPACE
IS_SPACE = tuple(n.kind is SPACE_KIND for n in BOARD.nodes)
ALL_TILES_COUNT = sum(VOLCANO_TILES.values())
NEIGHBOURS = BOARD.neighbours
GEM_TOTALS = tuple(GEM_SUPPLY[g] for g in GEMS)
FIRST_ENTRANCE = min(BOARD.entrances)
PLAYER_TILE_COUNT = len(PLAYER_TILES)
MOVE_TO = tuple(Move("move", (n.id,)) for n in BOARD.nodes)
ENTER_MOVES = {
    e: tuple(Move("move", (BOARD.nodes[e].id, n.id)) for n in BOARD.nodes) for e in BOARD.entrances
}
COLOUR_NAMES = tuple(c.value for c in COLOURS)
FIGURE_PIECES = tuple(tuple(f"fig-{seat}-{name}" for name in COLOUR_NAMES) for seat in range(4))
"""``FIGURE_PIECES[seat][colour index]``: the figure's piece name in events."""
ROLL_MOVES = (Move("roll"),)
START_MOVES = tuple(Move("choose", (c.value,)) for c in COLOURS)
FIRST_MOVES = tuple(Move("choose", (c.value, d)) for c in COLOURS for d in DIE_NAMES)
FIRST_MOVES_REROLL = (Move("reroll"), *FIRST_MOVES)
QUICK = Move("quick")
HAND = Move("hand")
PASS_ONLY = (PASS,)
HAND_OR_PASS = (HAND, PASS)
TAKE_MOVES = {name: Move(name) for name in ("gems", "clear", "egg", "ring")}
BOAT_LINKS = tuple(
    tuple(
        (link.b if link.a == v else link.a, Move("boat", (link.id,)))
        for link in BOARD.water
        if v in (link.a, link.b)
    )
    for v in range(VOLCANO_COUNT)
)
"""Per volcano: (other end, move) of each water link that touches it, in ``BOARD.water`` order."""
FLY_MOVES = {
    power: tuple(Move("fly", (BOARD.nodes[v].id, power)) for v in range(VOLCANO_COUNT))
    for power in ("die", "small")
}
CALL_MOVES = {power: Move("call", (power,)) for power in ("die", "small")}

T = TypeVar("T")
S = TypeVar("S")
NOBODY: frozenset[Seat] = frozenset()
TO_ACT = tuple(frozenset({s}) for s in range(4))


# --- setup ------------------------------------------------------------------------------


RULES = 2
"""The rules new matches play (``State.rules``)."""


def setup(players: int, options: Options, rng: Rng) -> State:
    """Eggs, gems and face-down tiles on the volcanoes; a random start player (spec §3)."""
    return _setup(players, options, rng, RULES)


def setup_rules_1(players: int, options: Options, rng: Rng) -> State:
    """``setup`` for the matches begun under ruleset ``drachenland-1`` (their replays)."""
    return _setup(players, options, rng, 1)


def _setup(players: int, options: Options, rng: Rng, rules: int) -> State:
    if not 2 <= players <= 4:
        raise IllegalMove("Drachenland is for 2 to 4 players")
    variant1 = bool(options.get("variant1", False))
    variant2 = bool(options.get("variant2", False))
    eggs = [v.eggs_two_players if players == 2 else v.eggs for v in BOARD.volcanoes]
    gems = _deal_gems(rng, limit=None if variant1 else MAX_SAME_GEM_PER_VOLCANO)
    bag = [tile for tile, count in VOLCANO_TILES.items() for _ in range(count)]
    tiles = rng.shuffled(bag)
    volcanoes = tuple(VolcanoState(eggs[i], gems[i], tiles[i], True) for i in range(VOLCANO_COUNT))
    seat_state = PlayerState(
        (None, None, None), (False, False, False), 0, (0, 0, 0, 0), _sorted(PLAYER_TILES)
    )
    first = rng.randbelow(players)
    return State(
        players=players,
        variant1=variant1,
        variant2=variant2,
        first=first,
        current=first,
        turns=0,
        volcanoes=volcanoes,
        kings=(None, None, None),
        box_tile=tiles[VOLCANO_COUNT],
        box_eggs=EGG_SUPPLY - sum(eggs),
        discarded=(),
        seats=(seat_state,) * players,
        turn=TurnState(Phase.START),
        rules=rules,
    )


def _deal_gems(rng: Rng, limit: int | None) -> list[tuple[int, int, int, int]]:
    """Draw every gem onto the volcanoes, at most ``limit`` of a colour each; redo when stuck."""
    while True:
        supply = [GEM_SUPPLY[g] for g in GEMS]
        result: list[tuple[int, int, int, int]] = []
        for volcano in BOARD.volcanoes:
            here = [0, 0, 0, 0]
            for _ in range(volcano.gems):
                weights = [supply[g] if limit is None or here[g] < limit else 0 for g in range(len(GEMS))]
                total = sum(weights)
                if total == 0:
                    break
                pick = rng.randbelow(total)
                g = 0
                while pick >= weights[g]:
                    pick -= weights[g]
                    g += 1
                here[g] += 1
                supply[g] -= 1
            else:
                result.append((here[0], here[1], here[2], here[3]))
                continue
            break
        else:
            return result


# --- who acts, legal moves --------------------------------------------------------------


def to_act(state: State) -> frozenset[Seat]:
    return NOBODY if state.turn.phase is Phase.OVER else TO_ACT[state.current]


_cache: dict[tuple[int, Seat], tuple[State, list[Move]]] = {}


def legal_moves(state: State, seat: Seat) -> list[Move]:
    """Every legal decision of ``seat`` now, in a fixed order (cached by state identity)."""
    return list(_moves(state, seat))


def _moves(state: State, seat: Seat) -> list[Move]:
    """``legal_moves`` without the defensive copy: the cached list itself, never to be changed."""
    key = (id(state), seat)
    hit = _cache.get(key)
    if hit is not None and hit[0] is state:
        return hit[1]
    moves = _legal_moves(state, seat)
    if len(_cache) > 64:
        _cache.clear()
    _cache[key] = (state, moves)
    return moves


def _legal_moves(state: State, seat: Seat) -> list[Move]:
    turn = state.turn
    phase = turn.phase
    if phase is Phase.OVER or seat != state.current:
        return []
    if phase is Phase.MOVE:
        return movement_moves(state)
    if phase is Phase.TREASURE:
        return treasure_moves(state)
    if phase is Phase.ROLL:
        return list(ROLL_MOVES)
    if phase is Phase.CHOOSE_FIRST:
        return list(FIRST_MOVES_REROLL if Tile.REROLL in state.seats[seat].tiles else FIRST_MOVES)
    if phase is Phase.START:
        return list(START_MOVES)
    if phase is Phase.CHOOSE_SECOND:
        moved = turn.moved
        return [START_MOVES[i] for i, c in enumerate(COLOURS) if c not in moved]
    return [CONFIRM]  # DONE


def movement_moves(state: State) -> list[Move]:
    """Movement-phase moves of the active figure (spec §4.3)."""
    turn = state.turn
    player = state.seats[state.current]
    ci = COLOURS.index(_active(state))
    position = player.figures[ci]
    moves: list[Move] = []
    budget = turn.die_left + turn.bonus_left
    # The start round walks its N spaces in full: "1 Feld beim ersten Spieler, 2 beim zweiten".
    at_least = turn.die_left if state.rules >= 2 and state.in_start_round else 1
    # Two walks in a row equal one longer walk: a new walk needs a tile or dragon action between.
    if budget > 0 and not turn.just_walked:
        if position is None:
            for entrance in BOARD.entrances:
                enter = ENTER_MOVES[entrance]
                moves.extend([enter[t] for t in walk_targets(state, entrance, budget, at_least)])
        else:
            moves.extend([MOVE_TO[t] for t in walk_targets(state, position, budget, at_least)])
    tiles = player.tiles
    if Tile.QUICK_STEPS in tiles:
        moves.append(QUICK)
    if position is not None and position < VOLCANO_COUNT:
        # Rules 1 kept ferries and flights off the nodes entered in this phase; the text forbids
        # neither: a second Boatman may cross back, a flight goes to "einen beliebigen anderen Vulkan".
        closed = turn.visited if state.rules < 2 else ()
        if Tile.BOATMAN in tiles:
            moves.extend([move for other, move in BOAT_LINKS[position] if other not in closed])
        powers = _dragon_powers(state)
        if powers:
            king = state.kings[ci]
            if king == position:
                for v in range(VOLCANO_COUNT):
                    if v != position and v not in closed:
                        moves.extend([FLY_MOVES[p][v] for p in powers])
            elif king is not None:
                moves.extend([CALL_MOVES[p] for p in powers])
    if position is not None or state.turns >= state.players:  # not in the start round
        moves.append(END)
    return moves


def treasure_moves(state: State) -> list[Move]:
    """Treasure-phase moves of the active figure (spec §4.4)."""
    options = _treasure_options(state)
    if not options:
        return [PASS]
    hand = Tile.MAGIC_HAND in state.seats[state.current].tiles
    if state.turn.takes_left > 0:
        # "genau eine dieser Möglichkeiten": taking is not optional while something is there
        moves = [TAKE_MOVES[o] for o in options]
        if hand:
            moves.append(HAND)
        return moves
    return list(HAND_OR_PASS if hand else PASS_ONLY)


def _treasure_options(state: State) -> list[str]:
    player = state.seats[state.current]
    ci = COLOURS.index(_active(state))
    position = player.figures[ci]
    if position is None or position >= VOLCANO_COUNT:
        return []
    volcano = state.volcanoes[position]
    options = []
    gems = volcano.gems
    if gems[ci] > 0:
        options.append("gems")
    if gems[CLEAR] > 0:
        options.append("clear")
    if volcano.eggs > 0:
        options.append("egg")
    if volcano.tile is Tile.RING and not volcano.face_down and not player.rings[ci]:
        options.append("ring")
    return options


def walk_targets(state: State, start: NodeIndex, budget: int, at_least: int = 1) -> list[NodeIndex]:
    """Nodes a walk of ``at_least``..``budget`` steps from ``start`` may end on, in node order.

    Figures on spaces may be jumped but not landed on; face-down volcanoes end a walk;
    nodes already entered this movement phase are closed (spec §4.3). A walk is the shortest
    path to its target; within the start round's 4 steps of an entrance the board is a tree,
    so there the shortest path is the only one and "exactly N" is a plain distance.
    """
    reached, parent = _reach(state, start, budget)
    occupied = {n for p in state.seats for n in p.figures}
    targets = [n for n in reached if n < VOLCANO_COUNT or n not in occupied]
    if at_least > 1:
        targets = [n for n in targets if _steps(parent, start, n) >= at_least]
    return targets


def _steps(parent: dict[NodeIndex, NodeIndex], start: NodeIndex, target: NodeIndex) -> int:
    steps, node = 1, target
    while parent[node] != start:
        steps, node = steps + 1, parent[node]
    return steps


def walk_path(state: State, start: NodeIndex, budget: int, target: NodeIndex) -> tuple[NodeIndex, ...]:
    """The shortest walk from ``start`` to ``target`` (without ``start``)."""
    parent = _reach(state, start, budget)[1]
    path = [target]
    while parent[path[-1]] != start:
        path.append(parent[path[-1]])
    return tuple(reversed(path))


_Reach = tuple[list[NodeIndex], dict[NodeIndex, NodeIndex]]
_reached: dict[tuple[NodeIndex, int, tuple[NodeIndex, ...], int], _Reach] = {}
_last_face_down: list[tuple[tuple[VolcanoState, ...], int]] = [((), 0)]


def _reach(state: State, start: NodeIndex, budget: int) -> _Reach:
    """The nodes a walk reaches (in node order, occupied spaces included) and the BFS parent of each.

    The search depends only on ``start``, ``budget``, the nodes visited this movement phase and
    which volcanoes are face down (figures on spaces are jumped, they only close a target), so it
    is remembered under exactly these. The results are shared: never change them.
    """
    volcanoes = state.volcanoes
    last, face_down = _last_face_down[0]
    if last is not volcanoes:
        face_down = sum([1 << i for i, v in enumerate(volcanoes) if v.face_down])
        _last_face_down[0] = (volcanoes, face_down)
    visited = state.turn.visited
    key = (start, budget, visited, face_down)
    hit = _reached.get(key)
    if hit is not None:
        return hit
    parent: dict[NodeIndex, NodeIndex] = {}
    seen = set(visited)
    seen.add(start)
    frontier = [start]
    for _ in range(budget):
        nxt: list[NodeIndex] = []
        for node in frontier:
            for n in NEIGHBOURS[node]:
                if n in seen:
                    continue
                seen.add(n)
                parent[n] = node
                if n >= VOLCANO_COUNT or not face_down >> n & 1:
                    nxt.append(n)
        if not nxt:
            break
        frontier = nxt
    if len(_reached) >= 8192:
        _reached.clear()
    result = _reached[key] = (sorted(parent), parent)
    return result


def _dragon_powers(state: State) -> list[str]:
    turn = state.turn
    powers = []
    if turn.die is not None and not turn.die_walked and turn.die_left == DRAGON_POWER:
        powers.append(POWER_DIE)
    if Tile.SMALL_DRAGON in state.seats[state.current].tiles:
        powers.append(POWER_SMALL)
    return powers


# --- apply ------------------------------------------------------------------------------


def apply(state: State, seat: Seat, move: Move, rng: Rng) -> tuple[State, list[Event]]:
    """The next state and what happened; ``IllegalMove`` for anything not legal now."""
    if state.is_over:
        raise IllegalMove("the game is over")
    if seat != state.current:
        raise IllegalMove("it is not your turn")
    if not _offered(_moves(state, seat), move):
        raise IllegalMove(_reason(state, move))
    events: list[Event] = []
    action = move.action
    if action == "confirm":
        return _next_turn(state, events), events
    if action == "roll" or action == "reroll":
        if action == "reroll":
            state = _discard(state, Tile.REROLL)
        dice = (rng.choice(DIE_A), rng.choice(DIE_B))
        state = replace(state, turn=TurnState(Phase.CHOOSE_FIRST, dice=dice))
        data = {"seat": seat, "dice": list(dice), "reroll": action == "reroll"}
        events.append(Event("rolled", data, pieces=("die-a", "die-b", _seat_piece(seat))))
        return state, events
    if action == "choose":
        state = _choose(state, move, events)
    elif state.turn.phase is Phase.MOVE:
        state = _move_action(state, move, events)
    else:
        state = _treasure_action(state, move, events)
    return _settle(state, events), events


def _offered(moves: list[Move], move: Move) -> bool:
    """``move in moves``, trying identity first: usually it is one of the very objects offered."""
    for offered in moves:
        if offered is move:
            return True
    return move in moves


def _choose(state: State, move: Move, events: list[Event]) -> State:
    turn = state.turn
    colour = COLOUR_BY_NAME[move.args[0]]
    ci = COLOURS.index(colour)
    position = state.seats[state.current].figures[ci]
    visited = () if position is None else (position,)
    if turn.phase is Phase.START:
        steps = START_STEPS[state.players][state.turns]
        nxt = TurnState(Phase.MOVE, moved=(colour,), active=colour, die_left=steps)
        data: dict[str, object] = {"seat": state.current, "colour": COLOUR_NAMES[ci], "steps": steps}
        dice_piece: tuple[str, ...] = ()
    else:
        assert turn.dice is not None
        die = DIE_NAMES.index(move.args[1]) if len(move.args) > 1 else turn.dice_used.index(False)
        nxt = replace(
            turn,
            phase=Phase.MOVE,
            moved=(*turn.moved, colour),
            active=colour,
            die=die,
            die_left=turn.dice[die],
            die_walked=False,
            bonus_left=0,
            visited=visited,
            takes_left=0,
            just_walked=False,
        )
        data = {"seat": state.current, "colour": COLOUR_NAMES[ci], "die": turn.dice[die]}
        dice_piece = (f"die-{DIE_NAMES[die]}",)
    events.append(Event("chose", data, pieces=(FIGURE_PIECES[state.current][ci], *dice_piece)))
    return replace(state, turn=nxt)


def _move_action(state: State, move: Move, events: list[Event]) -> State:
    turn = state.turn
    seat = state.current
    colour = _active(state)
    ci = COLOURS.index(colour)
    position = state.seats[seat].figures[ci]
    piece = FIGURE_PIECES[seat][ci]
    action = move.action
    if action == "move":
        start = ENTRANCE_IDS[move.args[0]] if position is None else position
        target = BOARD.index[move.args[-1]]
        path = walk_path(state, start, turn.die_left + turn.bonus_left, target)
        steps = len(path)
        from_bonus = min(steps, turn.bonus_left)
        from_die = steps - from_bonus
        turn = replace(
            turn,
            bonus_left=turn.bonus_left - from_bonus,
            die_left=turn.die_left - from_die,
            die_walked=turn.die_walked or from_die > 0,
            visited=(*turn.visited, *path),
            just_walked=True,
        )
        state = _place_figure(state, seat, ci, target, turn)
        events.append(
            Event(
                "walked",
                {
                    "seat": seat,
                    "colour": COLOUR_NAMES[ci],
                    "from": BOARD.nodes[start].id,
                    "to": BOARD.nodes[target].id,
                    "steps": steps,
                },
                pieces=(piece, BOARD.nodes[start].id, BOARD.nodes[target].id),
            )
        )
        return _arrive(state, target, events)
    if action == "quick":
        state = _discard(state, Tile.QUICK_STEPS)
        state = replace(
            state, turn=replace(turn, bonus_left=turn.bonus_left + QUICK_STEPS_BONUS, just_walked=False)
        )
        data = {"seat": seat, "tile": Tile.QUICK_STEPS.value}
        events.append(Event("tile_played", data, pieces=(piece, _tiles_piece(seat))))
        return state
    if action == "boat":
        assert position is not None
        link = WATER_BY_ID[move.args[0]]
        target = link.b if link.a == position else link.a
        state = _discard(state, Tile.BOATMAN)
        state = replace(state, turn=replace(turn, visited=(*turn.visited, target), just_walked=False))
        state = _place_figure(state, seat, ci, target)
        events.append(
            Event(
                "ferried",
                {
                    "seat": seat,
                    "colour": COLOUR_NAMES[ci],
                    "from": BOARD.nodes[position].id,
                    "to": BOARD.nodes[target].id,
                    "link": link.id,
                },
                pieces=(piece, link.id, BOARD.nodes[position].id, BOARD.nodes[target].id, _tiles_piece(seat)),
            )
        )
        return _arrive(state, target, events)
    if action == "fly":
        assert position is not None
        target = BOARD.index[move.args[0]]
        state = _spend_power(state, move.args[1])
        state = replace(
            state, turn=replace(state.turn, visited=(*state.turn.visited, target), just_walked=False)
        )
        state = _place_figure(state, seat, ci, target)
        state = replace(state, kings=_set_king(state.kings, ci, target))
        events.append(
            Event(
                "flew",
                {
                    "seat": seat,
                    "colour": COLOUR_NAMES[ci],
                    "from": BOARD.nodes[position].id,
                    "to": BOARD.nodes[target].id,
                    "power": move.args[1],
                },
                pieces=(piece, f"king-{COLOUR_NAMES[ci]}", BOARD.nodes[position].id, BOARD.nodes[target].id),
            )
        )
        return _arrive(state, target, events)
    if action == "call":
        assert position is not None
        old = state.kings[ci]
        assert old is not None
        state = _spend_power(state, move.args[0])
        state = replace(
            state, kings=_set_king(state.kings, ci, position), turn=replace(state.turn, just_walked=False)
        )
        events.append(
            Event(
                "called",
                {
                    "seat": seat,
                    "colour": COLOUR_NAMES[ci],
                    "from": BOARD.nodes[old].id,
                    "to": BOARD.nodes[position].id,
                    "power": move.args[0],
                },
                pieces=(f"king-{COLOUR_NAMES[ci]}", BOARD.nodes[old].id, BOARD.nodes[position].id),
            )
        )
        return state
    # end
    return _to_treasure(state)


def _arrive(state: State, node: NodeIndex, events: list[Event]) -> State:
    """Arriving on a face-down volcano reveals its tile and ends the movement (spec §4.3)."""
    if node >= VOLCANO_COUNT or not state.volcanoes[node].face_down:
        return state
    volcano = state.volcanoes[node]
    tile = volcano.tile
    assert tile is not None
    kings = state.kings
    if tile in KING_OF:
        kings = _set_king(kings, COLOURS.index(KING_OF[tile]), node)
        volcano = replace(volcano, tile=None, face_down=False)
    else:
        volcano = replace(volcano, face_down=False)
    state = replace(state, volcanoes=_put(state.volcanoes, node, volcano), kings=kings)
    pieces = (BOARD.nodes[node].id, *((f"king-{KING_OF[tile].value}",) if tile in KING_OF else ()))
    events.append(
        Event("revealed", {"volcano": BOARD.nodes[node].id, "tile": tile.value}, reveals=True, pieces=pieces)
    )
    return _to_treasure(state)


def _to_treasure(state: State) -> State:
    return replace(state, turn=replace(state.turn, phase=Phase.TREASURE, takes_left=1))


def _treasure_action(state: State, move: Move, events: list[Event]) -> State:
    seat = state.current
    colour = _active(state)
    ci = COLOURS.index(colour)
    piece = FIGURE_PIECES[seat][ci]
    action = move.action
    if action == "pass":
        return _finish_figure(state)
    if action == "hand":
        state = _discard(state, Tile.MAGIC_HAND)
        played = {"seat": seat, "tile": Tile.MAGIC_HAND.value}
        events.append(Event("tile_played", played, pieces=(piece, _tiles_piece(seat))))
        return replace(state, turn=replace(state.turn, takes_left=state.turn.takes_left + 1))
    node = state.seats[seat].figures[ci]
    assert node is not None
    volcano = state.volcanoes[node]
    player = state.seats[seat]
    vid = BOARD.nodes[node].id
    data: dict[str, object] = {"seat": seat, "colour": COLOUR_NAMES[ci], "volcano": vid}
    if action == "gems" or action == "clear":
        g = ci if action == "gems" else CLEAR
        count = volcano.gems[g] if action == "gems" else 1
        volcano = replace(volcano, gems=_add(volcano.gems, g, -count))
        player = replace(player, gems=_add(player.gems, g, count))
        data |= {"gem": GEMS[g].value, "count": count}
        events.append(Event("took_gems", data, pieces=(piece, vid, _screen_piece(seat))))
    elif action == "egg":
        tile = volcano.tile
        gains = tile is not None and not volcano.face_down and tile is not Tile.RING and tile not in KING_OF
        volcano = replace(volcano, eggs=volcano.eggs - 1, tile=None if gains else tile)
        player = replace(player, eggs=player.eggs + 1)
        if gains:
            assert tile is not None
            player = replace(player, tiles=_sorted((*player.tiles, tile)))
        data |= {"tile": tile.value if gains and tile is not None else None}
        events.append(Event("took_egg", data, pieces=(piece, vid, _screen_piece(seat))))
    else:  # ring
        player = replace(player, rings=_add_ring(player.rings, ci))
        events.append(Event("put_ring", data, pieces=(piece, vid, _rings_piece(seat))))
    state = replace(
        state,
        volcanoes=_put(state.volcanoes, node, volcano),
        seats=_put(state.seats, seat, player),
        turn=replace(state.turn, takes_left=state.turn.takes_left - 1),
    )
    if action == "egg" and not any(v.eggs for v in state.volcanoes):
        state = replace(state, turn=TurnState(Phase.OVER))
        result = outcome(state)
        assert result is not None
        data = {"scores": list(result.scores), "ranks": list(result.ranks)}
        events.append(Event("game_over", data, pieces=tuple(_seat_piece(s) for s in range(state.players))))
    return state


def _finish_figure(state: State) -> State:
    turn = state.turn
    used = turn.dice_used
    if turn.die is not None:
        used = (True, used[1]) if turn.die == 0 else (used[0], True)
    done = state.in_start_round or len(turn.moved) >= 2
    nxt = TurnState(Phase.DONE if done else Phase.CHOOSE_SECOND, turn.dice, used, turn.moved)
    return replace(state, turn=nxt)


def _settle(state: State, events: list[Event]) -> State:
    """Skip a phase whose only decision would be to end it (no real choice)."""
    while True:
        phase = state.turn.phase
        if phase is Phase.MOVE:
            moves = _moves(state, state.current)
            if len(moves) != 1 or moves[0] != END:
                return state
            state = _to_treasure(state)
        elif phase is Phase.TREASURE:
            moves = _moves(state, state.current)
            if len(moves) != 1 or moves[0] != PASS:
                return state
            state = _finish_figure(state)
        else:
            return state


def _next_turn(state: State, events: list[Event]) -> State:
    turns = state.turns + 1
    current = (state.current + 1) % state.players
    phase = Phase.START if turns < state.players else Phase.ROLL
    events.append(
        Event("turn_ended", {"seat": state.current, "next": current}, pieces=(_seat_piece(current),))
    )
    return replace(state, turns=turns, current=current, turn=TurnState(phase))


def _spend_power(state: State, power: str) -> State:
    if power == POWER_SMALL:
        return _discard(state, Tile.SMALL_DRAGON)
    return replace(state, turn=replace(state.turn, die_left=0))


def _discard(state: State, tile: Tile) -> State:
    player = state.seats[state.current]
    tiles = list(player.tiles)
    tiles.remove(tile)
    player = replace(player, tiles=tuple(tiles))
    return replace(
        state, seats=_put(state.seats, state.current, player), discarded=_sorted((*state.discarded, tile))
    )


def _place_figure(state: State, seat: Seat, ci: int, node: NodeIndex, turn: TurnState | None = None) -> State:
    player = state.seats[seat]
    figures = list(player.figures)
    figures[ci] = node
    player = replace(player, figures=(figures[0], figures[1], figures[2]))
    return replace(state, seats=_put(state.seats, seat, player), turn=turn or state.turn)


def _reason(state: State, move: Move) -> str:
    """A plain reason why ``move`` is not legal now."""
    phase = state.turn.phase
    known = {
        "choose",
        "roll",
        "reroll",
        "move",
        "quick",
        "boat",
        "fly",
        "call",
        "end",
        "gems",
        "clear",
        "egg",
        "ring",
        "hand",
        "pass",
        "confirm",
    }
    if move.action not in known:
        return f"unknown action '{move.action}'"
    if move.action == "confirm":
        return "the turn is not finished yet"
    if move.action == "roll":
        return "you cannot roll now"
    if move.action == "reroll":
        return "a Reroll tile may only be played right after the roll, before a figure is chosen"
    if move.action == "choose":
        if phase in (Phase.START, Phase.CHOOSE_FIRST, Phase.CHOOSE_SECOND):
            return "that figure cannot be chosen now (each figure acts at most once per turn)"
        return "you cannot choose a figure now"
    if move.action in ("move", "quick", "boat", "fly", "call", "end"):
        if phase is not Phase.MOVE:
            return "this is not the movement phase"
        return f"'{move}' is not a legal movement for the active figure"
    if phase is not Phase.TREASURE:
        return "this is not the treasure phase"
    return f"'{move}' is not possible on this volcano now"


# --- outcome ----------------------------------------------------------------------------


def score(eggs: int, gems: tuple[int, int, int, int], rings: tuple[bool, bool, bool]) -> tuple[int, int]:
    """(score, sets) by spec §6: sets of egg + red + green + blue score 10, clear gems are jokers."""
    coloured = [gems[i] if rings[i] else 0 for i in range(3)]
    clear = gems[CLEAR]
    sets = 0
    for k in range(eggs, 0, -1):
        if sum(max(0, k - n) for n in coloured) <= clear:
            sets = k
            break
    return eggs + clear + sum(coloured) + 6 * sets, sets


def outcome(state: State) -> Outcome | None:
    if not state.is_over:
        return None
    results = [score(p.eggs, p.gems, p.rings) for p in state.seats]
    return Outcome.from_scores([float(s) for s, _ in results], {"sets": [k for _, k in results]})


# --- invariants -------------------------------------------------------------------------


def invariants(state: State) -> None:
    """Conservation of eggs, gems and tiles; figure placement rules (fast: runs every move).

    The volcano totals are computed once per volcano tuple (records are immutable, and the
    tuple changes only when a treasure is taken or a tile revealed).
    """
    board_eggs, (red, green, blue, clear), board_tiles = _volcano_totals(state.volcanoes)
    eggs = board_eggs + state.box_eggs
    tiles = board_tiles + len(state.discarded) + 1
    figures: list[NodeIndex | None] = []
    for p in state.seats:
        eggs += p.eggs
        r, g, b, c = p.gems
        red += r
        green += g
        blue += b
        clear += c
        tiles += len(p.tiles)
        figures.extend(p.figures)
        assert p.eggs >= 0 and r >= 0 and g >= 0 and b >= 0 and c >= 0, "a negative count of eggs or gems"
        assert len(p.rings) == 3, "one ring per figure at most"
    assert eggs == EGG_SUPPLY, "eggs not conserved"
    assert (red, green, blue, clear) == GEM_TOTALS, "gems not conserved"
    assert (board_eggs == 0) == (state.turn.phase is Phase.OVER), "the game ends exactly with the last egg"
    spaces = [n for n in figures if n is not None and n >= VOLCANO_COUNT]
    if spaces:
        assert max(spaces) < FIRST_ENTRANCE, "a figure stands on an entrance"
        assert len(set(spaces)) == len(spaces), "two figures on one space"
    for k in state.kings:
        if k is not None:
            assert k < VOLCANO_COUNT, "a king dragon off the volcanoes"
            tiles += 1
    assert tiles == ALL_TILES_COUNT + PLAYER_TILE_COUNT * state.players, "tiles not conserved"
    moved = state.turn.moved
    assert len(set(moved)) == len(moved) <= 2, "a figure acted twice in one turn"


_VolcanoTotals = tuple[int, tuple[int, int, int, int], int]
_last_volcanoes: list[tuple[tuple[VolcanoState, ...], _VolcanoTotals]] = [((), (0, (0, 0, 0, 0), 0))]


def _volcano_totals(volcanoes: tuple[VolcanoState, ...]) -> _VolcanoTotals:
    """(eggs, gems by colour, tiles) on the volcanoes; remembered for the last tuple seen."""
    last, totals = _last_volcanoes[0]
    if last is volcanoes:
        return totals
    eggs = [v.eggs for v in volcanoes]
    red, green, blue, clear = map(sum, zip(*[v.gems for v in volcanoes], strict=True))
    assert min(eggs) >= 0 and min(map(min, [v.gems for v in volcanoes])) >= 0, "a negative count on a volcano"
    totals = (sum(eggs), (red, green, blue, clear), sum([v.tile is not None for v in volcanoes]))
    _last_volcanoes[0] = (volcanoes, totals)
    return totals


# --- helpers ----------------------------------------------------------------------------


def _active(state: State) -> Colour:
    colour = state.turn.active
    assert colour is not None
    return colour


def _sorted(tiles: Iterable[Tile]) -> tuple[Tile, ...]:
    order = list(Tile)
    return tuple(sorted(tiles, key=order.index))


def _put(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*items[:index], value, *items[index + 1 :])


def _add(values: tuple[int, int, int, int], index: int, delta: int) -> tuple[int, int, int, int]:
    v = list(values)
    v[index] += delta
    return (v[0], v[1], v[2], v[3])


def _add_ring(rings: tuple[bool, bool, bool], index: int) -> tuple[bool, bool, bool]:
    r = list(rings)
    r[index] = True
    return (r[0], r[1], r[2])


def _set_king(
    kings: tuple[NodeIndex | None, NodeIndex | None, NodeIndex | None], index: int, node: NodeIndex
) -> tuple[NodeIndex | None, NodeIndex | None, NodeIndex | None]:
    k = list(kings)
    k[index] = node
    return (k[0], k[1], k[2])


def replace(obj: S, **changes: Any) -> S:
    """``dataclasses.replace`` for our frozen slotted records, without its generic overhead."""
    cls = obj.__class__
    make = _REPLACERS.get(cls)
    if make is None:
        make = _REPLACERS[cls] = _replacer(cls)
    result: S = make(obj, **changes)
    return result


def _replacer(cls: type) -> Callable[..., Any]:
    """A ``replace`` made for one record class: keyword arguments, slots set through their descriptors.

    Generated code (as ``dataclasses`` itself does) because this runs several times per move.
    """
    names: tuple[str, ...] = cls.__slots__  # type: ignore[attr-defined]
    namespace: dict[str, Any] = {"_NEW": object.__new__, "_KEEP": _KEEP, "cls": cls}
    lines = [f"def replace(obj, *, {', '.join(f'{n}=_KEEP' for n in names)}):", "    new = _NEW(cls)"]
    for i, name in enumerate(names):
        namespace[f"_set{i}"] = getattr(cls, name).__set__
        lines.append(f"    _set{i}(new, obj.{name} if {name} is _KEEP else {name})")
    lines.append("    return new")
    exec("\n".join(lines), namespace)
    made: Callable[..., Any] = namespace["replace"]
    return made


_KEEP = object()
_REPLACERS: dict[type, Callable[..., Any]] = {}


def _seat_piece(seat: Seat) -> str:
    return f"seat-{seat}"


def _tiles_piece(seat: Seat) -> str:
    """A player's tiles (a tile played leaves them)."""
    return f"tiles-{seat}"


def _screen_piece(seat: Seat) -> str:
    """What lies behind a player's screen (shown to all only where it is open)."""
    return f"screen-{seat}"


def _rings_piece(seat: Seat) -> str:
    return f"rings-{seat}"
