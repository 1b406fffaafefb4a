"""Every log line names its pieces, and the board shows each of them (issue 13, point 10).

Random games of each game; after every decision the board is rendered for each seat allowed to
see the decision's events, and each piece an event names must be a ``data-piece`` there (the
board carries space-separated names, as board.js matches them with ``~=``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jinja2
import pytest

import app.games  # noqa: F401 - registers the games
from app.engine.protocol import Event, Game
from app.engine.registry import get_game
from app.engine.rng import Rng
from app.engine.selfplay import derive_seed
from app.web.fragments import KeptFragments

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, extensions=[KeptFragments]
)
DATA_PIECE = re.compile(r'data-piece="([^"]*)"')
GAMES = {"draco": 3, "drachenland": 3, "felsental": 2}
NOTHING_TO_NAME = {"match_over"}
"""Event kinds whose line names no piece (the final score of a Felsental match)."""
DECISIONS = 400


def render(game: Game, state: Any, seat: int | None, players: int) -> str:
    texts = game.ui_text
    legal = [str(m) for m in game.legal_moves(state, seat)] if seat is not None else []
    return ENV.get_template(f"games/{game.slug}/board.html").render(
        view=game.view(state, seat),
        seat=seat,
        legal=legal,
        players=[{"seat": s, "name": f"N{s}"} for s in range(players)],
        replay=False,
        t=lambda key: texts.get("en", {}).get(key, key),
        _=lambda text: text,
        locale="en",
    )


def pieces_on(html: str) -> set[str]:
    return {name for names in DATA_PIECE.findall(html) for name in names.split()}


@pytest.mark.parametrize("slug", sorted(GAMES))
def test_every_piece_a_log_line_names_is_on_the_board(slug: str) -> None:
    game = get_game(slug)
    players = GAMES[slug]
    kinds: set[str] = set()
    for number in range(2):
        rng = Rng(derive_seed(f"{slug}:log-pieces", number))
        chooser = Rng(derive_seed(f"{slug}:log-pieces-chooser", number))
        state = game.setup(players, game.info.default_options(), rng)
        for _ in range(DECISIONS):
            if game.outcome(state) is not None:
                break
            seat = min(game.to_act(state))
            state, events = game.apply(state, seat, chooser.choice(game.legal_moves(state, seat)), rng)
            boards: dict[int | None, set[str]] = {}
            for event in events:
                kinds.add(event.kind)
                check_named(event)
            # A Felsental leg that ended sets up a new board: the lines before name the old one.
            starts = [i for i, e in enumerate(events) if e.kind == "leg_started"]
            for event in events[starts[-1] if starts else 0 :]:
                viewer = event.audience
                if viewer not in boards:
                    boards[viewer] = pieces_on(render(game, state, viewer, players))
                missing = set(event.pieces) - boards[viewer]
                assert not missing, f"{event.kind} names {missing}, not on the board ({event.data})"
    assert len(kinds) >= 8, kinds


def check_named(event: Event) -> None:
    if event.kind not in NOTHING_TO_NAME:
        assert event.pieces, f"the {event.kind} line names nothing on the board"
