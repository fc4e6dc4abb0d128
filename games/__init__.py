"""The five games of Parlor, by short name.

The short name is the slash command group, the database value and the button id prefix.
"""

from __future__ import annotations

from games.base import AnyGame
from games.claim import GAME as claim
from games.crown import GAME as crown
from games.crystal import GAME as crystal
from games.flag import GAME as flag
from games.safe import GAME as safe

GAMES: dict[str, AnyGame] = {g.name: g for g in (crown, claim, crystal, flag, safe)}


def get(name: str) -> AnyGame:
    """The game called ``name``. Raises ``KeyError`` listing the valid names."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; games: {', '.join(GAMES)}") from None
