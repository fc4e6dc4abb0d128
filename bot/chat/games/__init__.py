"""One module per game, named for it: its command group (``COG``) and, if it needs one, its
``DRAWING`` (``bot.chat.drawing``).

The modules are found by the games' short names (``games.GAMES``), so a new game needs no entry
here.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import games
from bot.chat.drawing import Drawing
from bot.chat.game_cog import GameCog

MODULES: dict[str, ModuleType] = {
    name: importlib.import_module(f"{__name__}.{name}") for name in games.GAMES
}


PLAIN = Drawing()
"""The drawing of a game whose module needs none of its own."""


def drawing(game: str) -> Drawing:
    """How ``game`` is drawn on Discord."""
    found: Drawing = getattr(MODULES[game], "DRAWING", PLAIN)
    return found


def game_cogs() -> list[type[GameCog]]:
    """Every game's command group, each to be built with the parts it uses."""
    return [MODULES[name].COG for name in games.GAMES]
