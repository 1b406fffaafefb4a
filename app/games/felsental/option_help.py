"""What each card option (the symbol at a card's top left) does, in a sentence per language.

Shown beside the option on hover and long-press (issue 20.15); ``{n}`` is the option's value.
Worded after the rules (spec §8) and, in German, the original rules' own terms."""

from __future__ import annotations

from collections.abc import Mapping

from app.engine.protocol import Locale
from app.games.felsental.board import Opt

OPTION_HELP: Mapping[Locale, Mapping[str, str]] = {
    "en": {
        Opt.MOVE: (
            "The dragon walks up to {n} spaces, step by step over empty hexes; it cannot pass a "
            "figure. Not while netted or with its movement lost."
        ),
        Opt.FLY: "The dragon flies to any empty hex. Not while netted or with its flight lost.",
        Opt.BITE: (
            "The dragon attacks a dwarf next to it: {n} wounds, unless a defence card blocks the attack."
        ),
        Opt.FIRE: (
            "Fire breath in one direction: {n} wounds to every dwarf on the straight line to the "
            "valley's edge. Not with the fire breath lost."
        ),
        Opt.DEFEND: (
            "Blocks one attack of the opponent when it comes; both cards are discarded. Played in "
            "your own turn it does nothing."
        ),
        Opt.MOVE1: "One dwarf walks up to {n} spaces over empty hexes; it cannot pass a figure.",
        Opt.MOVE2: "One or two dwarves walk up to {n} spaces each, one after the other.",
        Opt.ATTACK1: (
            "A dwarf next to the dragon attacks it: {n} wounds. The dragon may block with a defence card."
        ),
        Opt.ATTACK2: (
            "One or two dwarves next to the dragon attack at once, {n} wounds each; the dragon may "
            "block each attack with a defence card. No dwarf attacks twice."
        ),
        Opt.CROSSBOW: (
            "The crossbowman shoots at the dragon in the same row, at any distance, if no dwarf "
            "stands between them: {n} wounds. The dragon may block with a defence card."
        ),
        Opt.NET: (
            "The trapper throws the net over the dragon from anywhere: it can neither walk nor fly "
            "until it spends both actions of a turn to get free. Cannot be blocked."
        ),
    },
    "de": {
        Opt.MOVE: (
            "Der Drache zieht bis zu {n} Felder weit, Schritt für Schritt über freie Felder; an "
            "Figuren kommt er nicht vorbei. Nicht im Netz und nicht, wenn seine Bewegung verloren "
            "ist."
        ),
        Opt.FLY: (
            "Der Drache fliegt auf ein beliebiges freies Feld. Nicht im Netz und nicht, wenn sein "
            "Flug verloren ist."
        ),
        Opt.BITE: (
            "Der Drache greift einen Zwerg neben sich an: {n} Wunden, wenn keine Verteidigungskarte "
            "den Angriff abwehrt."
        ),
        Opt.FIRE: (
            "Feueratem in eine Richtung: {n} Wunden für jeden Zwerg auf der geraden Linie bis zum "
            "Rand des Tals. Nicht, wenn der Feueratem verloren ist."
        ),
        Opt.DEFEND: (
            "Wehrt einen Angriff des Gegners ab, sobald er kommt; beide Karten werden abgeworfen. Im "
            "eigenen Zug gespielt bewirkt sie nichts."
        ),
        Opt.MOVE1: (
            "1 Zwerg zieht bis zu {n} Felder weit über freie Felder; an Figuren kommt er nicht vorbei."
        ),
        Opt.MOVE2: "1 oder 2 Zwerge ziehen jeweils bis zu {n} Felder weit, einer nach dem anderen.",
        Opt.ATTACK1: (
            "1 Zwerg neben dem Drachen greift ihn an: {n} Wunden. Der Drache darf mit einer "
            "Verteidigungskarte abwehren."
        ),
        Opt.ATTACK2: (
            "1 oder 2 Zwerge neben dem Drachen greifen gleichzeitig an, jeder mit {n} Wunden; der "
            "Drache darf jeden Angriff mit einer Verteidigungskarte abwehren. Kein Zwerg greift "
            "zweimal an."
        ),
        Opt.CROSSBOW: (
            "Der Armbrustschütze schießt auf den Drachen, wenn beide in derselben Reihe stehen und "
            "kein Zwerg dazwischen steht, egal wie weit: {n} Wunden. Der Drache darf mit einer "
            "Verteidigungskarte abwehren."
        ),
        Opt.NET: (
            "Der Fallensteller wirft von überall das Netz über den Drachen: Er kann weder laufen noch"
            " fliegen, bis er beide Aktionen eines Zuges nutzt, um sich zu befreien. Nicht abwehrbar."
        ),
    },
}
"""Keyed by option; the board reads them as ``help_<option>`` from the game's UI texts."""
