"""Log lines and the board's UI strings in English and German (terms of the German rules)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.engine.protocol import Event, Locale
from app.games.drachenland.places import (
    ENTRANCES,
    PATH_ENDS,
    VOLCANOES,
    WATER,
    from_to,
    place,
    short_label,
    title,
)
from app.games.drachenland.tile_help import TILE_HELP

TILE_NAMES: dict[Locale, dict[str, str]] = {
    "en": {
        "REROLL": "Reroll",
        "BOATMAN": "Boatman",
        "QUICK_STEPS": "Quick Steps",
        "KING_RED": "Red King Dragon",
        "KING_GREEN": "Green King Dragon",
        "KING_BLUE": "Blue King Dragon",
        "SMALL_DRAGON": "Small Dragon",
        "MAGIC_HAND": "Magic Hand",
        "RING": "Ring",
    },
    "de": {
        "REROLL": "Neu Würfeln",
        "BOATMAN": "Bootsmann",
        "QUICK_STEPS": "Schnelle Schritte",
        "KING_RED": "Roter Königsdrache",
        "KING_GREEN": "Grüner Königsdrache",
        "KING_BLUE": "Blauer Königsdrache",
        "SMALL_DRAGON": "Kleiner Drache",
        "MAGIC_HAND": "Magische Hand",
        "RING": "Ring",
    },
}

COLOUR_ADJ: dict[Locale, dict[str, str]] = {
    "en": {"red": "red", "green": "green", "blue": "blue", "clear": "clear"},
    "de": {"red": "rote", "green": "grüne", "blue": "blaue", "clear": "transparente"},
}
GEM_NAMES: dict[Locale, dict[str, tuple[str, str]]] = {
    "en": {
        "red": ("ruby", "rubies"),
        "green": ("emerald", "emeralds"),
        "blue": ("sapphire", "sapphires"),
        "clear": ("clear gem", "clear gems"),
    },
    "de": {
        "red": ("Rubin", "Rubine"),
        "green": ("Smaragd", "Smaragde"),
        "blue": ("Saphir", "Saphire"),
        "clear": ("transparenten Edelstein", "transparente Edelsteine"),
    },
}

UI_TEXT: dict[Locale, dict[str, str]] = {
    "en": {
        "board": "Drachenland board",
        "dice": "Dice",
        "die_a": "Die A",
        "die_b": "Die B",
        "used": "used",
        "roll": "Roll the dice",
        "reroll": "Play Reroll",
        "choose": "Choose figure",
        "choose_die": "with die",
        "enter": "Enter figure",
        "start_round": "walk one figure exactly {n} spaces from an entrance",
        "start_round_one": "walk one figure 1 space from an entrance",
        "start_round_up_to": "walk one figure up to {n} spaces from an entrance",
        "budget": "Steps left",
        "quick": "Play Quick Steps (+3)",
        "boat": "Boatman across",
        "fly": "Fly with the king dragon",
        "call": "Call the king dragon",
        "power_die": "using the 4",
        "power_small": "using a Small Dragon",
        "end": "End movement",
        "gems": "Take all gems of the figure's colour",
        "clear": "Take a clear gem",
        "egg": "Take a dragon egg",
        "ring": "Put on a magic ring",
        "hand": "Play Magic Hand (one more treasure)",
        "pass": "Take nothing more",
        "eggs_left": "Eggs on the board",
        "screen": "Behind the screen",
        "hidden": "hidden",
        "tiles": "Tiles",
        "rings": "Rings",
        "off_board": "Off the board",
        "active": "Active figure",
        "phase_start": "Start round",
        "phase_roll": "Roll the dice",
        "phase_choose1": "Choose the first figure and its die",
        "phase_move": "Movement",
        "phase_treasure": "Treasure",
        "phase_choose2": "Choose the second figure (it may then stay where it is)",
        "phase_done": "Confirm to end the turn",
        "phase_over": "Game over",
        "score": "Score",
        "sets": "sets",
        "eggs": "eggs",
        "eggs_one": "egg",
        "face_down": "face-down tile",
        "entrance": "Entrance",
        "volcano": "Volcano",
        "space": "Space",
        "gem_red": "rubies",
        "gem_red_one": "ruby",
        "gem_green": "emeralds",
        "gem_green_one": "emerald",
        "gem_blue": "sapphires",
        "gem_blue_one": "sapphire",
        "gem_clear": "clear gems",
        "gem_clear_one": "clear gem",
        "turn_of": "Turn",
        "player": "Player",
        "start_player": "start player",
        "water": "Water",
        "move_to": "Move to",
        "figure_red": "red figure",
        "figure_green": "green figure",
        "figure_blue": "blue figure",
        "ring_worn": "wears a magic ring",
        "actions": "Actions",
        "players": "Players",
        "fly_hint": "pick a volcano marked S",
    },
    "de": {
        "board": "Spielplan Drachenland",
        "dice": "Würfel",
        "die_a": "Würfel A",
        "die_b": "Würfel B",
        "used": "benutzt",
        "roll": "Würfeln",
        "reroll": "Plättchen „Neu Würfeln“ ausspielen",
        "choose": "Figur wählen",
        "choose_die": "mit Würfel",
        "enter": "Figur einsetzen",
        "start_round": "eine Figur von einem Eingang genau {n} Felder weit ziehen",
        "start_round_one": "eine Figur von einem Eingang 1 Feld weit ziehen",
        "start_round_up_to": "eine Figur von einem Eingang bis zu {n} Felder weit ziehen",
        "budget": "Übrige Schritte",
        "quick": "Schnelle Schritte ausspielen (+3)",
        "boat": "Mit dem Bootsmann über",
        "fly": "Mit dem Königsdrachen fliegen",
        "call": "Königsdrachen rufen",
        "power_die": "mit der 4",
        "power_small": "mit einem Kleinen Drachen",
        "end": "Bewegung beenden",
        "gems": "Alle Edelsteine in der Farbe der Figur nehmen",
        "clear": "Einen transparenten Edelstein nehmen",
        "egg": "Ein Drachenei nehmen",
        "ring": "Einen Zauberring anlegen",
        "hand": "Magische Hand ausspielen (ein weiterer Schatz)",
        "pass": "Nichts mehr nehmen",
        "eggs_left": "Dracheneier auf dem Plan",
        "screen": "Hinter dem Sichtschirm",
        "hidden": "verdeckt",
        "tiles": "Plättchen",
        "rings": "Ringe",
        "off_board": "Außerhalb des Plans",
        "active": "Aktive Figur",
        "phase_start": "Startrunde",
        "phase_roll": "Würfeln",
        "phase_choose1": "Erste Figur und ihren Würfel wählen",
        "phase_move": "Bewegung",
        "phase_treasure": "Schätze aufnehmen",
        "phase_choose2": "Zweite Figur wählen (sie darf danach stehen bleiben)",
        "phase_done": "„Bestätigen“ beendet den Zug",
        "phase_over": "Spielende",
        "score": "Punkte",
        "sets": "Sätze",
        "eggs": "Eier",
        "eggs_one": "Ei",
        "face_down": "verdecktes Plättchen",
        "entrance": "Eingang",
        "volcano": "Vulkan",
        "space": "Feld",
        "gem_red": "Rubine",
        "gem_red_one": "Rubin",
        "gem_green": "Smaragde",
        "gem_green_one": "Smaragd",
        "gem_blue": "Saphire",
        "gem_blue_one": "Saphir",
        "gem_clear": "transparente Edelsteine",
        "gem_clear_one": "transparenter Edelstein",
        "turn_of": "Am Zug",
        "player": "Spieler",
        "start_player": "Startspieler",
        "water": "Wasser",
        "move_to": "Hierhin ziehen",
        "figure_red": "rote Figur",
        "figure_green": "grüne Figur",
        "figure_blue": "blaue Figur",
        "ring_worn": "trägt einen Zauberring",
        "actions": "Aktionen",
        "players": "Spieler",
        "fly_hint": "einen mit S markierten Vulkan wählen",
    },
}
UI_TEXT["en"] |= {f"tile_{k}": v for k, v in TILE_NAMES["en"].items()}
UI_TEXT["de"] |= {f"tile_{k}": v for k, v in TILE_NAMES["de"].items()}
# What a tile does, beside it on hover and long-press (issue 20.15).
UI_TEXT["en"] |= {f"help_{k}": v for k, v in TILE_HELP["en"].items()}
UI_TEXT["de"] |= {f"help_{k}": v for k, v in TILE_HELP["de"].items()}
for _loc in ("en", "de"):
    # The board's places by name ("place_V07": "Fire volcano"); "short_" is printed on the board.
    UI_TEXT[_loc] |= {f"place_{n}": title(n, _loc) for n in (*VOLCANOES, *ENTRANCES, *PATH_ENDS, *WATER)}
    UI_TEXT[_loc] |= {f"short_{n}": short_label(n, _loc) for n in (*VOLCANOES, *ENTRANCES)}


def describe(event: Event, locale: Locale) -> str:
    """The log line for one event."""
    loc = "de" if locale == "de" else "en"
    d: Mapping[str, Any] = event.data
    who = f"Spieler {d['seat'] + 1}" if loc == "de" and "seat" in d else f"Player {d.get('seat', 0) + 1}"
    fig = _figure(d.get("colour", ""), loc)
    kind = event.kind
    if kind == "rolled":
        a, b = d["dice"]
        if loc == "de":
            return f"{who} würfelt {'neu: ' if d['reroll'] else ''}{a} und {b}"
        return f"{who} {'rerolls' if d['reroll'] else 'rolls'} {a} and {b}"
    if kind == "chose":
        if "steps" in d:
            if loc == "de":
                return f"{who} setzt die {fig} ein ({_spaces(d['steps'], loc)})"
            return f"{who} enters the {fig} ({_spaces(d['steps'], loc)})"
        if loc == "de":
            return f"{who} zieht die {fig} mit der {d['die']}"
        return f"{who} moves the {fig} with the {d['die']}"
    if kind == "walked":
        if loc == "de":
            return f"{who}: die {fig} zieht {_spaces(d['steps'], loc)} {_from_to(d, loc)}"
        return f"{who}: the {fig} walks {_spaces(d['steps'], loc)} {_from_to(d, loc)}"
    if kind == "ferried":
        if loc == "de":
            return f"{who}: Der Bootsmann bringt die {fig} {_from_to(d, loc)}"
        return f"{who}: the Boatman ferries the {fig} {_from_to(d, loc)}"
    if kind == "flew":
        if loc == "de":
            return f"{who}: die {fig} fliegt mit dem Königsdrachen {_from_to(d, loc)}"
        return f"{who}: the {fig} flies with the king dragon {_from_to(d, loc)}"
    if kind == "called":
        if loc == "de":
            return f"{who} ruft den {_king(d['colour'], loc)} {_from_to(d, loc)}"
        return f"{who} calls the {_king(d['colour'], loc)} {_from_to(d, loc)}"
    if kind == "revealed":
        name = TILE_NAMES[loc][d["tile"]]
        if loc == "de":
            return f"{_cap(place(d['volcano'], loc, 'on'))} wird aufgedeckt: {name}"
        return f"{_cap(place(d['volcano'], loc, 'on'))}, {name} is revealed"
    if kind == "tile_played":
        name = TILE_NAMES[loc][d["tile"]]
        return f"{who} spielt das Plättchen „{name}“ aus" if loc == "de" else f"{who} plays {name}"
    if kind == "took_gems":
        single, plural = GEM_NAMES[loc][d["gem"]]
        n = d["count"]
        if loc == "de":
            return (
                f"{who}: die {fig} nimmt {place(d['volcano'], loc, 'on')} {n} {single if n == 1 else plural}"
            )
        return f"{who}: the {fig} takes {n} {single if n == 1 else plural} {place(d['volcano'], loc, 'on')}"
    if kind == "took_egg":
        extra = ""
        if d.get("tile"):
            name = TILE_NAMES[loc][d["tile"]]
            extra = f" und das Plättchen „{name}“" if loc == "de" else f" and the {name} tile"
        if loc == "de":
            return f"{who}: die {fig} nimmt {place(d['volcano'], loc, 'on')} ein Drachenei{extra}"
        return f"{who}: the {fig} takes a dragon egg{extra} {place(d['volcano'], loc, 'on')}"
    if kind == "put_ring":
        if loc == "de":
            return f"{who}: die {fig} erhält {place(d['volcano'], loc, 'on')} einen Zauberring"
        return f"{who}: the {fig} puts on a magic ring {place(d['volcano'], loc, 'on')}"
    if kind == "turn_ended":
        nxt = d["next"] + 1
        return f"Spieler {nxt} ist am Zug" if loc == "de" else f"Player {nxt} to play"
    if kind == "game_over":
        player = "Spieler" if loc == "de" else "Player"
        scores = ", ".join(f"{player} {s + 1}: {_points(int(p), loc)}" for s, p in enumerate(d["scores"]))
        return f"Spielende – {scores}" if loc == "de" else f"Game over – {scores}"
    return kind


def _from_to(d: Mapping[str, Any], loc: Locale) -> str:
    """ "from the south entrance onto the path …": the places' names, never the board's ids."""
    return from_to(d["from"], d["to"], loc)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _spaces(n: int, loc: Locale) -> str:
    if loc == "de":
        return "1 Feld" if n == 1 else f"{n} Felder"
    return "1 space" if n == 1 else f"{n} spaces"


def _points(n: int, loc: Locale) -> str:
    if loc == "de":
        return "1 Punkt" if n == 1 else f"{n} Punkte"
    return "1 point" if n == 1 else f"{n} points"


def _figure(colour: str, loc: Locale) -> str:
    if not colour:
        return ""
    return f"{COLOUR_ADJ[loc][colour]} Figur" if loc == "de" else f"{colour} figure"


def _king(colour: str, loc: Locale) -> str:
    if loc == "de":
        return {"red": "roten", "green": "grünen", "blue": "blauen"}[colour] + " Königsdrachen"
    return TILE_NAMES[loc][f"KING_{colour.upper()}"]
