"""``/flag``: Flag Chase."""

from __future__ import annotations

from discord import app_commands

from bot.chat.app import Parlor
from bot.chat.games.cog import Coordinate5, GameCog, Interaction, challenge_command
from bot.chat.render import Post, trap_picker_post
from bot.service.errors import InvalidMove


class Flag(
    GameCog,
    group_name="flag",
    group_description="Flag Chase: reach the other flag on a 5x5 grid, around hidden traps.",
):
    game = "flag"

    challenge = challenge_command("flag")

    @app_commands.command(description="Move your agent to a cell next to it.")
    @app_commands.describe(row="Row, 1-5 from the top.", col="Column, 1-5 from the left.")
    async def move(self, interaction: Interaction, row: Coordinate5, col: Coordinate5) -> None:
        await self.play(interaction, f"MOVE {row} {col}")

    @app_commands.command(description="Place a trap in secret: I ask you for its cell by DM.")
    async def trap(self, interaction: Interaction) -> None:
        await self.bot.delivery.show(interaction, lambda: self.send_trap_picker(interaction))

    async def send_trap_picker(self, interaction: Interaction) -> Post:
        """DM the caller their trap cell picker; the picker itself when their DMs are closed."""
        match_id = await self.match_of(interaction)
        prompt = await self.bot.service.prompt(match_id, interaction.user.id)
        view = prompt.view
        if not view.traps_left[view.seat]:
            raise InvalidMove("You have placed both your traps: move your agent instead.")
        picker = trap_picker_post(prompt.match, view)
        if await self.bot.delivery.send_dm(interaction.user.id, picker):
            return Post("I sent you the trap cell picker by DM.")
        closed = "I cannot DM you (your DMs are closed), so pick the cell here.\n"
        return Post(closed + picker.content, layout=picker.layout)


async def setup(bot: Parlor) -> None:
    await bot.add_cog(Flag(bot))
