"""Bytes of the Draco board per answer (issue 21: the art stays in cached static files).

Starts a server on a fresh SQLite file, sets up a four-seat Draco match over the JSON API,
plays ``--moves`` random decisions and prints, for the seat to act and for a spectator, the
size of the match page, of the area fragment (what a decision's answer and a live push carry)
and of the board's ``.draco`` element inside it; then the static art files the browser caches.
Prints figures, asserts nothing. Run:
    .venv/bin/python bench/draco_board_bytes.py [--moves 12]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import importlib  # noqa: E402
from typing import Any  # noqa: E402

# The test support (a server on a fresh database, the API studio), loaded by name: mypy checks
# bench/ and app/, not tests/.
_studio: Any = importlib.import_module("tests.browser.studio")
_db: Any = importlib.import_module("tests.support.db")
_server: Any = importlib.import_module("tests.support.server")

_BOARD = re.compile(r'<div class="draco[ "].*?<div class="draco-side', re.S)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=12)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="drachenhort-bytes-") as tmp:
        directory = Path(tmp)
        with _db.fresh_database(directory) as url:
            server = _server.Server(url, directory / "server")
            server.start()
            try:
                _measure(server.base_url, args.moves)
            finally:
                server.stop()
    for name in sorted((ROOT / "static" / "games" / "draco").iterdir()):
        print(f"static {name.relative_to(ROOT)}: {name.stat().st_size} bytes (cached)")
    return 0


def _measure(base_url: str, moves: int) -> None:
    studio = _studio.Studio(base_url)
    users = studio.users("bytes-a", "bytes-b", "bytes-c", "bytes-d")
    match = studio.match("draco", users)
    studio.play(match, users, moves, policy=_studio.any_move)
    actor = studio.to_act(match, users) or users[0]
    for who, client in (("seat to act", actor.client), ("spectator", None)):
        if client is None:
            import httpx

            client = httpx.Client(base_url=base_url, timeout=30.0)
        page = client.get(f"/matches/{match}").text
        area = client.get(f"/matches/{match}/area", headers={"HX-Request": "true"}).text
        board = _BOARD.search(area)
        print(
            f"{who}: match page {len(page.encode())} bytes, area fragment {len(area.encode())} bytes, "
            f"board (.draco stage) {len(board.group(0).encode()) if board else 0} bytes"
        )


if __name__ == "__main__":
    raise SystemExit(main())
