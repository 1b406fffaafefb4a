"""Playing a match: views, decisions (the move path), the chat, and live pushes.

- ``views``: the match as one viewer may see it, with the newest part of its log;
- ``decisions``: submit, undo, confirm — one atomic write each;
- ``chat``: the table's chat;
- ``loaded``/``log``: the per-process cache of parsed matches and their log lines.
"""

from app.services.play.chat import CHAT_PAGE, list_messages, post_message
from app.services.play.decisions import confirm_turn, submit_move, undo_move
from app.services.play.views import get_match, get_match_page, get_seats, log_page

__all__ = [
    "CHAT_PAGE",
    "confirm_turn",
    "get_match",
    "get_match_page",
    "get_seats",
    "list_messages",
    "log_page",
    "post_message",
    "submit_move",
    "undo_move",
]
