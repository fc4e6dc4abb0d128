"""The games of Parlor, by short name.

The short name is the module, the slash command group, the database value and the button id
prefix. A game is a module here that defines ``GAME``; it is found by that alone.
"""

from __future__ import annotations

import importlib
import pkgutil

from games.base import TELLERS, AnyGame


def _find_games() -> dict[str, AnyGame]:
    found: dict[str, AnyGame] = {}
    for module_info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        game: AnyGame | None = getattr(module, "GAME", None)
        if game is not None:
            found[game.name] = game
            TELLERS[game.name] = game.tell
    return dict(sorted(found.items()))


GAMES: dict[str, AnyGame] = _find_games()


def get(name: str) -> AnyGame:
    """The game called ``name``. Raises ``KeyError`` listing the valid names."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; games: {', '.join(GAMES)}") from None
