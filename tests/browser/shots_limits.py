"""Screenshot scenes of the paged lists (issue 19.5): the lobby's second page, a profile with
more running matches than one page, and a chat with more lines than one page ("earlier")."""

from __future__ import annotations

from typing import Any

from app.services import lobby, notify, play, profiles
from tests.browser.studio import Shot, Studio, scene


def _show_chat(page: Any) -> None:
    page.locator("#chat-heading").scroll_into_view_if_needed()


def _earlier_chat(page: Any) -> None:
    page.locator(".chat-earlier-button").click()
    page.wait_for_selector(".chat-earlier-button", state="detached")
    page.locator("#chat .chat-list li").first.scroll_into_view_if_needed()


@scene("paged")
def paged(studio: Studio) -> list[Shot]:
    host, guest = studio.users("uwe", "vera")
    tables = max(lobby.OPEN_PAGE, profiles.PROFILE_PAGE) + 3
    for _ in range(tables):
        host.post("/api/matches", {"game": "felsental", "seats": 2})
    chatty = studio.match("felsental", [host, guest])
    for n in range(play.CHAT_PAGE + 4):
        speaker = host if n % 2 else guest
        speaker.post(f"/api/matches/{chatty}/messages", {"text": f"Line {n + 1}: good luck, have fun"})
    return [
        Shot("lobby-page-1", "/", guest),
        Shot("lobby-page-2", "/?page=2", guest),
        Shot("profile-paged", f"/users/{host.name}", guest),
        Shot("chat-newest", f"/matches/{chatty}", guest, _show_chat),
        Shot("chat-earlier", f"/matches/{chatty}", guest, _earlier_chat),
    ]


@scene("paged-mine")
def paged_mine(studio: Studio) -> list[Shot]:
    """My matches and the notifications with more than a page each: every match resigned at
    once (each ending notifies both players)."""
    me, rival = studio.users("wilma", "xaver")
    for _ in range(max(lobby.FINISHED_PAGE, notify.LIST_LIMIT) + 2):
        match_id = studio.match("felsental", [me, rival])
        rival.post(f"/api/matches/{match_id}/resign", {})
    return [
        Shot("my-matches-paged", "/matches", me),
        Shot("my-matches-page-2", "/matches?page=2", me),
        Shot("notifications-paged", "/notifications", me),
        Shot("notifications-page-2", "/notifications?page=2", me),
    ]
