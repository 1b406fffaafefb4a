"""Small pure pieces of the web layer: redirect targets, CSRF tokens, option parsing."""

from __future__ import annotations

import pytest
from sse_starlette import ServerSentEvent
from starlette.datastructures import FormData

from app.services.schemas import GameOut, LogEntry, OptionOut
from app.web.live_response import framed
from app.web.pages.lobby import parse_names, parse_options
from app.web.pages.matches import log_items, with_names
from app.web.redirects import safe_next
from app.web.security import csrf_matches, csrf_token


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("/matches/3", "/matches/3"),
        ("/invite/abc", "/invite/abc"),
        ("https://evil.example/", "/"),
        ("//evil.example/", "/"),
        ("/\\evil.example", "/"),
        ("/%09/evil.example", "/"),
        ("/\t/evil.example", "/"),
        ("/%0A/evil.example", "/"),
        ("/%2f/evil.example", "/"),
        ("/a b", "/"),
        ("/matches?order=recent", "/matches?order=recent"),
        ("/users/Jörg", "/users/J%C3%B6rg"),
        ("", "/"),
        (None, "/"),
    ],
)
def test_safe_next_only_allows_local_paths(given: str | None, expected: str) -> None:
    assert safe_next(given) == expected


def test_csrf_token_is_bound_to_its_cookie_and_key() -> None:
    token = csrf_token("k" * 32, "s:abc")
    assert csrf_matches("k" * 32, "s:abc", token)
    assert not csrf_matches("k" * 32, "s:abd", token)
    assert not csrf_matches("other-key" * 4, "s:abc", token)
    assert not csrf_matches("k" * 32, None, token)
    assert not csrf_matches("k" * 32, "s:abc", None)


TOY = GameOut(
    slug="toy",
    title="Toy",
    titles={"en": "Toy"},
    min_players=2,
    max_players=4,
    options=[
        OptionOut(key="short", label="Short", labels={"en": "Short"}, choices=[False, True], default=False)
    ],
)


def test_options_map_back_to_their_typed_choices() -> None:
    assert parse_options(TOY, FormData([("opt_short", "True")])) == {"short": True}
    assert parse_options(TOY, FormData([])) == {}


def test_an_option_value_outside_the_choices_is_refused() -> None:
    from app.services.errors import InvalidInput

    with pytest.raises(InvalidInput, match="short"):
        parse_options(TOY, FormData([("opt_short", "maybe")]))


def test_invite_names_split_on_commas_and_semicolons() -> None:
    assert parse_names(" anna, bert;  carl ,, ") == ["anna", "bert", "carl"]


def test_log_lines_name_the_players() -> None:
    names = {0: "anna", 1: "bo<b>"}
    assert with_names("Player 2 plays Red 5; Player 1 draws", names) == "bo<b> plays Red 5; anna draws"
    assert with_names("Spieler 1 ist am Zug", names) == "anna ist am Zug"
    assert with_names("Player 3 passes", names) == "Player 3 passes"  # no such seat: left alone
    assert with_names("Player 12 and Player 2x", names) == "Player 12 and Player 2x"
    assert with_names("Player 1 draws", {}) == "Player 1 draws"
    entry = LogEntry(seq=1, seat=1, text="Player 2 rolls", pieces=[], pending=False, kind="roll")
    # Names are escaped like all text, and drawn in their seat's colour.
    assert '<span class="who seat-1">bo&lt;b&gt;</span> rolls' in log_items([entry], "en", names)


def test_a_framed_event_is_what_sse_starlette_would_send() -> None:
    one_line = '{"a":"b\\\\nc","d":[1,2]}'
    assert framed("view", one_line) == ServerSentEvent(one_line, event="view").encode()
    two_lines = "first\nsecond"
    assert framed("view", two_lines) == ServerSentEvent(two_lines, event="view").encode()
    assert framed("view", two_lines).count(b"data: ") == 2


def test_the_fragment_store_keeps_at_most_its_size_and_drops_the_least_recently_used() -> None:
    from app.web.fragments import FragmentStore

    store = FragmentStore(2)
    renders: list[str] = []

    def render(text: str) -> str:
        renders.append(text)
        return text

    assert store.get(b"a", lambda: render("<a>")) == "<a>"
    store.get(b"b", lambda: render("<b>"))
    store.get(b"a", lambda: render("never"))  # kept: "a" is now the most recently used
    store.get(b"c", lambda: render("<c>"))  # the third: "b" goes
    assert len(store) == 2 and store.hits == 1
    store.get(b"a", lambda: render("never"))
    store.get(b"b", lambda: render("<b> again"))
    assert renders == ["<a>", "<b>", "<c>", "<b> again"]


def test_a_kept_fragment_tells_a_str_from_markup_and_the_languages_apart() -> None:
    import jinja2
    from markupsafe import Markup

    from app.web.fragments import KeptFragments

    env = jinja2.Environment(autoescape=True, extensions=[KeptFragments])
    template = env.from_string("{% kept x %}{{ x }} {{ locale }}{% endkept %}")
    assert template.render(x="<b>", locale="en") == "&lt;b&gt; en"
    assert template.render(x=Markup("<b>"), locale="en") == "<b> en"
    assert template.render(x="<b>", locale="de") == "&lt;b&gt; de"
