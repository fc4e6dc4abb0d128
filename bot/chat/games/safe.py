"""``/safe``: Safe Cracker."""

from __future__ import annotations

from discord import app_commands

from bot.chat.app import Parlor
from bot.chat.games.cog import GameCog, Interaction, Option, challenge_command


class Safe(
    GameCog,
    group_name="safe",
    group_description="Safe Cracker: crack your opponent's secret code from exact matches.",
):
    game = "safe"

    challenge = challenge_command(
        "safe",
        digits=Option(app_commands.Range[int, 3, 9], "Largest digit in a code, 3-9 (default 3)."),
        length=Option(app_commands.Range[int, 3, 6], "Digits in a code, 3-6 (default 3)."),
        max_guesses=Option(
            app_commands.Range[int, 1, 50],
            "Guesses each; then the best single guess wins (default: no limit).",
        ),
    )

    @app_commands.command(description="Guess your opponent's code.")
    @app_commands.describe(code="Your guess, digits only, e.g. 213.")
    async def guess(self, interaction: Interaction, code: app_commands.Range[str, 1, 20]) -> None:
        await self.play(interaction, code)


async def setup(bot: Parlor) -> None:
    await bot.add_cog(Safe(bot))
