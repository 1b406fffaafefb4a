"""What players call the places of the board: named volcanoes, the three entrances, the paths
between them and the water. The board's ids (``V07``, ``E1``, ``P05-2``, ``W3``) stay in the
rules, the moves and the API; a page or a log line says "the Fire volcano" or "the path between
the Fire and the Ice volcano" instead.

German compounds: every volcano is a "…vulkan" (masculine), so one set of articles and the
elision "zwischen Feuer- und Eisvulkan" serve all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from app.engine.protocol import Locale
from app.games.drachenland.board import PATH_TABLE, WATER_TABLE

Case = Literal["name", "from", "to", "on"]
"""How the place is used in a sentence: its name, "from …", "to …", "on …"."""

VOLCANOES: Mapping[str, tuple[str, str, str]] = {
    # id: English name, German name on the board, German stem of the compound "…vulkan"
    "V01": ("Ash", "Asche", "Aschen"),
    "V02": ("Storm", "Sturm", "Sturm"),
    "V03": ("Ember", "Glut", "Glut"),
    "V04": ("Thunder", "Donner", "Donner"),
    "V05": ("Mist", "Nebel", "Nebel"),
    "V06": ("Frost", "Frost", "Frost"),
    "V07": ("Fire", "Feuer", "Feuer"),
    "V08": ("Ice", "Eis", "Eis"),
    "V09": ("Moon", "Mond", "Mond"),
    "V10": ("Sun", "Sonne", "Sonnen"),
    "V11": ("Star", "Stern", "Stern"),
    "V12": ("Wind", "Wind", "Wind"),
    "V13": ("Gold", "Gold", "Gold"),
    "V14": ("Silver", "Silber", "Silber"),
    "V15": ("Crystal", "Kristall", "Kristall"),
}
ENTRANCES: Mapping[str, tuple[str, str, str]] = {
    # id: English direction, German short label, German adjective stem (by where they lie)
    "E1": ("south", "Süd", "südlich"),
    "E2": ("west", "West", "westlich"),
    "E3": ("east", "Ost", "östlich"),
}
PATH_ENDS: Mapping[str, tuple[str, str]] = {p: (a, b) for p, a, b, _ in PATH_TABLE}
WATER: Mapping[str, tuple[str, str, str]] = {w: (a, b, kind) for w, a, b, kind, _ in WATER_TABLE}


def short_label(node: str, locale: Locale) -> str:
    """The word printed on the board: "Fire" inside a volcano, "South" on an entrance."""
    de = locale == "de"
    if node in VOLCANOES:
        return VOLCANOES[node][1 if de else 0]
    if node in ENTRANCES:
        return ENTRANCES[node][1] if de else ENTRANCES[node][0].capitalize()
    return place(node, locale)


def title(node: str, locale: Locale) -> str:
    """The place as a label on its own: "Fire volcano", "Path between the Fire and the Ice volcano"."""
    if locale == "de" and node in ENTRANCES:
        return f"{ENTRANCES[node][2].capitalize()}er Eingang"  # no article: "Südlicher Eingang"
    text = place(node, locale)
    if locale != "de":
        text = text.removeprefix("the ")
    else:
        for article in ("der ", "die "):
            text = text.removeprefix(article)
    return text[:1].upper() + text[1:]


def place(node: str, locale: Locale, case: Case = "name") -> str:
    """A volcano, entrance, space (named by its path), path or water link in a sentence."""
    de = locale == "de"
    if node in VOLCANOES:
        return _volcano(node, de, case)
    if node in ENTRANCES:
        return _entrance(node, de, case)
    path = node.split("-", 1)[0]
    if path in PATH_ENDS:
        return _path(path, de, case)
    if node in WATER:
        return _water(node, de, case)
    return node


def from_to(origin: str, target: str, locale: Locale) -> str:
    """Where a figure went, naming no place twice: "from the south entrance onto the path to the
    Mist volcano", "along the path from the Ash volcano to the Fire volcano"."""
    de = locale == "de"
    on_path, to_path = _path_of(origin), _path_of(target)
    if to_path and origin in PATH_ENDS[to_path]:  # from an end onto its path
        other = _other_end(to_path, origin)
        onto = (
            f"auf den Weg {place(other, 'de', 'to')}" if de else f"onto the path {place(other, 'en', 'to')}"
        )
        return f"{place(origin, locale, 'from')} {onto}"
    if on_path and target in PATH_ENDS[on_path]:  # along a path to its end
        other = _other_end(on_path, target)
        if de:
            return f"auf dem Weg {place(other, 'de', 'from')} bis {place(target, 'de', 'to')}"
        return f"along the path {place(other, 'en', 'from')} {place(target, 'en', 'to')}"
    if on_path and on_path == to_path:  # along one path
        return place(on_path, locale, "on") if de else f"along {place(on_path, locale)}"
    return f"{place(origin, locale, 'from')} {place(target, locale, 'to')}"


