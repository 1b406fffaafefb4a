"""German for the services' most common fixed reasons (the services speak English).

A reason is shown translated when its exact text is in the catalogue, else as it is.
``N_`` only marks a string for extraction (``python -m app.i18n.extract``).
"""

from __future__ import annotations

from app.i18n import translations


def N_(text: str) -> str:
    """Mark ``text`` for extraction; the gettext convention for "mark, do not translate"."""
    return text


KNOWN_REASONS = (
    N_("wrong name or password"),
    N_("it is not your turn"),
    N_("please log in first"),
    N_("the CSRF token is missing or wrong: reload the page and try again"),
    N_("the database is not reachable: please retry"),
    N_("something went wrong on the server"),
    N_("there is nothing to undo: committed decisions are final"),
    N_("the match changed at the same moment: please try again"),
    N_("there is no free seat at this table"),
    N_("this match is not open for players any more"),
    N_("you already sit at this table"),
    N_("this invitation link is not valid"),
    N_("only the creator can cancel this match"),
    N_("a match that has started cannot be cancelled"),
    N_("a match that has started cannot be left"),
    N_("the creator cannot leave: cancel the match instead"),
    N_("only the players of this match can chat here"),
    N_("the message is empty"),
    N_("this match has not started: there is nothing to replay"),
    N_("there is no such step in this match (yet)"),
    N_("this match is not running"),
    N_("the password must not be the name"),
    N_("a name may use letters, digits, '_', '-' and '.' only"),
    N_("each player can be invited once"),
    N_("you sit at your own table already: do not invite yourself"),
    N_("a name may not mix letters of different scripts or digits of different kinds"),
    N_("this name looks too much like a name that is taken"),
    N_("too many failed logins: wait a little and try again"),
    N_("too many registrations from your address"),
)


def translate_reason(locale: str, reason: str) -> str:
    return str(translations(locale).gettext(reason))
