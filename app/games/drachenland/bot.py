"""A simple greedy bot for timeouts: walk toward rich volcanoes, take eggs first."""

from __future__ import annotations

from app.engine.protocol import CONFIRM, Move, Seat
from app.games.drachenland.board import BOARD, COLOURS, VOLCANO_COUNT, Colour, NodeIndex
from app.games.drachenland.rules import CLEAR, legal_moves, walk_targets
from app.games.drachenland.state import Phase, State


def _distances() -> tuple[tuple[int, ...], ...]:
    """Walking distance from every node to every volcano (figures ignored)."""
    table = []
    for start in range(len(BOARD.nodes)):
        dist = {start: 0}
        frontier = [start]
        while frontier:
            nxt = []
            for node in frontier:
                for n in BOARD.neighbours[node]:
                    if n not in dist:
                        dist[n] = dist[node] + 1
                        nxt.append(n)
            frontier = nxt
        table.append(tuple(dist.get(v, 99) for v in range(VOLCANO_COUNT)))
    return tuple(table)


DISTANCE = _distances()


def volcano_value(state: State, volcano: NodeIndex, colour: Colour) -> float:
    """How attractive a volcano is for a figure of ``colour`` of the current player."""
    v = state.volcanoes[volcano]
    ci = COLOURS.index(colour)
    ringed = state.seats[state.current].rings[ci]
    value = 3.0 * v.eggs + v.gems[ci] * (1.0 if ringed else 0.4) + 0.8 * (v.gems[CLEAR] > 0)
    if v.face_down:
        value += 1.0
    elif v.tile is not None and v.tile.value == "RING" and not ringed:
        value += 2.5
    return value


def timeout_move(state: State, seat: Seat) -> Move:
    """A sensible legal move for ``seat`` (raises ``IndexError`` only if none is legal)."""
    moves = legal_moves(state, seat)
    phase = state.turn.phase
    if phase in (Phase.START, Phase.CHOOSE_FIRST, Phase.CHOOSE_SECOND):
        choices = [m for m in moves if m.action == "choose"]
        return max(choices, key=lambda m: _choice_value(state, m)) if choices else moves[0]
    if phase is Phase.MOVE:
        return _best_movement(state, moves)
    if phase is Phase.TREASURE:
        for action in ("egg", "ring", "gems", "clear", "hand"):
            if Move(action) in moves:
                return Move(action)
        return Move("pass")
    return moves[0] if moves else CONFIRM


def _choice_value(state: State, move: Move) -> float:
    colour = Colour(move.args[0])
    ci = COLOURS.index(colour)
    position = state.seats[state.current].figures[ci]
    turn = state.turn
    if turn.dice is None:
        steps = 4
    elif len(move.args) > 1:
        steps = turn.dice["ab".index(move.args[1])]
    else:
        steps = turn.dice[turn.dice_used.index(False)]
    starts = list(BOARD.entrances) if position is None else [position]
    best = 0.0
    for start in starts:
        for target in walk_targets(state, start, steps):
            if target < VOLCANO_COUNT:
                best = max(best, volcano_value(state, target, colour))
    if position is not None and position < VOLCANO_COUNT:
        best = max(best, volcano_value(state, position, colour) - 0.5)
    return best


def _best_movement(state: State, moves: list[Move]) -> Move:
    colour = state.turn.active
    assert colour is not None
    best, best_score = Move("end"), -1.0
    position = state.seats[state.current].figures[COLOURS.index(colour)]
    if position is not None and position < VOLCANO_COUNT:
        best_score = volcano_value(state, position, colour)
    for move in moves:
        if move.action != "move":
            continue
        target = BOARD.index[move.args[-1]]
        if target < VOLCANO_COUNT:
            value = volcano_value(state, target, colour) + 0.1
        else:
            near = min(
                range(VOLCANO_COUNT),
                key=lambda v: DISTANCE[target][v] - volcano_value(state, v, colour) / 2,
            )
            value = volcano_value(state, near, colour) / (1 + DISTANCE[target][near]) - 0.5
        if value > best_score:
            best, best_score = move, value
    if best not in moves:
        return moves[0]
    return best
