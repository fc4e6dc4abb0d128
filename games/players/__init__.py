"""Built-in players for the five games, at three levels: ``easy``, ``normal`` and ``hard``.

A player decides from its own seat's view and legal actions only, never from the state::

    player = player_for("crown", "hard")
    action = player.choose(game.view(state, seat), game.ask(state, seat),
                           game.legal_actions(state, seat), rng)
    state, events = game.apply(state, seat, action)

or, the same in one call, ``action = decide(game, state, seat, player, rng)``. Ask whenever
the bot's seat is in ``game.to_act(state)``: the answer is its secret, its Crown hint or its
move, as ``ask`` says. ``rng`` is a ``random.Random``; seed it from the match (for example
``random.Random(f"{match_seed}:{version}")``) and a replay makes the same choices. Players
keep no state between calls, so one player may serve every match.

- ``easy`` plays a random legal action.
- ``hard`` plays the game's strategy (``strategy`` in ``games.players.<game>``, the module named
  for the game): optimal where the game is
  solved (Crown, Crystal, open Number Claim, 27-code Safe), a search elsewhere.
- ``normal`` plays like ``hard`` but a random legal action a quarter of the time.
"""

from __future__ import annotations

import importlib
import random
from typing import Any

import games
from games.base import AnyGame, Seat
from games.players.base import (
    DEFAULT_LEVEL,
    LEVELS,
    AnyPlayer,
    Level,
    LevelledPlayer,
    Player,
    Strategy,
)

__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "AnyPlayer",
    "Level",
    "LevelledPlayer",
    "Player",
    "decide",
    "player_for",
]


def player_for(game_name: str, level: str = DEFAULT_LEVEL) -> LevelledPlayer[Any, Any]:
    """The built-in player for ``game_name`` at ``level``.

    Raises ``KeyError`` for an unknown game and ``ValueError`` for an unknown level, each
    listing the valid names.
    """
    games.get(game_name)  # an unknown game is refused with the valid names
    module = importlib.import_module(f"{__name__}.{game_name}")
    strategy: Strategy[Any, Any] = module.strategy
    for known in LEVELS:
        if known == level:
            return LevelledPlayer(game=game_name, level=known, strategy=strategy)
    raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")


def decide(game: AnyGame, state: Any, seat: Seat, player: AnyPlayer, rng: random.Random) -> Any:
    """What ``player`` does for ``seat`` now, decided from ``seat``'s view only.

    The state is only projected to the seat's view and legal actions here; the player never
    receives it. Raises ``ValueError`` when ``seat`` may not act.
    """
    if seat not in game.to_act(state):
        raise ValueError(f"seat {seat} may not act now")
    return player.choose(
        game.view(state, seat), game.ask(state, seat), game.legal_actions(state, seat), rng
    )
