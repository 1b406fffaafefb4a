"""Words: log lines for every event and the board's own UI strings, in English and German.

German follows the terms of the German rules (Drache, Karte, Zugstapel, Ablagestapel,
kleine/große Wertung, Gipfelfeld, abwerfen, nachziehen).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.engine.protocol import Event, Locale

DRAGON_NAMES: dict[Locale, dict[str, str]] = {
    "en": {
        "blue": "Blue",
        "brown": "Brown",
        "black": "Black",
        "red": "Red",
        "yellow": "Yellow",
        "green": "Green",
        "gray": "Gray",
        "lightblue": "Light blue",
        "purple": "Purple",
        "orange": "Orange",
    },
    "de": {
        "blue": "Blau",
        "brown": "Braun",
        "black": "Schwarz",
        "red": "Rot",
        "yellow": "Gelb",
        "green": "Grün",
        "gray": "Grau",
        "lightblue": "Hellblau",
        "purple": "Lila",
        "orange": "Orange",
    },
}

DRAGON_ABBREVIATIONS: dict[Locale, dict[str, str]] = {
    "en": {
        "blue": "Bl",
        "brown": "Br",
        "black": "Bk",
        "red": "Rd",
        "yellow": "Ye",
        "green": "Gn",
        "gray": "Gy",
        "lightblue": "LB",
        "purple": "Pu",
        "orange": "Or",
    },
    "de": {
        "blue": "Bl",
        "brown": "Br",
        "black": "Sw",
        "red": "Rt",
        "yellow": "Ge",
        "green": "Gn",
        "gray": "Gr",
        "lightblue": "Hb",
        "purple": "Li",
        "orange": "Or",
    },
}
"""Two letters on the dragon pieces (one letter would not tell Blue, Brown and Black apart)."""

KIND_NAMES: dict[Locale, dict[str, str]] = {
    "en": {"start": "start", "plain": "plain", "blue": "blue", "green": "green", "red": "summit"},
    "de": {
        "start": "Startfeld",
        "plain": "einfaches Feld",
        "blue": "blaues Feld",
        "green": "grünes Feld",
        "red": "Gipfelfeld",
    },
}

UI_TEXT: dict[Locale, dict[str, str]] = {
    "en": {
        "board": "Mount Drago board",
        "hand": "Your hand",
        "hand_empty": "No cards in hand",
        "play_card": "Play {card}: {dragon} to space {space} (value {value})",
        "discard_card": "Discard {card} (its dragon is on the summit)",
        "card": "{dragon} {value}",
        "choose": "{moved} was in last place. Your choice:",
        "keep": "Keep my dragon ({own})",
        "take": "Take {moved}",
        "discard_hint": "Summit cards may be discarded, one click each; then confirm.",
        "confirm_hint": "Confirm ends your turn; then you draw {count} cards.",
        "confirm_hint_one": "Confirm ends your turn; then you draw 1 card.",
        "confirm_hint_none": "Confirm ends your turn. You draw no cards: you scored and still hold cards.",
        "rank": "Rank {rank}",
        "play_hint": "Play a card: choose it here or its ring on the board.",
        "ending_hint": "The third dragon is on the summit: confirm ends the game.",
        "space": "Space {index}: value {value}, {kind}",
        "dragon": "{dragon} dragon on space {index} (value {value}), {rider}",
        "free": "free",
        "ridden_by": "ridden by {name}",
        "deck": "Draw pile: {count}",
        "player": "Player {n}",
        "game_over": "Game over",
        "points": "{count} points",
        "points_one": "1 point",
        "hand_size": "{count} cards in hand",
        "hand_size_one": "1 card in hand",
        "new_card": "new",
        "rides": "rides {dragon} (card {value})",
        "winner": "Winner",
    },
    "de": {
        "board": "Spielplan Draco",
        "hand": "Deine Handkarten",
        "hand_empty": "Keine Handkarten",
        "play_card": "{card} spielen: Drache {dragon} auf Feld {space} (Wert {value})",
        "discard_card": "{card} abwerfen (der Drache steht auf dem Gipfel)",
        "card": "{dragon} {value}",
        "choose": "Drache {moved} stand ganz hinten. Deine Wahl:",
        "keep": "Meinen Drachen behalten ({own})",
        "take": "Drachen {moved} übernehmen",
        "discard_hint": "Gipfelkarten kannst du einzeln abwerfen; danach bestätigen.",
        "confirm_hint": "„Bestätigen“ beendet deinen Zug, dann ziehst du {count} Karten nach.",
        "confirm_hint_one": "„Bestätigen“ beendet deinen Zug, dann ziehst du 1 Karte nach.",
        "confirm_hint_none": (
            "„Bestätigen“ beendet deinen Zug. Du ziehst keine Karten nach: "
            "Du hast gewertet und noch Karten auf der Hand."
        ),
        "play_hint": "Spiele eine Karte: Wähle sie hier aus oder klicke ihren Ring auf dem Spielplan an.",
        "rank": "Platz {rank}",
        "ending_hint": "Der dritte Drache steht auf dem Gipfel: „Bestätigen“ beendet das Spiel.",
        "space": "Feld {index}: Wert {value}, {kind}",
        "dragon": "Drache {dragon} auf Feld {index} (Wert {value}), {rider}",
        "free": "frei",
        "ridden_by": "geritten von {name}",
        "deck": "Zugstapel: {count}",
        "player": "Spieler {n}",
        "game_over": "Spielende",
        "points": "{count} Punkte",
        "points_one": "1 Punkt",
        "hand_size": "{count} Handkarten",
        "hand_size_one": "1 Handkarte",
        "new_card": "neu",
        "rides": "reitet {dragon} (Karte {value})",
        "winner": "hat gewonnen",
    },
}


def dragon_name(dragon: str, locale: Locale) -> str:
    return _names(locale).get(dragon, dragon)


def describe(event: Event, locale: Locale) -> str:
    """The log line for one event."""
    de = locale == "de"
    d = event.data
    handler = _DESCRIBERS.get(event.kind)
    if handler is None:
        return event.kind
    return handler(d, de)


# --- private helpers -------------------------------------------------------------------------


def _names(locale: Locale) -> dict[str, str]:
    return DRAGON_NAMES.get(locale, DRAGON_NAMES["en"])


def _player(seat: Any, de: bool) -> str:
    return f"{'Spieler' if de else 'Player'} {int(seat) + 1}"


def _dragon(dragon: Any, de: bool) -> str:
    return dragon_name(str(dragon), "de" if de else "en")


def _moved(d: Mapping[str, Any], de: bool) -> str:
    who, dragon, value = _player(d["seat"], de), _dragon(d["dragon"], de), d["value"]
    kind = KIND_NAMES["de" if de else "en"].get(str(d.get("space_kind")), "")
    if de:
        line = (
            f"{who} spielt {dragon} {value}: Drache {dragon} zieht von Feld {d['from']} "
            f"auf Feld {d['to']} (Wert {d['space_value']}, {kind})"
        )
        if d["lost"] == 1:
            line += "; 1 Bewegungspunkt verfällt"
        elif d["lost"]:
            line += f"; {d['lost']} Bewegungspunkte verfallen"
        return line + "."
    line = (
        f"{who} plays {dragon} {value}: the {dragon} dragon moves from space {d['from']} "
        f"to space {d['to']} (value {d['space_value']}, {kind})"
    )
    if d["lost"] == 1:
        line += "; 1 movement point is lost"
    elif d["lost"]:
        line += f"; {d['lost']} movement points are lost"
    return line + "."


def _kept(d: Mapping[str, Any], de: bool) -> str:
    who, dragon, moved = _player(d["seat"], de), _dragon(d["dragon"], de), _dragon(d["moved"], de)
    reason = d["reason"]
    if reason == "ridden":
        rider = _player(d["rider"], de)
        if de:
            return f"Drache {moved} wird von {rider} geritten: die Karte kommt unter den Stapel von {who}."
        return f"The {moved} dragon is ridden by {rider}: the card goes under the pile of {who}."
    if reason == "own":
        if de:
            return f"{who} bleibt auf dem eigenen Drachen {dragon}."
        return f"{who} stays on their own dragon, {dragon}."
    if de:
        return f"{who} behält den Drachen {dragon}; die Karte kommt unter den eigenen Stapel."
    return f"{who} keeps the {dragon} dragon; the card goes under their pile."


def _changed(d: Mapping[str, Any], de: bool) -> str:
    who, dragon, previous = _player(d["seat"], de), _dragon(d["dragon"], de), _dragon(d["previous"], de)
    if d["chosen"]:
        if de:
            return f"{who} übernimmt den hintersten Drachen {dragon} und verlässt den Drachen {previous}."
        return f"{who} takes the last-place dragon {dragon} and leaves {previous}."
    if de:
        return f"{who} reitet jetzt den Drachen {dragon} und verlässt den Drachen {previous}."
    return f"{who} now rides the {dragon} dragon and leaves {previous}."


def _offered(d: Mapping[str, Any], de: bool) -> str:
    who, dragon, own = _player(d["seat"], de), _dragon(d["dragon"], de), _dragon(d["own"], de)
    if de:
        return (
            f"Drache {dragon} stand ganz hinten: {who} darf den Drachen {own} behalten "
            f"oder {dragon} übernehmen."
        )
    return f"The {dragon} dragon was in last place: {who} may keep {own} or take {dragon}."


def _gains(d: Mapping[str, Any], de: bool) -> str:
    gains: Sequence[int] = d["gains"]
    return ", ".join(f"{_player(seat, de)} {gain:+d}" for seat, gain in enumerate(gains))


def _scoring(d: Mapping[str, Any], de: bool) -> str:
    dragon, space, value, kind = _dragon(d["dragon"], de), d["space"], d["value"], d["kind"]
    if de:
        head = {
            "small": f"Kleine Wertung (Drache {dragon} auf blauem Feld {space}, Wert {value})",
            "big": f"Große Wertung (Drache {dragon} auf grünem Feld {space}, Wert {value})",
            "summit": f"Große Wertung: Drache {dragon} erreicht den Gipfel (Feld {space}, Wert {value})",
        }[kind]
    else:
        head = {
            "small": f"Small scoring ({dragon} on blue space {space}, value {value})",
            "big": f"Big scoring ({dragon} on green space {space}, value {value})",
            "summit": f"Big scoring: {dragon} reaches the summit (space {space}, value {value})",
        }[kind]
    line = f"{head}: {_gains(d, de)}."
    if d["blocked"]:
        who = ", ".join(_player(s, de) for s in d["blocked"])
        if de:
            line += f" Der Verlust von 2 Punkten entfällt für {who} (die Summe fiele unter 0)."
        else:
            line += f" The loss of 2 is not applied for {who} (the total would drop below 0)."
    if d["final"]:
        line += (
            " Der dritte Drache steht auf dem Gipfel: das Spiel endet."
            if de
            else " The third dragon is on the summit: the game ends."
        )
    return line


def _discarded(d: Mapping[str, Any], de: bool) -> str:
    who, dragon = _player(d["seat"], de), _dragon(d["dragon"], de)
    if de:
        return f"{who} wirft {dragon} {d['value']} ab (Drache auf dem Gipfel)."
    return f"{who} discards {dragon} {d['value']} (the dragon is on the summit)."


def _reshuffled(d: Mapping[str, Any], de: bool) -> str:
    count = int(d["count"])
    if de:
        cards = "1 Karte der Ablagestapel wird" if count == 1 else f"{count} Karten der Ablagestapel werden"
        return f"Der Zugstapel ist leer: {cards} gemischt; die obersten Drachenkarten bleiben liegen."
    cards = "1 card from the piles is" if count == 1 else f"{count} cards from the piles are"
    return f"The draw pile is empty: {cards} shuffled; the top cards stay."


def _drew(d: Mapping[str, Any], de: bool) -> str:
    who, count = _player(d["seat"], de), int(d["count"])
    if de:
        if count == 0:
            return f"{who} zieht keine Karten nach."
        return f"{who} zieht {count} {'Karte' if count == 1 else 'Karten'} nach."
    if count == 0:
        return f"{who} draws no cards."
    return f"{who} draws {count} {'card' if count == 1 else 'cards'}."


def _drew_cards(d: Mapping[str, Any], de: bool) -> str:
    cards = ", ".join(f"{_dragon(dragon, de)} {value}" for dragon, value in d["cards"])
    return f"Du ziehst: {cards}." if de else f"You draw: {cards}."


def _game_over(d: Mapping[str, Any], de: bool) -> str:
    winners: Sequence[int] = d["winners"]
    best = d["scores"][winners[0]]
    names = ", ".join(_player(s, de) for s in winners)
    summit = ", ".join(_dragon(dragon, de) for dragon in d.get("summit", ()))
    if de:
        shared = " (geteilter Sieg)" if len(winners) > 1 else ""
        points = "1 Punkt" if best == 1 else f"{best} Punkten"
        return f"Spielende (auf dem Gipfel: {summit}). Sieg: {names} mit {points}{shared}."
    shared = " (shared victory)" if len(winners) > 1 else ""
    points = "1 point" if best == 1 else f"{best} points"
    return f"Game over (on the summit: {summit}). Winner: {names} with {points}{shared}."


_DESCRIBERS = {
    "dragon_moved": _moved,
    "rider_kept": _kept,
    "rider_changed": _changed,
    "mount_offered": _offered,
    "scoring": _scoring,
    "discarded": _discarded,
    "reshuffled": _reshuffled,
    "drew": _drew,
    "drew_cards": _drew_cards,
    "game_over": _game_over,
}
