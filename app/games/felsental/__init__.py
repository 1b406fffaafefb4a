"""Duell im Felsental (Drako: Dragon & Dwarves): a two-player asymmetric duel over two legs."""

from __future__ import annotations

from app.engine.protocol import Game, GameInfo, Option
from app.engine.registry import register
from app.games.felsental.bot import timeout_move
from app.games.felsental.checks import invariants
from app.games.felsental.match import outcome, setup
from app.games.felsental.notation import format_position, parse_position
from app.games.felsental.rules import apply, legal_moves, to_act
from app.games.felsental.text import UI_TEXT, describe
from app.games.felsental.views import view

RULESET = "felsental-1"

FELSENTAL = register(
    Game(
        info=GameInfo(
            slug="felsental",
            title={"en": "Duell im Felsental (Drako)", "de": "Duell im Felsental"},
            min_players=2,
            max_players=2,
            ruleset=RULESET,
            hidden_information=True,
            chance=True,
            options=(
                Option(
                    "legs",
                    2,
                    (2, 1),
                    {
                        "en": "Legs (2: rated match, roles swapped)",
                        "de": "Etappen (2: Wertungspartie, Rollentausch)",
                    },
                    rated=False,
                ),
                Option(
                    "dwarf_setup",
                    "standard",
                    ("standard", "free"),
                    {
                        "en": "Dwarf setup (standard or free)",
                        "de": "Aufstellung der Zwerge (Standard oder frei)",
                    },
                ),
                Option(
                    "hand_exchange",
                    False,
                    (False, True),
                    {
                        "en": "Variant: exchange the starting hand once",
                        "de": "Variante: Startkarten einmal austauschen",
                    },
                ),
            ),
        ),
        setup=setup,
        to_act=to_act,
        legal_moves=legal_moves,
        apply=apply,
        view=view,
        outcome=outcome,
        timeout_move=timeout_move,
        describe=describe,
        format_position=format_position,
        parse_position=parse_position,
        invariants=invariants,
        ui_text=UI_TEXT,
    )
)

__all__ = ["FELSENTAL", "RULESET"]
