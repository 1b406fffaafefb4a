"""Small builders for Drachenland test positions."""

from __future__ import annotations

from dataclasses import replace

from app.engine.protocol import Move
from app.engine.rng import Rng
from app.engine.selfplay import derive_seed
from app.games.drachenland import DRACHENLAND
from app.games.drachenland.board import BOARD, COLOURS, GEMS, Colour, Tile
from app.games.drachenland.rules import _sorted
from app.games.drachenland.state import Phase, State, TurnState

GAME = DRACHENLAND
SEED = derive_seed("drachenland-test", 0)
ALL_GEMS_OFF = (0, 0, 0, 0)


def rng() -> Rng:
    return Rng(SEED, 1000)


def fresh(players: int = 2, **options: bool) -> State:
    """A new game, first seat 0, no start round unless asked for."""
    state = GAME.setup(players, options, Rng(SEED))
    return replace(state, first=0, current=0)


def node(node_id: str) -> int:
    return BOARD.index[node_id]


def place(state: State, seat: int, colour: str, node_id: str | None) -> State:
    player = state.seats[seat]
    figures = list(player.figures)
    figures[COLOURS.index(Colour(colour))] = None if node_id is None else node(node_id)
    player = replace(player, figures=(figures[0], figures[1], figures[2]))
    return replace(state, seats=(*state.seats[:seat], player, *state.seats[seat + 1 :]))


def volcano(
    state: State,
    vid: str,
    *,
    eggs: int | None = None,
    gems: tuple[int, int, int, int] | None = None,
    tile: Tile | str | None = "keep",
    face_down: bool | None = None,
) -> State:
    """Change one volcano (test positions need not conserve eggs and gems)."""
    i = node(vid)
    v = state.volcanoes[i]
    changes: dict[str, object] = {}
    if eggs is not None:
        changes["eggs"] = eggs
    if gems is not None:
        changes["gems"] = gems
    if tile != "keep":
        changes["tile"] = tile
    if face_down is not None:
        changes["face_down"] = face_down
    v = replace(v, **changes)  # type: ignore[arg-type]
    return replace(state, volcanoes=(*state.volcanoes[:i], v, *state.volcanoes[i + 1 :]))


def clear_tiles(state: State) -> State:
    """Every volcano open with no tile of its own."""
    vols = tuple(replace(v, face_down=False, tile=None) for v in state.volcanoes)
    return replace(state, volcanoes=vols)


def tiles(state: State, seat: int, *kinds: Tile) -> State:
    """Give ``seat`` exactly these tiles."""
    return _seat(state, seat, replace(state.seats[seat], tiles=_sorted(kinds)))


def ring(state: State, seat: int, colour: str) -> State:
    player = state.seats[seat]
    rings = list(player.rings)
    rings[COLOURS.index(Colour(colour))] = True
    return _seat(state, seat, replace(player, rings=(rings[0], rings[1], rings[2])))


def king(state: State, colour: str, vid: str | None) -> State:
    kings = list(state.kings)
    kings[COLOURS.index(Colour(colour))] = None if vid is None else node(vid)
    return replace(state, kings=(kings[0], kings[1], kings[2]))


def rolled(state: State, a: int, b: int, seat: int = 0) -> State:
    """After the start round, ``seat`` has rolled ``a`` (die A) and ``b`` (die B)."""
    return replace(state, turns=state.players, current=seat, turn=TurnState(Phase.CHOOSE_FIRST, dice=(a, b)))


def play(state: State, *moves: str) -> State:
    for text in moves:
        state, _ = GAME.apply(state, state.current, Move.parse(text), rng())
    return state


def events(state: State, move: str) -> list[str]:
    _, evs = GAME.apply(state, state.current, Move.parse(move), rng())
    return [e.kind for e in evs]


def legal(state: State) -> set[str]:
    return {str(m) for m in GAME.legal_moves(state, state.current)}


def figure_at(state: State, seat: int, colour: str) -> str | None:
    n = state.seats[seat].figures[COLOURS.index(Colour(colour))]
    return None if n is None else BOARD.nodes[n].id


def _seat(state: State, seat: int, player: object) -> State:
    return replace(state, seats=(*state.seats[:seat], player, *state.seats[seat + 1 :]))  # type: ignore[arg-type]


GEM_INDEX = {g.value: i for i, g in enumerate(GEMS)}
