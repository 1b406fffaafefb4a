"""Registers the toy game; a test server imports it through DRACHENHORT_EXTRA_GAMES."""

from app.engine.registry import register
from tests.support.toygame import TOY

register(TOY)
