"""Issue 21: a recorder of where a board's pieces stand in every frame, to tell a move that
animates (some frame between its old and its new place) from one that jumps (reduced motion).

Game-neutral: any board whose pieces are ``data-piece`` elements (Draco's dragons, Drachenland's
figures, Felsental's dwarves and dragon).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

TIMEOUT_MS = 10_000
SETTLE_MS = 900
"""Longer than the longest move (400 ms) and the page's own settling after a swap."""

RECORD = """selector => {
  // Measured against what carries the piece (its drawing, or its list), as animate.js does: a
  // board that moves as a whole (a panel shown above it) moves no piece.
  const rec = window.__motion = {frames: [], stop: false};
  const tick = () => {
    const at = {}, seen = {};
    document.querySelectorAll(selector).forEach(el => {
      // A name shown twice (a dragon on the board and in a panel, two equal cards in a hand):
      // the first keeps the name, the next ones are told apart by their order, as in animate.js.
      const name = el.getAttribute("data-piece"), n = seen[name] || 0;
      seen[name] = n + 1;
      const key = n ? `${name}#${n}` : name;
      const r = (el.ownerSVGElement || el.parentElement).getBoundingClientRect();
      const b = el.getBoundingClientRect();
      at[key] = [b.left + b.width / 2 - r.left, b.top + b.height / 2 - r.top, el.getAttribute("data-space")];
    });
    const running = document.getAnimations().filter(a => {
      const t = a.effect && a.effect.target;
      return a.playState === "running" && t && t.closest && t.closest("[data-piece]");
    }).length;
    rec.frames.push({at, running});
  };
  // Every frame, and every 10 ms besides: a busy machine may hold frames back for a second or
  // more, and an animation's place is read from its clock, painted or not.
  const frame = () => { if (!rec.stop) { tick(); requestAnimationFrame(frame); } };
  const timer = setInterval(() => { if (rec.stop) clearInterval(timer); else tick(); }, 10);
  frame();
}"""


@dataclass
class Motion:
    """Where each piece stood in every frame from before a change until it had settled."""

    frames: list[dict[str, Any]]

    def moved(self) -> list[str]:
        """The pieces that stand elsewhere at the end, the farthest moved first."""
        first, last = self.frames[0]["at"], self.frames[-1]["at"]
        both = [k for k in first if k in last and _dist(first[k], last[k]) > 3]
        return sorted(both, key=lambda k: -_dist(first[k], last[k]))

    def path(self, piece: str) -> list[tuple[float, float]]:
        return [(f["at"][piece][0], f["at"][piece][1]) for f in self.frames if piece in f["at"]]

    def animations(self) -> int:
        return max(f["running"] for f in self.frames)


def watch_motion(page: Any, selector: str, change: Callable[[], None], swapped: str, arg: Any) -> Motion:
    """Record the pieces matching ``selector`` every frame while ``change()`` makes the board
    change; ``swapped`` is a JS function of ``arg``, true once the new board is shown."""
    page.evaluate(RECORD, selector)
    page.wait_for_timeout(100)
    change()
    page.wait_for_function(swapped, arg=arg, timeout=TIMEOUT_MS)
    page.wait_for_timeout(SETTLE_MS)
    frames: list[dict[str, Any]] = page.evaluate(
        "() => { window.__motion.stop = true; return window.__motion.frames; }"
    )
    assert len(frames) > 2, f"the page drew {len(frames)} frames in {SETTLE_MS} ms and more"
    return Motion(frames)


def assert_walked(motion: Motion, piece: str, via: list[tuple[float, float]] = ()) -> None:  # type: ignore[assignment]
    """Some frame shows ``piece`` strictly between its old and its new place: away from both,
    inside the box they span (with the places it walks over, ``via``)."""
    points = motion.path(piece)
    old, new = points[0], points[-1]
    corners = [old, new, *via]
    left, right = min(p[0] for p in corners) - 1, max(p[0] for p in corners) + 1
    top, bottom = min(p[1] for p in corners) - 1, max(p[1] for p in corners) + 1
    between = [
        p
        for p in points
        if _dist(p, old) > 2 and _dist(p, new) > 2 and left <= p[0] <= right and top <= p[1] <= bottom
    ]
    assert between, f"{piece} jumped from {old} to {new}: {points}"
    assert motion.animations() > 0


def assert_jumped(motion: Motion) -> None:
    """Nothing animated: every moved piece is, in every frame, at its old or at its new place."""
    assert motion.animations() == 0
    moved = motion.moved()
    assert moved, "the change moved no piece"
    for piece in moved:
        points = motion.path(piece)
        old, new = points[0], points[-1]
        assert all(_dist(p, old) <= 1 or _dist(p, new) <= 1 for p in points), (piece, points)


def _dist(a: Any, b: Any) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])
