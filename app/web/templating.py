"""Jinja2 rendering: one environment per locale, gettext installed, autoescape on."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from functools import cache, lru_cache, partial
from pathlib import Path
from typing import Any

import jinja2
from babel.dates import format_date
from markupsafe import Markup
from starlette.background import BackgroundTask
from starlette.responses import HTMLResponse

from app.db.types import utcnow
from app.engine.registry import UnknownGame, get_game
from app.i18n import LOCALES, times, translations
from app.services._rows import game_title
from app.web import charts
from app.web.fragments import KeptFragments

TEMPLATE_DIR = Path(__file__).resolve().parents[2] / "templates"


class TemplateResponse(HTMLResponse):
    """An HTML response that remembers its template and context (tests may assert them)."""

    def __init__(
        self,
        template: str,
        context: Mapping[str, Any],
        content: str,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
        background: BackgroundTask | None = None,
    ) -> None:
        self.template = template
        self.context = dict(context)
        super().__init__(content, status_code, headers, background=background)


class _Environment(jinja2.Environment):
    """Jinja's environment, reading a plain dict's keys as attributes without an error first.

    The games' views are plain dicts (JSON), and a board reads a thousand of their keys as
    ``s.kind``; Jinja asks ``getattr`` first and takes the key only after an AttributeError,
    which made a third of a Draco board's render time (``bench/appcpu.py --pages``). Names of
    dict methods still mean the methods, as in Jinja: the answers are the same."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_NAMES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


_DICT_NAMES = frozenset(dir(dict))


@cache
def environment(locale: str) -> jinja2.Environment:
    """The template environment of one locale (made once per process)."""
    if locale not in LOCALES:
        raise ValueError(f"unsupported locale {locale!r}")
    env = _Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
        autoescape=True,
        extensions=["jinja2.ext.i18n", KeptFragments],
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.install_gettext_translations(translations(locale), newstyle=True)  # type: ignore[attr-defined]
    env.globals["_"] = _translate(locale)
    env.globals["locale"] = locale
    env.globals["choice_label"] = _choice_label(locale)
    # Summaries carry the English title; pages name games in their own language.
    env.globals["game_name"] = partial(game_title, locale=locale)
    env.globals["match_options"] = _match_options(locale)
    env.globals["moment"] = _moment(locale)
    env.globals["date_of"] = partial(format_date, format="medium", locale=locale)
    env.globals["rating_graph"] = partial(
        charts.rating_graph, date_of=partial(format_date, format="short", locale=locale)
    )
    return env


def _translate(locale: str) -> Any:
    """``_("…", name=value)``: what Jinja's newstyle ``_`` gives with autoescape on (the
    translation as markup, ``%`` with the keyword variables, so a literal percent is ``%%``),
    without its three context calls a use. A match area says a dozen words, rendered for every
    seat of every version (``bench/appcpu.py --pages``). The templates pass literals only, so the
    translations without variables are kept (bounded all the same)."""
    gettext = translations(locale).gettext

    @lru_cache(maxsize=4096)
    def plain(message: str) -> Markup:
        return Markup(gettext(message)) % {}

    def translate(message: str, **variables: Any) -> Markup:
        return Markup(gettext(message)) % variables if variables else plain(message)

    return translate


def _moment(locale: str) -> Any:
    """``moment(dt, relative=False)``: a ``<time>`` in the page's time zone and language, the
    whole moment on hover; static/js/times.js renders it again in the browser's own zone and
    keeps relative ones ("in 2 days") current. Fragments rendered without a page (live
    pushes) fall back to UTC until the script has run."""

    @jinja2.pass_context
    def moment(context: Any, when: datetime | None, relative: bool = False) -> Markup:
        if when is None:
            return Markup("")
        where, now = times.zone(context.get("time_zone")), utcnow()
        text = times.relative(when, locale, now) if relative else times.calendar(when, locale, where, now)
        return Markup('<time datetime="{}" title="{}" data-moment="{}">{}</time>').format(
            when.isoformat(), times.full(when, locale, where), "relative" if relative else "calendar", text
        )

    return moment


def _match_options(locale: str) -> Any:
    """``match_options(slug, options)``: each option of a match as (label, chosen value), in
    the game's order and the reader's language (unknown games and keys as they are)."""
    label_of = _choice_label(locale)

    def options(slug: str, chosen: Mapping[str, Any]) -> list[tuple[str, str]]:
        try:
            declared = get_game(slug).info.options
        except UnknownGame:
            declared = ()
        known = {o.key: o.label.get(locale) or o.label.get("en") or o.key for o in declared}
        order = [o.key for o in declared if o.key in chosen] + [k for k in chosen if k not in known]
        return [(known.get(key, key), label_of(chosen[key])) for key in order]

    return options


def _choice_label(locale: str) -> Any:
    gettext = translations(locale).gettext

    def label(choice: Any) -> str:
        if choice is True:
            return gettext("yes")
        if choice is False:
            return gettext("no")
        return str(choice)

    return label


def render_string(locale: str, template: str, context: Mapping[str, Any]) -> str:
    return environment(locale).get_template(template).render(context)


def render(
    locale: str,
    template: str,
    context: Mapping[str, Any],
    *,
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
) -> TemplateResponse:
    content = render_string(locale, template, context)
    return TemplateResponse(template, context, content, status_code, headers)
