"""The registry of games: each game package registers itself on import."""

from __future__ import annotations

from app.engine.protocol import Game

_GAMES: dict[str, Game] = {}
_EARLIER: dict[tuple[str, str], Game] = {}
"""Earlier rulesets kept for the matches begun under them, by (slug, ruleset)."""


class UnknownGame(LookupError):
    """No game is registered under that slug."""


def register(game: Game) -> Game:
    """Make ``game`` available under its slug; registering the same slug twice is a bug."""
    if _GAMES.get(game.slug, game) is not game:
        raise ValueError(f"game {game.slug!r} is registered twice")
    _GAMES[game.slug] = game
    return game


def unregister(slug: str) -> None:
    """Remove a game (tests register throwaway games)."""
    _GAMES.pop(slug, None)


def register_earlier(game: Game) -> Game:
    """Keep an earlier ruleset of a game (its ``info.ruleset``) for the matches begun under it."""
    _EARLIER[(game.slug, game.info.ruleset)] = game
    return game


def get_game(slug: str, ruleset: str | None = None) -> Game:
    """The game; with a match's ``ruleset``, the rules that match was begun under (the current
    ones unless that earlier ruleset is kept: most rules fixes apply to running matches too)."""
    try:
        game = _GAMES[slug]
    except KeyError:
        raise UnknownGame(f"there is no game called {slug!r}") from None
    if ruleset is None or ruleset == game.info.ruleset:
        return game
    return _EARLIER.get((slug, ruleset), game)


def all_games() -> list[Game]:
    """Every registered game, by slug."""
    return [_GAMES[slug] for slug in sorted(_GAMES)]
