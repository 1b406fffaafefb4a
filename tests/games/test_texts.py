"""The games' own words: singular and plural in both languages, German grammar (issue 13.15)."""

from __future__ import annotations

import re

import pytest

import app.games  # noqa: F401 - registers the games
from app.engine.protocol import Event
from app.engine.registry import get_game
from app.engine.rng import Rng
from app.engine.selfplay import derive_seed

GAMES = {"draco": 3, "drachenland": 3, "felsental": 2}
WRONG = re.compile(
    r"\((?:s|n|en|e)\)"  # "card(s)", "Karte(n)"
    r"|\b1 (?:Felder|Karten|Wunden|Punkte|Punkten|Eier|Bewegungspunkte|spaces|cards|wounds|points|eggs)\b"
    r"|\b(?:[02-9]|\d\d+) (?:Feld|Karte|Wunde|Punkt|Ei|space|card|wound|point|egg)\b"
    r"|an der Drache|an die Drache\b"
)


@pytest.mark.parametrize("slug", sorted(GAMES))
def test_no_log_line_gets_number_or_case_wrong(slug: str) -> None:
    """Random games: every line in both languages, none with "(s)", "1 Felder", "2 card" or the like."""
    game = get_game(slug)
    for number in range(2):
        rng = Rng(derive_seed(f"{slug}:texts", number))
        chooser = Rng(derive_seed(f"{slug}:texts-chooser", number))
        state = game.setup(GAMES[slug], game.info.default_options(), rng)
        for _ in range(600):
            if game.outcome(state) is not None:
                break
            seat = min(game.to_act(state))
            state, events = game.apply(state, seat, chooser.choice(game.legal_moves(state, seat)), rng)
            for event in events:
                for locale in ("en", "de"):
                    line = game.describe(event, locale)
                    assert not WRONG.search(line), (locale, line)


@pytest.mark.parametrize(
    ("slug", "event", "en", "de"),
    [
        (
            "draco",
            Event(
                "dragon_moved",
                {
                    "seat": 0,
                    "dragon": "red",
                    "value": 5,
                    "from": 28,
                    "to": 30,
                    "lost": 1,
                    "space_value": -2,
                    "space_kind": "red",
                },
            ),
            "; 1 movement point is lost.",
            "; 1 Bewegungspunkt verfällt.",
        ),
        (
            "draco",
            Event("rider_changed", {"seat": 1, "dragon": "red", "previous": "blue", "chosen": False}),
            "Player 2 now rides the Red dragon and leaves Blue.",
            "Spieler 2 reitet jetzt den Drachen Rot und verlässt den Drachen Blau.",
        ),
        (
            "drachenland",
            Event("walked", {"seat": 0, "colour": "red", "from": "E1", "to": "P01-1", "steps": 1}),
            "Player 1: the red figure walks 1 space from the south entrance "
            "onto the path to the Mist volcano",
            "Spieler 1: die rote Figur zieht 1 Feld vom südlichen Eingang auf den Weg zum Nebelvulkan",
        ),
        (
            "felsental",
            Event("drew", {"role": "dwarves", "count": 1, "hand": 1}),
            "The dwarves drew 1 card (1 card in hand)",
            "Die Zwerge ziehen 1 Karte und haben jetzt 1 Karte auf der Hand",
        ),
        (
            "felsental",
            Event("dwarf_wounded", {"dwarf": "warrior", "wounds": 2, "total": 3}),
            "The warrior took 2 wounds, 3 in all",
            "Der Krieger erleidet 2 Wunden, insgesamt 3",
        ),
        (
            "felsental",
            Event(
                "leg_won",
                {
                    "leg": 2,
                    "winner": "dragon",
                    "seat": 0,
                    "reason": "dwarves_dead",
                    "dragon_wounds": 3,
                    "dwarf_wounds": 15,
                },
            ),
            "Leg 2 goes to the dragon: all three dwarves are dead",
            "Etappe 2 geht an den Drachen: alle drei Zwerge sind tot",
        ),
    ],
)
def test_lines_read_right(slug: str, event: Event, en: str, de: str) -> None:
    game = get_game(slug)
    assert en in game.describe(event, "en")
    assert de in game.describe(event, "de")


@pytest.mark.parametrize(
    ("slug", "key", "en", "de"),
    [
        ("draco", "hand_size_one", "1 card in hand", "1 Handkarte"),
        ("draco", "points_one", "1 point", "1 Punkt"),
        ("draco", "hand_size", "{count} cards in hand", "{count} Handkarten"),
        ("drachenland", "eggs_one", "egg", "Ei"),
        ("drachenland", "gem_green_one", "emerald", "Smaragd"),
        ("felsental", "hand_count", "{count} cards in hand", "{count} Handkarten"),
    ],
)
def test_board_words_have_a_singular(slug: str, key: str, en: str, de: str) -> None:
    texts = get_game(slug).ui_text
    assert texts["en"][key] == en and texts["de"][key] == de


def test_german_reads_as_german() -> None:
    """Issue 20.12: German word order and verbs, the German title, the seed's own game terms."""
    draco, land, duel = get_game("draco"), get_game("drachenland"), get_game("felsental")
    assert draco.info.title == {"en": "Draco (Mount Drago)", "de": "Draco"}
    # A verb in each half: "Wähle sie hier aus oder klicke ihren Ring … an".
    assert draco.ui_text["de"]["play_hint"] == (
        "Spiele eine Karte: Wähle sie hier aus oder klicke ihren Ring auf dem Spielplan an."
    )
    moved = Event(
        "dragon_moved",
        {"seat": 0, "dragon": "red", "value": 4, "from": 1, "to": 5, "lost": 0, "space_value": 4},
    )
    assert "(Wert 4, einfaches Feld)" in draco.describe(
        Event(moved.kind, {**moved.data, "space_kind": "plain"}), "de"
    )
    # "Neu Würfeln" is the tile's name in the German rules: quoted where a sentence uses it.
    assert land.ui_text["de"]["reroll"] == "Plättchen „Neu Würfeln“ ausspielen"
    played = land.describe(Event("tile_played", {"seat": 1, "tile": "REROLL"}), "de")
    assert played == "Spieler 2 spielt das Plättchen „Neu Würfeln“ aus"
    # German word order: the verb at the end, the dwarf in the accusative.
    assert duel.ui_text["de"]["block_warrior"] == "Angriff auf den Krieger abwehren"
    assert duel.ui_text["de"]["block_crossbowman"] == "Angriff auf den Armbrustschützen abwehren"