def _path_of(node: str) -> str | None:
    """The path a space lies on ("P05-2" -> "P05"); None for volcanoes and entrances."""
    path = node.split("-", 1)[0]
    return path if "-" in node and path in PATH_ENDS else None


def _other_end(path: str, end: str) -> str:
    a, b = PATH_ENDS[path]
    return b if end == a else a


def _volcano(node: str, de: bool, case: Case) -> str:
    if de:
        noun = f"{VOLCANOES[node][2]}vulkan"
        return {"name": f"der {noun}", "from": f"vom {noun}", "to": f"zum {noun}", "on": f"auf dem {noun}"}[
            case
        ]
    return _english(f"the {VOLCANOES[node][0]} volcano", case)


def _entrance(node: str, de: bool, case: Case) -> str:
    if de:
        stem = ENTRANCES[node][2]
        return {
            "name": f"der {stem}e Eingang",
            "from": f"vom {stem}en Eingang",
            "to": f"zum {stem}en Eingang",
            "on": f"am {stem}en Eingang",
        }[case]
    return _english(f"the {ENTRANCES[node][0]} entrance", case)


def _path(path: str, de: bool, case: Case) -> str:
    a, b = PATH_ENDS[path]
    if de:
        if a in ENTRANCES:
            where = f"Weg {_entrance(a, True, 'from')} {_volcano(b, True, 'to')}"
        else:
            where = f"Weg zwischen {VOLCANOES[a][2]}- und {VOLCANOES[b][2]}vulkan"
        return {
            "name": f"der {where}",
            "from": f"vom {where}",
            "to": f"auf den {where}",
            "on": f"auf dem {where}",
        }[case]
    if a in ENTRANCES:
        where = f"the path from the {ENTRANCES[a][0]} entrance to the {VOLCANOES[b][0]} volcano"
    else:
        where = f"the path between the {VOLCANOES[a][0]} and the {VOLCANOES[b][0]} volcano"
    return {"name": where, "from": f"from {where}", "to": f"onto {where}", "on": f"on {where}"}[case]


def _water(node: str, de: bool, case: Case) -> str:
    a, b, kind = WATER[node]
    if de:
        noun = "Fluss" if kind == "river" else "Wasserfall"
        where = f"{noun} zwischen {VOLCANOES[a][2]}- und {VOLCANOES[b][2]}vulkan"
        return {"name": f"der {where}", "from": f"vom {where}", "to": f"zum {where}", "on": f"am {where}"}[
            case
        ]
    noun = "river" if kind == "river" else "waterfall"
    return _english(f"the {noun} between the {VOLCANOES[a][0]} and the {VOLCANOES[b][0]} volcano", case)


def _english(name: str, case: Case) -> str:
    return {"name": name, "from": f"from {name}", "to": f"to {name}", "on": f"on {name}"}[case]
