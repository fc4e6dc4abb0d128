"""One module per game, named for it: its command group (``COG``) and, if it needs one, its
``PRIVATE_SIDE`` (``bot.chat.games.private_side``).

The modules are found by the games' short names (``games.GAMES``), so a new game needs no entry
here.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import games
from bot.chat.games.private_side import PrivateSide
from bot.chat.matches.game_commands import GameCog

MODULES: dict[str, ModuleType] = {
    name: importlib.import_module(f"{__name__}.{name}") for name in games.GAMES
}


PLAIN = PrivateSide()
"""The private side of a game whose module needs none of its own."""


def private_side(game: str) -> PrivateSide:
    """What ``game`` says and opens privately on Discord."""
    found: PrivateSide = getattr(MODULES[game], "PRIVATE_SIDE", PLAIN)
    return found


def game_cogs() -> list[type[GameCog]]:
    """Every game's command group, each to be built with the parts it uses."""
    return [MODULES[name].COG for name in games.GAMES]
