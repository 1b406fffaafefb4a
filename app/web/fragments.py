"""``{% kept key, ... %}…{% endkept %}``: a template fragment rendered once per key.

A board is rendered again for every seat and every version, yet most of it did not change: of
a Draco board's thirty spaces and ten dragons, a decision moves one or two. A ``kept`` block's
output is kept under its template, its place in it, the page's ``locale`` and the values of
its key, in a bounded store of the environment (least recently used out first), and a render
with the same key takes it from there (``bench/appcpu.py --pages``).

The key must name everything the block shows: whatever the block reads that is not in its
key is the first render's, for every later one with that key. Seat-dependent reads (whose
piece is "mine", the legal moves) belong in the key or outside the block; the boards' render
tests (tests/games/draco/ and drachenland/test_board_render.py) render positions for every
seat with and without the store and compare them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import orjson
from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.parser import Parser
from markupsafe import Markup

MAX_FRAGMENTS = 8192
"""Per locale: a Draco board with 5 seats holds ~60 fragments, ~0.5 KB each."""


class KeptFragments(Extension):
    tags = {"kept"}  # noqa: RUF012 - Jinja's own declaration of a tag

    def __init__(self, environment: Any) -> None:
        super().__init__(environment)
        environment.extend(kept_fragments=FragmentStore(MAX_FRAGMENTS))

    def parse(self, parser: Parser) -> nodes.Node:
        lineno = next(parser.stream).lineno
        # The page's language is part of every key: an environment may serve several.
        parts: list[nodes.Expr] = [nodes.Const(parser.name), nodes.Const(lineno)]
        parts.append(nodes.Name("locale", "load"))
        parts.append(parser.parse_expression())
        while parser.stream.skip_if("comma"):
            parts.append(parser.parse_expression())
        body = parser.parse_statements(("name:endkept",), drop_needle=True)
        key = nodes.Tuple(parts, "load")
        return nodes.CallBlock(self.call_method("_kept", [key]), [], [], body).set_lineno(lineno)

    def _kept(self, key: tuple[Any, ...], caller: Callable[[], str]) -> Markup:
        return self.environment.kept_fragments.get(_frozen(key), caller)  # type: ignore[attr-defined, no-any-return]


class FragmentStore:
    """At most ``size`` rendered fragments by key, the least recently used dropped first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.enabled = True
        """Off: every block renders (the tests' reference)."""
        self._kept: OrderedDict[bytes, Markup] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0

    def get(self, key: bytes, render: Callable[[], str]) -> Markup:
        if not self.enabled:
            return Markup(render())
        with self._lock:  # pages render on the event loop, but a thread may render too
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
                self.hits += 1
                return kept
        kept = Markup(render())
        with self._lock:
            self._kept[key] = kept
            if len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return kept

    def __len__(self) -> int:
        return len(self._kept)


def _frozen(key: tuple[Any, ...]) -> bytes:
    """The key as bytes: the views' values are JSON (orjson, ~1 us for a dragon); anything
    else, a str or int subclass included, by its type and repr."""
    return orjson.dumps(key, default=_other, option=orjson.OPT_PASSTHROUGH_SUBCLASS)


def _other(value: Any) -> str:
    return f"{type(value).__qualname__}:{value!r}"
