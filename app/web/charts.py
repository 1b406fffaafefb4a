"""Charts drawn on the server as SVG (no chart library at run time): the rating graph.

A pure function from points to markup; every number is formatted here and every text is
escaped, so the page may include the result as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from markupsafe import Markup, escape

from app.services.play_schemas import RatingPoint

WIDTH, HEIGHT = 640, 220
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 44, 12, 12, 28


def rating_graph(
    points: Sequence[RatingPoint],
    *,
    title: str,
    date_of: Callable[[datetime], str] | None = None,
    graph_id: str = "rating-graph",
) -> Markup:
    """The ordinal (conservative rating) after each rated match over time; each point links
    to its match's replay. ``date_of`` formats a datetime for the labels (the page's zone)."""
    if not points:
        return Markup("")
    fmt = date_of or (lambda d: d.date().isoformat())
    values = [p.ordinal_after for p in points]
    times = [p.created_at for p in points]
    low, high = min(values), max(values)
    if high - low < 1:
        low, high = low - 0.5, high + 0.5
    span = _seconds(times[0], times[-1])
    plot_w, plot_h = WIDTH - PAD_LEFT - PAD_RIGHT, HEIGHT - PAD_TOP - PAD_BOTTOM

    def x(i: int) -> float:
        # By time when the matches are spread out, else evenly (a burst of one afternoon).
        share = _seconds(times[0], times[i]) / span if span > 0 else i / max(1, len(times) - 1)
        return PAD_LEFT + share * plot_w

    def y(v: float) -> float:
        return PAD_TOP + (high - v) / (high - low) * plot_h

    line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
    parts = [
        f'<svg class="rating-graph" id="{escape(graph_id)}" viewBox="0 0 {WIDTH} {HEIGHT}" role="group" '
        f'aria-labelledby="{escape(graph_id)}-title" preserveAspectRatio="xMidYMid meet">',
        f'<title id="{escape(graph_id)}-title">{escape(title)}</title>',
    ]
    for v in _ticks(low, high):
        parts.append(
            f'<line class="grid" x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>'
            f'<text class="tick" x="{PAD_LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:g}</text>'
        )
    parts.append(
        f'<text class="tick" x="{PAD_LEFT}" y="{HEIGHT - 8}">{escape(fmt(times[0]))}</text>'
        f'<text class="tick" x="{WIDTH - PAD_RIGHT}" y="{HEIGHT - 8}" text-anchor="end">'
        f"{escape(fmt(times[-1]))}</text>"
    )
    parts.append(f'<polyline class="line" points="{line}"/>')
    for i, point in enumerate(points):
        label = escape(
            f"#{point.match_id} · {fmt(point.created_at)} · {point.ordinal_after:.1f} ({point.rank}.)"
        )
        parts.append(
            f'<a href="/matches/{point.match_id}/replay" aria-label="{label}"><title>{label}</title>'
            f'<circle class="dot" data-match="{point.match_id}" cx="{x(i):.1f}" '
            f'cy="{y(values[i]):.1f}" r="3.5"/></a>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def _seconds(a: datetime, b: datetime) -> float:
    return (b - a).total_seconds()


def _ticks(low: float, high: float) -> list[float]:
    """Three to six round values between ``low`` and ``high``."""
    span = high - low
    step = 1.0
    for candidate in (0.5, 1, 2, 5, 10, 20, 50):
        step = float(candidate)
        if span / candidate <= 5:
            break
    first = int(low / step) * step
    return [round(first + k * step, 2) for k in range(12) if low <= first + k * step <= high]
