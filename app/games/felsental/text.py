"""Words: log lines for events and the board's own UI strings, in English and German."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.engine.protocol import Event, Locale
from app.games.felsental.board import CARDS, CardOption, Opt
from app.games.felsental.option_help import OPTION_HELP

ROLE = {
    "en": {"dragon": "the dragon", "dwarves": "the dwarves"},
    "de": {"dragon": "der Drache", "dwarves": "die Zwerge"},
}
ROLE_ACC = {
    "en": ROLE["en"],
    "de": {"dragon": "den Drachen", "dwarves": "die Zwerge"},
}
COUNTED = {
    "en": {"card": ("card", "cards"), "wound": ("wound", "wounds")},
    "de": {"card": ("Karte", "Karten"), "wound": ("Wunde", "Wunden")},
}
"""Singular and plural of the counted words in log lines."""
DWARF = {
    "en": {"warrior": "the warrior", "crossbowman": "the crossbowman", "trapper": "the trapper"},
    "de": {"warrior": "der Krieger", "crossbowman": "der Armbrustschütze", "trapper": "der Fallensteller"},
}
DWARF_ACC = {
    "en": DWARF["en"],
    "de": {"warrior": "den Krieger", "crossbowman": "den Armbrustschützen", "trapper": "den Fallensteller"},
}
TRACK = {
    "en": {"scales": "scales", "flight": "flight", "movement": "movement", "fire": "fire breath"},
    "de": {"scales": "Schuppenpanzer", "flight": "Flug", "movement": "Bewegung", "fire": "Feueratem"},
}
DIRECTION = {
    "en": ("east", "north-east", "north-west", "west", "south-west", "south-east"),
    "de": ("Osten", "Nordosten", "Nordwesten", "Westen", "Südwesten", "Südosten"),
}
OPTION = {
    "en": {
        Opt.MOVE: "Move {n}",
        Opt.FLY: "Fly",
        Opt.BITE: "Attack {n}",
        Opt.FIRE: "Fire {n}",
        Opt.DEFEND: "Defence",
        Opt.MOVE1: "1 dwarf: move {n}",
        Opt.MOVE2: "2 dwarves: move {n}",
        Opt.ATTACK1: "1 dwarf: attack {n}",
        Opt.ATTACK2: "2 dwarves: attack {n}",
        Opt.CROSSBOW: "Crossbow {n}",
        Opt.NET: "Net",
    },
    "de": {
        Opt.MOVE: "Bewegung {n}",
        Opt.FLY: "Fliegen",
        Opt.BITE: "Angriff {n}",
        Opt.FIRE: "Feueratem {n}",
        Opt.DEFEND: "Abwehr",
        Opt.MOVE1: "1 Zwerg: Bewegung {n}",
        Opt.MOVE2: "2 Zwerge: Bewegung {n}",
        Opt.ATTACK1: "1 Zwerg: Angriff {n}",
        Opt.ATTACK2: "2 Zwerge: Angriff {n}",
        Opt.CROSSBOW: "Armbrust-Angriff {n}",
        Opt.NET: "Netz",
    },
}
REASON = {
    "en": {
        "dragon_dead": "the dragon is dead",
        "dwarves_dead": "all three dwarves are dead",
        "dwarves_out_of_cards": "the dwarves have no cards left",
    },
    "de": {
        "dragon_dead": "der Drache ist tot",
        "dwarves_dead": "alle drei Zwerge sind tot",
        "dwarves_out_of_cards": "die Zwerge haben keine Karten mehr",
    },
}


def option_label(option: CardOption, locale: Locale) -> str:
    return OPTION[_loc(locale)][option.opt].format(n=option.value).strip()


def card_label(card: str, locale: Locale) -> str:
    return " / ".join(option_label(o, locale) for o in CARDS[card].options)


def describe(event: Event, locale: Locale) -> str:
    """The log line for an event."""
    loc = _loc(locale)
    d: Mapping[str, Any] = event.data
    line = _LINES[loc].get(event.kind)
    if loc == "de" and d.get("role") == "dwarves":
        line = _DE_PLURAL.get(event.kind, line)  # "die Zwerge spielen", not "spielt"
    if line is None:
        return event.kind
    words: dict[str, Any] = dict(d)
    if "role" in d:
        words["role"] = ROLE[loc].get(d["role"], d["role"])
        words["Role"] = words["role"][:1].upper() + words["role"][1:]
    if "by" in d:
        words["By"] = ROLE[loc][d["by"]][:1].upper() + ROLE[loc][d["by"]][1:]
    if "dwarf" in d:
        words["dwarf_acc"] = DWARF_ACC[loc][d["dwarf"]]
        words["dwarf"] = DWARF[loc][d["dwarf"]]
        words["Dwarf"] = words["dwarf"][:1].upper() + words["dwarf"][1:]
    if "dwarves" in d:
        joiner = " and " if loc == "en" else " und "
        words["dwarves"] = joiner.join(DWARF_ACC[loc][w] for w in d["dwarves"])
    if "track" in d:
        words["track"] = TRACK[loc][d["track"]]
    if "option" in d:
        words["option"] = OPTION[loc][Opt(d["option"])].format(n=d.get("value", 0)).strip()
    if "card" in d and d["card"] in CARDS:
        # Quoted: a card is named by its effects ("Move 2 / Attack 1"), never by its id.
        words["card_text"] = ("„{}“" if loc == "de" else "“{}”").format(card_label(d["card"], loc))
    if "cards" in d:
        words["cards"] = "; ".join(card_label(c, loc) for c in d["cards"])
    if "winner" in d:
        words["winner"] = ROLE_ACC[loc][d["winner"]]
        words["reason"] = REASON[loc][d["reason"]]
    if "piece" in d:
        piece = d["piece"]
        name = ROLE[loc]["dragon"] if piece == "dragon" else DWARF[loc][piece.removeprefix("dwarf-")]
        words["Piece"] = name[:1].upper() + name[1:]
    if d.get("direction") is not None:
        words["dir"] = DIRECTION[loc][d["direction"]]
    if "seat" in d:
        words["player"] = d["seat"] + 1
    if "dragon" in d and isinstance(d["dragon"], int):
        words["player"] = d["dragon"] + 1
    for key, noun in (("count", "card"), ("hand", "card"), ("wounds", "wound")):
        if isinstance(d.get(key), int):
            words[f"{key}_n"] = _counted(d[key], noun, loc)
    if event.kind == "match_over":
        words["legs"] = ":".join(map(str, d["legs"]))
        words["wounds"] = ":".join(map(str, d["wounds"]))
    if event.kind == "attack_declared":
        return attack_line(loc, d["by"], d["dwarves"], words["option"])
    extra = ""
    if event.kind == "dragon_track_wounded" and d.get("lost"):
        extra = " (ability lost)" if loc == "en" else " (Fähigkeit verloren)"
    return line.format(**words) + extra


_LINES: Mapping[str, Mapping[str, str]] = {
    "en": {
        "leg_started": "Leg {leg} begins; Player {player} is the dragon",
        "cards_drawn": "You drew: {cards}",
        "hand_exchanged": "{Role} exchanged the starting hand",
        "hand_kept": "{Role} kept the starting hand",
        "dwarf_placed": "{Dwarf} was placed on {hex}",
        "turn_ended": "{Role} ended the turn",
        "dragon_skipped": "The dragon has no cards left and misses the turn",
        "drew": "{Role} drew {count_n} ({hand_n} in hand)",
        "discarded": "{Role} discarded the card {card_text} for the hand limit",
        "card_wasted": "{Role} played {option} without effect",
        "net_thrown": "The trapper threw the net over the dragon",
        "card_played": "{Role} played {option}",
        "card_finished": "The card {card_text} is done",
        "moved": "{Piece} moved from {from} to {to}",
        "fire_missed": "The dragon breathed fire to the {dir}, hitting no one",
        "attack_declared": "",
        "blocked": "{Role} blocked the attack on {dwarf_acc} with the card {card_text}",
        "dwarf_wounded": "{Dwarf} took {wounds_n}, {total} in all",
        "dwarf_died": "{Dwarf} is dead",
        "dragon_wounded": "The dragon took {wounds_n}, {scales} of them on its scales",
        "dragon_track_wounded": "{wounds_n} on the dragon's {track}",
        "net_freed": "The dragon spent its turn to free itself from the net",
        "fury": "The warrior fell into fury: one wound, one extra action",
        "leg_won": "Leg {leg} goes to {winner}: {reason}",
        "match_over": "Match over: legs {legs}, wounds inflicted {wounds}",
    },
    "de": {
        "leg_started": "Etappe {leg} beginnt; Spieler {player} ist der Drache",
        "cards_drawn": "Du hast gezogen: {cards}",
        "hand_exchanged": "{Role} tauscht die Startkarten aus",
        "hand_kept": "{Role} behält die Startkarten",
        "dwarf_placed": "{Dwarf} wird auf {hex} aufgestellt",
        "turn_ended": "{Role} beendet den Zug",
        "dragon_skipped": "Der Drache hat keine Karten mehr und setzt aus",
        "drew": "{Role} zieht {count_n} und hat jetzt {hand_n} auf der Hand",
        "discarded": "{Role} wirft die Karte {card_text} wegen des Handkartenlimits ab",
        "card_wasted": "{Role} spielt {option} ohne Wirkung",
        "net_thrown": "Der Fallensteller wirft das Netz über den Drachen",
        "card_played": "{Role} spielt {option}",
        "card_finished": "Die Karte {card_text} ist abgehandelt",
        "moved": "{Piece} zieht von {from} nach {to}",
        "fire_missed": "Der Drache speit Feuer nach {dir} und trifft niemanden",
        "attack_declared": "",
        "blocked": "{Role} wehrt den Angriff auf {dwarf_acc} mit der Karte {card_text} ab",
        "dwarf_wounded": "{Dwarf} erleidet {wounds_n}, insgesamt {total}",
        "dwarf_died": "{Dwarf} ist tot",
        "dragon_wounded": "Der Drache erleidet {wounds_n}, {scales} davon auf dem Schuppenpanzer",
        "dragon_track_wounded": "{wounds_n} auf der Fähigkeit {track} des Drachen",
        "net_freed": "Der Drache nutzt seinen Zug, um sich aus dem Netz zu befreien",
        "fury": "Der Krieger verfällt in Raserei: eine Wunde, eine zusätzliche Aktion",
        "leg_won": "Etappe {leg} geht an {winner}: {reason}",
        "match_over": "Partie beendet: Etappen {legs}, zugefügte Wunden {wounds}",
    },
}

_DE_PLURAL: Mapping[str, str] = {
    "hand_exchanged": "{Role} tauschen die Startkarten aus",
    "hand_kept": "{Role} behalten die Startkarten",
    "turn_ended": "{Role} beenden den Zug",
    "drew": "{Role} ziehen {count_n} und haben jetzt {hand_n} auf der Hand",
    "discarded": "{Role} werfen die Karte {card_text} wegen des Handkartenlimits ab",
    "card_wasted": "{Role} spielen {option} ohne Wirkung",
    "card_played": "{Role} spielen {option}",
    "blocked": "{Role} wehren den Angriff auf {dwarf_acc} mit der Karte {card_text} ab",
}

UI_TEXT: Mapping[Locale, Mapping[str, str]] = {
    "en": {
        "dragon": "Dragon",
        "dwarves": "Dwarves",
        "warrior": "Warrior",
        "crossbowman": "Crossbowman",
        "trapper": "Trapper",
        "scales": "Scales",
        "flight": "Flight",
        "movement": "Movement",
        "fire": "Fire breath",
        "hand": "Your hand",
        "hand_size": "Cards in hand",
        "hand_count": "{count} cards in hand",
        "hand_count_one": "1 card in hand",
        "deck_size": "Draw pile",
        "discards": "Discarded",
        "leg": "Leg",
        "legs_won": "Legs won",
        "wounds_inflicted": "Wounds inflicted",
        "actions": "Actions left",
        "draw": "Draw 2 cards",
        "fury": "Fury (warrior takes 1 wound, +1 action)",
        "fury_used": "Fury used",
        "free": "Free the dragon from the net (both actions)",
        "netted": "Netted",
        "done": "Finish this card",
        "attack_one": "Attack with one dwarf",
        "accept": "Take the wounds",
        "defend_prompt": "You are attacked. Block attacks with defence cards:",
        "block": "Block",
        "wound_prompt": "Place the dragon's wounds: click a track",
        "wounds_left": "Wounds to place",
        "discard_prompt": "Hand limit 6: discard a card",
        "exchange": "Exchange the starting hand",
        "keep": "Keep the starting hand",
        "place_prompt": "Place your dwarf on an outer hex",
        "dead": "dead",
        "lost": "lost",
        "you": "you",
        "turn_of": "Turn",
        "match_over": "Match over",
        "attack": "Attack",
        "fire_line": "Fire line",
        "crossbow_row": "Crossbow row",
        "playing": "Playing",
        "player": "Player",
        "score": "Score",
        "role": "Role",
        "valley": "The valley",
        "warrior_short": "W",
        "crossbowman_short": "C",
        "trapper_short": "T",
        "dragon_short": "D",
        "move_to": "Move to",
        "choose_dwarf": "Choose",
        "fury_ready": "Fury ready",
        "net_ready": "Net ready",
        "net_on_dragon": "Net on the dragon",
        "play": "Play",
        "discard": "Discard",
        "no_effect": "no effect now",
        "no_effect_hint": "Playable, but it does nothing now (no target): the card is only used up.",
        "dir_0": "east",
        "dir_1": "north-east",
        "dir_2": "north-west",
        "dir_3": "west",
        "dir_4": "south-west",
        "dir_5": "south-east",
        "wounds_in_leg": "Wounds inflicted in leg",
        "legs_won_short": "Legs won",
        "all_legs": "all",
        "block_warrior": "Block the attack on the warrior",
        "block_crossbowman": "Block the attack on the crossbowman",
        "block_trapper": "Block the attack on the trapper",
        "blocked_warrior": "The attack on the warrior is blocked",
        "blocked_crossbowman": "The attack on the crossbowman is blocked",
        "blocked_trapper": "The attack on the trapper is blocked",
        "with_card": "with the card",
        "hex": "Hex {hex}",
        "or": "or",
        # What a card option does, beside it on hover and long-press (issue 20.15).
        **{f"help_{k}": v for k, v in OPTION_HELP["en"].items()},
    },
    "de": {
        "dragon": "Drache",
        "dwarves": "Zwerge",
        "warrior": "Krieger",
        "crossbowman": "Armbrustschütze",
        "trapper": "Fallensteller",
        "scales": "Schuppenpanzer",
        "flight": "Flug",
        "movement": "Bewegung",
        "fire": "Feueratem",
        "hand": "Deine Handkarten",
        "hand_size": "Handkarten",
        "hand_count": "{count} Handkarten",
        "hand_count_one": "1 Handkarte",
        "deck_size": "Nachziehstapel",
        "discards": "Abgeworfen",
        "leg": "Etappe",
        "legs_won": "Gewonnene Etappen",
        "wounds_inflicted": "Zugefügte Wunden",
        "actions": "Verbleibende Aktionen",
        "draw": "2 Karten ziehen",
        "fury": "Raserei (Krieger erhält 1 Wunde, +1 Aktion)",
        "fury_used": "Raserei verbraucht",
        "free": "Drachen aus dem Netz befreien (beide Aktionen)",
        "netted": "Im Netz",
        "done": "Karte abschließen",
        "attack_one": "Mit einem Zwerg angreifen",
        "accept": "Wunden hinnehmen",
        "defend_prompt": "Du wirst angegriffen. Wehre Angriffe mit Verteidigungskarten ab:",
        "block": "Abwehren",
        "wound_prompt": "Verteile die Wunden des Drachen: klicke eine Fähigkeit an",
        "wounds_left": "Noch zu verteilende Wunden",
        "discard_prompt": "Handkartenlimit 6: wirf eine Karte ab",
        "exchange": "Startkarten austauschen",
        "keep": "Startkarten behalten",
        "place_prompt": "Stelle deinen Zwerg auf ein äußeres Feld",
        "dead": "tot",
        "lost": "verloren",
        "you": "du",
        "turn_of": "Am Zug",
        "match_over": "Partie beendet",
        "attack": "Angriff",
        "fire_line": "Feuerlinie",
        "crossbow_row": "Schusslinie",
        "playing": "Gespielt",
        "player": "Spieler",
        "score": "Spielstand",
        "role": "Rolle",
        "valley": "Das Tal",
        "warrior_short": "K",
        "crossbowman_short": "A",
        "trapper_short": "F",
        "dragon_short": "D",
        "move_to": "Ziehen nach",
        "choose_dwarf": "Auswählen",
        "fury_ready": "Raserei bereit",
        "net_ready": "Netz bereit",
        "net_on_dragon": "Netz auf dem Drachen",
        "play": "Spielen",
        "discard": "Abwerfen",
        "no_effect": "jetzt ohne Wirkung",
        "no_effect_hint": "Spielbar, bewirkt jetzt aber nichts (kein Ziel): Die Karte wird nur verbraucht.",
        "dir_0": "Osten",
        "dir_1": "Nordosten",
        "dir_2": "Nordwesten",
        "dir_3": "Westen",
        "dir_4": "Südwesten",
        "dir_5": "Südosten",
        "wounds_in_leg": "Zugefügte Wunden in Etappe",
        "legs_won_short": "Etappen\u00adsiege",
        "all_legs": "alle",
        "block_warrior": "Angriff auf den Krieger abwehren",
        "block_crossbowman": "Angriff auf den Armbrustschützen abwehren",
        "block_trapper": "Angriff auf den Fallensteller abwehren",
        "blocked_warrior": "Der Angriff auf den Krieger ist abgewehrt",
        "blocked_crossbowman": "Der Angriff auf den Armbrustschützen ist abgewehrt",
        "blocked_trapper": "Der Angriff auf den Fallensteller ist abgewehrt",
        "with_card": "mit der Karte",
        "hex": "Feld {hex}",
        "or": "oder",
        # What a card option does, beside it on hover and long-press (issue 20.15).
        **{f"help_{k}": v for k, v in OPTION_HELP["de"].items()},
    },
}


def attack_line(loc: str, by: str, dwarves: Sequence[str], option: str) -> str:
    """Who attacks whom, with the grammar of each language: the dwarves named are the attacked
    ones when the dragon attacks, the attackers when the dwarves do."""
    dwarves = list(dwarves)
    if by == "dragon":
        targets = (" and " if loc == "en" else " und ").join(DWARF_ACC[loc][w] for w in dwarves)
        if loc == "en":
            return f"The dragon attacks {targets} ({option})"
        return f"Der Drache greift {targets} an ({option})"
    names = (" and " if loc == "en" else " und ").join(DWARF[loc][w] for w in dwarves)
    names = names[:1].upper() + names[1:]
    if loc == "en":
        return f"{names} {'attack' if len(dwarves) > 1 else 'attacks'} the dragon ({option})"
    return f"{names} {'greifen' if len(dwarves) > 1 else 'greift'} den Drachen an ({option})"


def _counted(n: int, noun: str, loc: str) -> str:
    one, many = COUNTED[loc][noun]
    return f"{n} {one if n == 1 else many}"


def _loc(locale: Locale) -> str:
    return "de" if locale == "de" else "en"
