"""``/claim``: Number Claim: its commands (the board and its buttons are the game's)."""

from __future__ import annotations

from typing import Literal

from discord import app_commands

import games
from bot.chat.matches.game_commands import (
    GameCog,
    Interaction,
    Option,
    challenge_command,
)
from bot.chat.matches.places import playable_anywhere
from bot.chat.request_outcomes import REFUSED, settle
from bot.i18n import _

Number = app_commands.Range[int, 1, 16]
Coordinate = app_commands.Range[int, 1, 4]


@playable_anywhere
class Claim(
    GameCog,
    group_name="claim",
    group_description="Number Claim: claim numbers from a shared grid; the higher total wins.",
):
    game = "claim"

    challenge = challenge_command(
        "claim",
        size=Option(Literal[3, 4], "Grid size: 3 (numbers 1-9, the default) or 4 (1-16)."),
        hidden=Option(bool, "Hide the numbers until claimed, so players claim cells."),
    )

    @app_commands.command(
        name=games.get("claim").move_command,
        description="Claim a number, or a cell by row and col when hidden.",
    )
    @app_commands.describe(
        number="The number to claim.",
        row="Row of the cell to claim (counted from the top).",
        col="Column of the cell to claim (counted from the left).",
    )
    async def pick(
        self,
        interaction: Interaction,
        number: Number | None = None,
        row: Coordinate | None = None,
        col: Coordinate | None = None,
    ) -> None:
        if number is not None and row is None and col is None:
            await self.play(interaction, str(number))
        elif number is None and row is not None and col is not None:
            await self.play(interaction, f"{row} {col}")
        else:
            await interaction.response.send_message(
                _("Give either `number` (e.g. 7), or both `row` and `col` (e.g. row 2, col 3)."),
                ephemeral=True,
            )
            settle(interaction, REFUSED)


COG = Claim
"""The game's command group, added by the composition root."""
