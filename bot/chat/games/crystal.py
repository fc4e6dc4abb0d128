"""``/crystal``: Crystal Capture: its commands (the board and its buttons are the game's)."""

from __future__ import annotations

from discord import app_commands

import games
from bot.chat.matches.game_commands import (
    GameCog,
    Interaction,
    challenge_command,
)
from bot.chat.matches.places import playable_anywhere


@playable_anywhere
class Crystal(
    GameCog,
    group_name="crystal",
    group_description="Crystal Capture: take crystals 1-9; reach exactly 15 to win.",
):
    game = "crystal"

    challenge = challenge_command("crystal")

    @app_commands.command(
        name=games.get("crystal").move_command, description="Take a crystal from the pool."
    )
    @app_commands.describe(crystal="The crystal to take, 1-9.")
    async def take(self, interaction: Interaction, crystal: app_commands.Range[int, 1, 9]) -> None:
        await self.play(interaction, str(crystal))


COG = Crystal
"""The game's command group, added by the composition root."""
