"""Draco / Mount Drago (Leo Colovini, 2011) as played on Yucata: spec ``rules/draco.md``."""

from __future__ import annotations

from app.engine.protocol import Game, GameInfo
from app.engine.registry import register
from app.games.draco import bot, notation, rules, text, views
from app.games.draco.board import DRAGONS

RULESET = "draco-1"


def _ui_text() -> dict[str, dict[str, str]]:
    merged: dict[str, dict[str, str]] = {}
    for locale, strings in text.UI_TEXT.items():
        names = {f"dragon_{d.value}": text.dragon_name(d.value, locale) for d in DRAGONS}
        abbreviations = {f"abbr_{d}": a for d, a in text.DRAGON_ABBREVIATIONS[locale].items()}
        kinds = {f"kind_{k}": v for k, v in text.KIND_NAMES[locale].items()}
        merged[locale] = {**strings, **names, **abbreviations, **kinds}
    return merged


DRACO = register(
    Game(
        info=GameInfo(
            slug="draco",
            title={"en": "Draco (Mount Drago)", "de": "Draco"},
            min_players=rules.MIN_PLAYERS,
            max_players=rules.MAX_PLAYERS,
            ruleset=RULESET,
            hidden_information=True,
            chance=True,
        ),
        setup=rules.setup,
        to_act=rules.to_act,
        legal_moves=rules.legal_moves,
        apply=rules.apply,
        view=views.view,
        outcome=rules.outcome,
        timeout_move=bot.choose,
        describe=text.describe,
        format_position=notation.format_position,
        parse_position=notation.parse_position,
        invariants=rules.invariants,
        ui_text=_ui_text(),
    )
)

__all__ = ["DRACO", "RULESET"]
