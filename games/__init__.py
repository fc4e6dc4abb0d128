"""The five games of Parlor, by short name.

The short name is the slash command group, the database value and the button id prefix.
"""

from __future__ import annotations

from games import claim, crown, crystal, flag, safe
from games.base import AnyGame

GAMES: dict[str, AnyGame] = {m.GAME.name: m.GAME for m in (crown, claim, crystal, flag, safe)}


def get(name: str) -> AnyGame:
    """The game called ``name``. Raises ``KeyError`` listing the valid names."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; games: {', '.join(GAMES)}") from None
