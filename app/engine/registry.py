"""The registry of games: each game package registers itself on import."""

from __future__ import annotations

from app.engine.protocol import Game

_GAMES: dict[str, Game] = {}


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


def get_game(slug: str) -> Game:
    try:
        return _GAMES[slug]
    except KeyError:
        raise UnknownGame(f"there is no game called {slug!r}") from None


def all_games() -> list[Game]:
    """Every registered game, by slug."""
    return [_GAMES[slug] for slug in sorted(_GAMES)]
