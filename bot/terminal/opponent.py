"""The built-in player as the person's opponent at the terminal."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from bot.i18n import _
from bot.terminal.names import BOT_NAME, seat_names
from games.base import AnyGame, Event, Seat, other
from games.players import DEFAULT_LEVEL, Level, LevelledPlayer, decide, player_for


@dataclass(frozen=True)
class Bot:
    """The built-in player at ``level`` in ``seat``; the person at the terminal has the other."""

    seat: Seat = 1
    level: Level = DEFAULT_LEVEL


@dataclass(frozen=True)
class BotSeat:
    """The bot during one game: its player, and its randomness seeded from the game's seed."""

    seat: Seat
    player: LevelledPlayer[Any, Any]
    rng: random.Random

    @classmethod
    def start(cls, game: AnyGame, bot: Bot, seed: int) -> BotSeat:
        return cls(bot.seat, player_for(game.name, bot.level), random.Random(f"{seed}:bot"))

    def introduction(self) -> str:
        """``You are Player 1; Parlor, the built-in player (normal), is Player 2.``"""
        you, bot = seat_names()[other(self.seat)], seat_names()[self.seat]
        return _(
            "You are {you}; {name}, the built-in player ({level}), is {seat}.",
            you=you,
            name=BOT_NAME,
            level=_(self.player.level),
            seat=bot,
        )

    def answer(self, game: AnyGame, state: Any) -> tuple[Any, list[Event]]:
        """Decide from the bot's own view and play it; the state after it and its events."""
        action = decide(game, state, self.seat, self.player, self.rng)
        return game.apply(state, self.seat, action)
