"""The analysis graph of a finished match: each seat's chance to win over the steps, drawn here
as SVG (no chart library at run time); each step is a link to that step of the replay."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape

WIDTH, HEIGHT = 1000, 170
PAD_X, PAD_Y = 6, 6
COLOURS = ("#b3261e", "#1f5fa8", "#2e7d32", "#7b3fa6", "#9a5b00")
"""Seat colours, the same hues as the players' log lines (static/css/app.css ``seat-N``)."""
MAX_LINKS = 400
"""At most this many step links (a long match links every n-th step, and always the current one)."""


def graph_svg(
    items: Sequence[Mapping[str, Any]],
    steps: int,
    current: int,
    names: Sequence[str],
    replay_url: str,
    label: str,
) -> Markup:
    """The chances before each step (and at the end) as one polyline per seat, and a link per step."""
    points = {int(item["step"]) - 1: item["chances"] for item in items}
    if not points:
        return Markup("")
    span = max(steps, 1)

    def x(step: int) -> float:
        return PAD_X + (WIDTH - 2 * PAD_X) * step / span

    def y(chance: float) -> float:
        return PAD_Y + (HEIGHT - 2 * PAD_Y) * (1 - chance)

    known = sorted(points)
    parts = [
        # Stretched to the page's width at a fixed height (a phone's graph stays readable): the
        # strokes keep their width, and the axis labels are the page's (no text in the drawing).
        f'<svg class="analysis-graph" viewBox="0 0 {WIDTH} {HEIGHT}" preserveAspectRatio="none" role="group"'
        f' aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">',
        f'<line x1="{PAD_X}" y1="{y(0.5):.1f}" x2="{WIDTH - PAD_X}" y2="{y(0.5):.1f}" class="half"'
        ' stroke="#999" stroke-dasharray="4 4" vector-effect="non-scaling-stroke"/>',
    ]
    for seat in range(len(names)):
        line = " ".join(f"{x(s):.1f},{y(points[s][seat]):.1f}" for s in known if seat < len(points[s]))
        colour = COLOURS[seat % len(COLOURS)]
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2" vector-effect="non-scaling-stroke"'
            f' points="{line}" data-seat="{seat}">'
            f"<title>{escape(names[seat])}</title></polyline>"
        )
    every = max(1, -(-len(known) // MAX_LINKS))
    width = max((WIDTH - 2 * PAD_X) / span * every, 2.0)
    for s in known:
        if s % every and s != current:
            continue
        chances = ", ".join(
            f"{names[i]} {round(c * 100)}%" for i, c in enumerate(points[s]) if i < len(names)
        )
        mark = ' class="current"' if s == current else ""
        parts.append(
            f'<a href="{escape(replay_url)}?step={s}" data-graph-step="{s}"{mark}>'
            f"<title>{s}: {escape(chances)}</title>"
            f'<rect x="{x(s) - width / 2:.1f}" y="0" width="{width:.1f}" height="{HEIGHT}"'
            ' fill="transparent"/></a>'
        )
    if current in points:
        parts.append(
            f'<line x1="{x(current):.1f}" y1="{PAD_Y}" x2="{x(current):.1f}" y2="{HEIGHT - PAD_Y}"'
            ' stroke="#333" stroke-width="1.5" class="now" vector-effect="non-scaling-stroke"/>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))
