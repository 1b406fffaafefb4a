"""What each tile does, in a sentence per language, shown beside a face-up tile on hover and
long-press (issue 20.15). Worded after the rules (spec §5) and, in German, the seed's own terms.
A face-down tile has no explanation: its kind is hidden from everyone."""

from __future__ import annotations

from app.engine.protocol import Locale

_KING = {
    "en": (
        "Stays face up on its volcano until a {colour} figure (any player's) calls it with a 4 or"
        " flies with it. Never leaves the game."
    ),
    "de": (
        "Bleibt offen auf seinem Vulkan liegen, bis eine {colour} Figur (gleich welcher Spieler) "
        "ihn mit einer 4 ruft oder mit ihm fliegt. Scheidet nie aus."
    ),
}
_COLOUR = {
    "en": {"RED": "red", "GREEN": "green", "BLUE": "blue"},
    "de": {"RED": "rote", "GREEN": "grüne", "BLUE": "blaue"},
}

TILE_HELP: dict[Locale, dict[str, str]] = {
    "en": {
        "REROLL": (
            "At the start of your movement, before a die is used: roll both dice again. Then discarded."
        ),
        "BOATMAN": (
            "Ferries your active figure across a river or waterfall to the volcano directly on the "
            "other side. Then discarded."
        ),
        "QUICK_STEPS": "Your active figure walks up to 3 more spaces. Then discarded.",
        "SMALL_DRAGON": (
            "Counts as a rolled 4 to call the king dragon or fly with it, never for walking. Then discarded."
        ),
        "MAGIC_HAND": (
            "In the treasure phase: take treasure once more on your active figure's volcano. Then discarded."
        ),
        "RING": (
            "Stays open on its volcano to the end: a figure there may put on a magic ring instead of "
            "taking a treasure. A colour's gems count only if the figure of that colour wears a ring."
        ),
    },
    "de": {
        "REROLL": (
            "Zu Beginn der Bewegungsphase erklärst du deinen Wurf für ungültig und würfelst beide "
            "Würfel neu. Danach aus dem Spiel."
        ),
        "BOATMAN": (
            "Setzt deine aktive Figur über einen Fluss oder Wasserfall auf den Vulkan, der auf der "
            "anderen Seite direkt anschließt. Danach aus dem Spiel."
        ),
        "QUICK_STEPS": "Deine aktive Figur rückt bis zu 3 Felder zusätzlich vor. Danach aus dem Spiel.",
        "SMALL_DRAGON": (
            "Wirkt wie eine gewürfelte 4 zum Rufen des Königsdrachen oder Fliegen mit ihm, nicht zum "
            "Ziehen. Danach aus dem Spiel."
        ),
        "MAGIC_HAND": (
            "In der Schatzphase nimmst du einmal weitere Schätze auf dem Vulkan deiner aktiven Figur."
            " Danach aus dem Spiel."
        ),
        "RING": (
            "Bleibt bis Spielende offen auf seinem Vulkan: Eine Figur dort darf statt eines Schatzes "
            "einen Zauberring anlegen. Edelsteine einer Farbe zählen nur, wenn die Figur dieser Farbe"
            " einen Ring trägt."
        ),
    },
}
for _loc in ("en", "de"):
    TILE_HELP[_loc] |= {f"KING_{c}": _KING[_loc].format(colour=name) for c, name in _COLOUR[_loc].items()}
