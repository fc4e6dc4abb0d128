"""``/crown``: Capture the Crown."""

from __future__ import annotations

from typing import Literal

from discord import app_commands

from bot.chat.app import Parlor
from bot.chat.games.cog import Coordinate3, GameCog, Interaction, Option, challenge_command


class Crown(
    GameCog,
    group_name="crown",
    group_description="Capture the Crown: find your opponent's hidden Crown on a 3x3 grid.",
):
    game = "crown"

    challenge = challenge_command(
        "crown",
        hints=Option(
            Literal["defender", "auto"],
            "Who picks the hint after a miss: the defender (default) or the bot, always.",
        ),
    )

    @app_commands.command(description="Attack a cell of your opponent's grid.")
    @app_commands.describe(row="Row, 1-3 from the top.", col="Column, 1-3 from the left.")
    async def attack(self, interaction: Interaction, row: Coordinate3, col: Coordinate3) -> None:
        await self.play(interaction, f"{row} {col}")


async def setup(bot: Parlor) -> None:
    await bot.add_cog(Crown(bot))
