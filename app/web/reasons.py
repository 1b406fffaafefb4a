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
    N_("names that read like a bot's are kept for the computer opponents"),
    N_("a bot cannot log in: it has no password"),
    N_("the request body is too large"),
    N_("the request body did not arrive in time"),
    N_("the address contains control characters"),
    N_("the message contains control characters"),
    N_("the message contains characters that change the direction of text"),
    N_("the message contains invisible characters"),
    N_("the message stacks too many marks on one character"),
    N_("you have too many open tables: start or cancel one first"),
    N_("you have too many running matches against the computer: finish one first"),
    N_("you have sent too many invitations: please wait a while"),
    N_("you are writing too fast: please wait a moment"),
    N_("you have resigned: the server plays your turns"),
    N_("you have too many live pages open: close some first"),
    N_("this changed at the same moment: please try again"),
    N_("the current password is not right"),
    N_("the new password and its repetition differ"),
    N_("too many wrong passwords: wait a little"),
    N_("that is not a time zone (they read like Europe/Berlin)"),
    N_("a player at this table has blocked you: you cannot write here"),
    N_("you have asked too many people to be your friends: please wait a while"),
    N_("that is you"),
    N_("computer opponents have no friends"),
    N_("type the start of a name"),
    N_("head-to-head needs two different players"),
    N_("on this server only administrators create tournaments"),
)


def translate_reason(locale: str, reason: str) -> str:
    return str(translations(locale).gettext(reason))
