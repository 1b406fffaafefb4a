"""Moments as a reader reads them: in their time zone and language ("heute 08:09", "in 2 Tagen").

Pure functions over an aware UTC datetime, a locale and an IANA zone name; the pages wrap
them in ``<time>`` elements that static/js/times.js keeps current in the browser's own zone.
"""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from babel.dates import format_date, format_datetime, format_time, format_timedelta

from app.i18n import translations

UTC = ZoneInfo("UTC")


@cache
def zone_names() -> tuple[str, ...]:
    """Every IANA zone this machine knows, sorted (read once per process)."""
    return tuple(sorted(available_timezones()))


def zone(name: str | None) -> tzinfo:
    """The zone called ``name``, UTC for none or an unknown name."""
    if not name or name not in zone_names():
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def full(moment: datetime, locale: str, where: tzinfo) -> str:
    """The whole moment with its zone, e.g. for a hover title: "05.12.2026, 08:09:00 MEZ"."""
    return (
        format_datetime(moment, "medium", tzinfo=where, locale=locale)
        + " "
        + _zone_label(moment, where, locale)
    )


def calendar(moment: datetime, locale: str, where: tzinfo, now: datetime) -> str:
    """A past or coming moment by its day: "heute 08:09", "gestern 21:30", "3. Dez. 2026, 07:09"."""
    gettext = translations(locale).gettext
    day, today = moment.astimezone(where).date(), now.astimezone(where).date()
    clock = format_time(moment, "short", tzinfo=where, locale=locale)
    if day == today:
        return gettext("today %(time)s") % {"time": clock}
    if day == today - timedelta(days=1):
        return gettext("yesterday %(time)s") % {"time": clock}
    if day == today + timedelta(days=1):
        return gettext("tomorrow %(time)s") % {"time": clock}
    return format_date(day, "medium", locale=locale) + ", " + clock


def relative(moment: datetime, locale: str, now: datetime) -> str:
    """How far off a moment is: "in 2 Tagen", "vor 3 Stunden"."""
    return format_timedelta(moment - now, add_direction=True, threshold=1.0, locale=locale)


def _zone_label(moment: datetime, where: tzinfo, locale: str) -> str:
    return format_datetime(moment, "zzzz" if where is UTC else "z", tzinfo=where, locale=locale)
