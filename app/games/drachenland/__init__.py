"""Drachenland (Reiner Knizia, Ravensburger 2002): gather dragon eggs and gems on volcanoes."""

from __future__ import annotations

from dataclasses import replace

from app.engine.protocol import Game, GameInfo, Option
from app.engine.registry import register, register_earlier
from app.games.drachenland import bot, notation, rules, text, views

RULESET = "drachenland-2"
"""2: the start round walks exactly N spaces; flights and the Boatman may reach volcanoes
entered earlier in the movement phase (seed 002). Matches begun under ``drachenland-1`` keep
its rules (``State.rules`` comes with their positions, ``setup_rules_1`` with their replays)."""

INFO = GameInfo(
    slug="drachenland",
    title={"en": "Dragonland", "de": "Drachenland"},
    min_players=2,
    max_players=4,
    ruleset=RULESET,
    hidden_information=True,
    chance=True,
    options=(
        Option(
            "variant1",
            False,
            (False, True),
            {
                "en": "Variant 1: any number of gems of one colour per volcano",
                "de": "Variante 1: beliebig viele gleichfarbige Edelsteine je Vulkan",
            },
        ),
        Option(
            "variant2",
            False,
            (False, True),
            {
                "en": "Variant 2: no screens, all treasures open",
                "de": "Variante 2: ohne Sichtschirme, alle Schätze offen",
            },
        ),
    ),
)

DRACHENLAND = register(
    Game(
        info=INFO,
        setup=rules.setup,
        to_act=rules.to_act,
        legal_moves=rules.legal_moves,
        apply=rules.apply,
        view=views.view,
        outcome=rules.outcome,
        timeout_move=bot.timeout_move,
        describe=text.describe,
        format_position=notation.format_position,
        parse_position=notation.parse_position,
        invariants=rules.invariants,
        ui_text=text.UI_TEXT,
    )
)
register_earlier(replace(DRACHENLAND, info=replace(INFO, ruleset="drachenland-1"), setup=rules.setup_rules_1))
