"""Asking first: resign, leave, cancel and abort say what follows before they happen.

Each such action has a GET page (or, with scripts, the same text in a dialog) whose form posts
the action with ``confirmed=yes``; a post without it answers with that page instead of acting,
so no form or stale page can end a match in one click.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated

from fastapi import Form, Request
from starlette.responses import Response

from app.services.schemas import UserOut
from app.web.pages.common import page

CONFIRMED = "yes"
Confirmed = Annotated[str, Form(max_length=8)]
"""The confirmation page's hidden field; anything but ``yes`` asks first."""


@dataclass(frozen=True, slots=True)
class Question:
    title: str
    consequences: Sequence[str]
    action: str
    """Where the confirming form posts."""
    button: str
    back: str
    """Where "keep playing" leads."""


def ask(request: Request, locale: str, user: UserOut, question: Question) -> Response:
    """The question as a page, or as the dialog's content for a script (``HX-Request``)."""
    partial = request.headers.get("hx-request") == "true"
    template = "play/_confirm.html" if partial else "play/confirm.html"
    return page(request, template, locale=locale, user=user, q=question)
