"""Bytes of the Duell im Felsental board per answer (issue 21: the art is in a cached static file,
not in every answer).

Starts a server on a fresh SQLite file (as `make screenshots` does), sets positions up over the
JSON API with a fixed studio seed, and prints, per position, the size of the board element
(``<div class="fels …">``) in the match page the seat to act gets, raw and gzipped, and the
static files the board loads once. Hands are dealt at random by the server, so figures vary by a
few per cent between runs.

    PYTHONPATH=$PWD .venv/bin/python -m bench.felsental_board_bytes
"""

from __future__ import annotations

import gzip
import random
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from tests.browser.screenshots import _server
from tests.browser.studio import Studio, any_move

STATIC = ("/static/games/felsental/board.css", "/static/games/felsental/art.svg")


class _Board(HTMLParser):
    """Finds the extent of the first ``div.fels`` in a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.start: int | None = None
        self.end: int | None = None
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.end is not None or tag != "div":
            return
        classes = (dict(attrs).get("class") or "").split()
        if self.start is None and "fels" in classes:
            self.start = self._offset()
            self._depth = 1
        elif self.start is not None:
            self._depth += 1

    def handle_endtag(self, tag: str) -> None:
        if self.start is None or self.end is not None or tag != "div":
            return
        self._depth -= 1
        if self._depth == 0:
            self.end = self._offset() + len("</div>")

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

    def feed_page(self, page: str) -> str:
        self._line_starts = [0]
        for line in page.splitlines(keepends=True):
            self._line_starts.append(self._line_starts[-1] + len(line))
        self.feed(page)
        if self.start is None or self.end is None:
            raise ValueError("no Felsental board in the page")
        return page[self.start : self.end]


def _draw_first(match: dict[str, Any], rnd: random.Random) -> str:
    return "draw" if "draw" in match["legal"] else any_move(match, rnd)


POSITIONS: list[tuple[str, Any, Any]] = [
    ("start", lambda m: True, any_move),
    ("mid-game", lambda m: len(m["log"]) > 25, any_move),
    ("walk targets", lambda m: any(x.startswith("to:") for x in m["legal"]), any_move),
    ("defence prompt", lambda m: "accept" in m["legal"], any_move),
    ("eight cards", lambda m: len(m["view"].get("hand") or ()) >= 8, _draw_first),
]


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="drachenhort-bytes-") as tmp, _server(Path(tmp)) as server:
        studio = Studio(server.base_url, seed=11)
        users = studio.users("bya", "byb")
        print(f"{'position':<16} {'board bytes':>12} {'gzipped':>8}")
        for name, until, policy in POSITIONS:
            match_id = studio.match("felsental", users)
            actor = studio.play(match_id, users, 400, policy=policy, until=until)
            if actor is None:
                print(f"{name:<16} {'(match over)':>12}")
                continue
            page = actor.client.get(f"/matches/{match_id}").text
            board = _Board().feed_page(page).encode()
            print(f"{name:<16} {len(board):>12} {len(gzip.compress(board)):>8}")
        client = users[0].client
        for path in STATIC:
            answer = client.get(path)
            size = len(answer.content) if answer.status_code == 200 else 0
            print(f"{path:<40} {size:>8} bytes, once (cached)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
