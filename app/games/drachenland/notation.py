"""Position strings: the full state (hidden parts included) as one line that round-trips.

``DL<rules> <players+variants> <first> <current> <turns> <volcanoes> <kings> <box> <discarded>
<seats> <turn>``, e.g. a volcano ``12110q`` = 1 egg, gems red 2 green 1 blue 1 clear 0,
a face-down (lower case) Quick Steps tile. Tile letters: ``TILE_CODES``.
"""

from __future__ import annotations

from app.games.drachenland.board import BOARD, COLOURS, NodeIndex, Tile
from app.games.drachenland.state import Phase, PlayerState, State, TurnState, VolcanoState

VERSIONS = {"DL1": 1, "DL2": 2}
"""The first word names the rules the match began under (``State.rules``)."""
TILE_CODES: dict[Tile, str] = {
    Tile.REROLL: "W",
    Tile.BOATMAN: "B",
    Tile.QUICK_STEPS: "Q",
    Tile.KING_RED: "X",
    Tile.KING_GREEN: "Y",
    Tile.KING_BLUE: "Z",
    Tile.SMALL_DRAGON: "S",
    Tile.MAGIC_HAND: "H",
    Tile.RING: "O",
}
CODE_TILES = {code: tile for tile, code in TILE_CODES.items()}
COLOUR_CODES = "rgb"
NONE = "."


def format_position(state: State) -> str:
    options = f"{state.players}{int(state.variant1)}{int(state.variant2)}"
    volcanoes = "/".join(_volcano(v) for v in state.volcanoes)
    kings = ",".join(_node(k) for k in state.kings)
    box = f"{TILE_CODES[state.box_tile]}{state.box_eggs}"
    seats = "|".join(_player(p) for p in state.seats)
    return " ".join(
        (
            f"DL{state.rules}",
            options,
            str(state.first),
            str(state.current),
            str(state.turns),
            volcanoes,
            kings,
            box,
            _tiles(state.discarded),
            seats,
            _turn(state.turn),
        )
    )


def parse_position(text: str) -> State:
    """The state written by ``format_position``; ``ValueError`` for anything else."""
    try:
        parts = text.split(" ")
        if len(parts) != 11 or parts[0] not in VERSIONS:
            raise ValueError("not a Drachenland position")
        _, options, first, current, turns, volcanoes, kings, box, discarded, seats, turn = parts
        king_nodes = [_parse_node(k) for k in kings.split(",")]
        if len(king_nodes) != 3 or len(options) != 3:
            raise ValueError("bad kings or options")
        players = int(options[0])
        state = State(
            players=players,
            variant1=options[1] == "1",
            variant2=options[2] == "1",
            first=int(first),
            current=int(current),
            turns=int(turns),
            volcanoes=tuple(_parse_volcano(v) for v in volcanoes.split("/")),
            kings=(king_nodes[0], king_nodes[1], king_nodes[2]),
            box_tile=CODE_TILES[box[0]],
            box_eggs=int(box[1:]),
            discarded=_parse_tiles(discarded),
            seats=tuple(_parse_player(p) for p in seats.split("|")),
            turn=_parse_turn(turn),
            rules=VERSIONS[parts[0]],
        )
    except (KeyError, IndexError) as exc:
        raise ValueError(f"malformed Drachenland position: {exc}") from None
    if len(state.seats) != players or len(state.volcanoes) != len(BOARD.volcanoes):
        raise ValueError("position does not match the board or the player count")
    return state


# --- pieces -----------------------------------------------------------------------------


def _node(node: NodeIndex | None) -> str:
    return NONE if node is None else BOARD.nodes[node].id


def _parse_node(text: str) -> NodeIndex | None:
    return None if text == NONE else BOARD.index[text]


def _tiles(tiles: tuple[Tile, ...]) -> str:
    return "".join(TILE_CODES[t] for t in tiles) or NONE


def _parse_tiles(text: str) -> tuple[Tile, ...]:
    return () if text == NONE else tuple(CODE_TILES[c] for c in text)


def _volcano(v: VolcanoState) -> str:
    code = NONE if v.tile is None else TILE_CODES[v.tile]
    tile = code.lower() if v.face_down else code
    return f"{v.eggs}{''.join(map(str, v.gems))}{tile}"


def _parse_volcano(text: str) -> VolcanoState:
    if len(text) != 6:
        raise ValueError(f"bad volcano {text!r}")
    gems = tuple(int(c) for c in text[1:5])
    code = text[5]
    tile = None if code == NONE else CODE_TILES[code.upper()]
    return VolcanoState(int(text[0]), (gems[0], gems[1], gems[2], gems[3]), tile, code.islower())


def _player(p: PlayerState) -> str:
    figures = ",".join(_node(n) for n in p.figures)
    rings = "".join("1" if r else "0" for r in p.rings)
    gems = ".".join(map(str, p.gems))
    return f"{figures};{rings};{p.eggs};{gems};{_tiles(p.tiles)}"


def _parse_player(text: str) -> PlayerState:
    figures, rings, eggs, gems, tiles = text.split(";")
    f = [_parse_node(n) for n in figures.split(",")]
    g = [int(n) for n in gems.split(".")]
    if len(f) != 3 or len(g) != 4 or len(rings) != 3:
        raise ValueError(f"bad player {text!r}")
    return PlayerState(
        (f[0], f[1], f[2]),
        (rings[0] == "1", rings[1] == "1", rings[2] == "1"),
        int(eggs),
        (g[0], g[1], g[2], g[3]),
        _parse_tiles(tiles),
    )


def _turn(t: TurnState) -> str:
    fields = (
        t.phase.value,
        NONE if t.dice is None else f"{t.dice[0]}{t.dice[1]}",
        "".join("1" if u else "0" for u in t.dice_used),
        "".join(COLOUR_CODES[COLOURS.index(c)] for c in t.moved) or NONE,
        NONE if t.active is None else COLOUR_CODES[COLOURS.index(t.active)],
        NONE if t.die is None else "ab"[t.die],
        str(t.die_left),
        "1" if t.die_walked else "0",
        str(t.bonus_left),
        ",".join(BOARD.nodes[n].id for n in t.visited) or NONE,
        str(t.takes_left),
        "1" if t.just_walked else "0",
    )
    return ";".join(fields)


def _parse_turn(text: str) -> TurnState:
    phase, dice, used, moved, active, die, die_left, walked, bonus, visited, takes, just = text.split(";")
    colour = {code: COLOURS[i] for i, code in enumerate(COLOUR_CODES)}
    if len(used) != 2 or (dice != NONE and len(dice) != 2):
        raise ValueError(f"bad turn {text!r}")
    return TurnState(
        phase=Phase(phase),
        dice=None if dice == NONE else (int(dice[0]), int(dice[1])),
        dice_used=(used[0] == "1", used[1] == "1"),
        moved=() if moved == NONE else tuple(colour[c] for c in moved),
        active=None if active == NONE else colour[active],
        die=None if die == NONE else "ab".index(die),
        die_left=int(die_left),
        die_walked=walked == "1",
        bonus_left=int(bonus),
        visited=() if visited == NONE else tuple(BOARD.index[n] for n in visited.split(",")),
        takes_left=int(takes),
        just_walked=just == "1",
    )
