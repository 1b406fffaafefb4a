"""Where a knockout's tables go in its bracket drawing (pure geometry; the page draws the SVG)."""

from __future__ import annotations

from dataclasses import dataclass

from app.services.tournaments.schemas import RoundOut

BOX_W, BOX_GAP, LINE_H, PAD = 180, 40, 18, 8


@dataclass(frozen=True)
class Box:
    x: int
    y: int
    height: int
    names: list[str]
    winner: int | None
    """The index of the name that goes on (bold), once known."""
    match_id: int | None


@dataclass(frozen=True)
class Line:
    x1: int
    y1: int
    x2: int
    y2: int


@dataclass(frozen=True)
class Bracket:
    width: int
    height: int
    boxes: list[Box]
    lines: list[Line]


def layout(rounds: list[RoundOut], advance: int = 1) -> Bracket:
    """Columns per round; in each column the tables spread over the height of the first."""
    if not rounds:
        return Bracket(0, 0, [], [])
    seats = max(len(t.players) for r in rounds for t in r.tables)
    box_h = seats * LINE_H + PAD
    slot = box_h + 12
    height = max(len(r.tables) for r in rounds) * slot
    boxes: list[list[Box]] = []
    for col, r in enumerate(rounds):
        column = []
        step = height / len(r.tables)
        for i, t in enumerate(r.tables):
            y = int(step * (i + 0.5) - box_h / 2)
            winner = None
            if t.ranks is not None:
                winner = min(range(len(t.ranks)), key=lambda k: t.ranks[k] if t.ranks else 0)
            elif t.match_id is None and t.players:
                winner = 0  # a bye goes on
            column.append(Box(col * (BOX_W + BOX_GAP), y, box_h, list(t.players), winner, t.match_id))
        boxes.append(column)
    lines = []
    for col in range(1, len(boxes)):
        before, now = boxes[col - 1], boxes[col]
        for i, box in enumerate(before):
            target = now[min(i * len(now) // len(before), len(now) - 1)]
            lines.append(
                Line(box.x + BOX_W, box.y + box.height // 2, target.x, target.y + target.height // 2)
            )
    width = len(rounds) * (BOX_W + BOX_GAP) - BOX_GAP
    return Bracket(width, height, [b for column in boxes for b in column], lines)
