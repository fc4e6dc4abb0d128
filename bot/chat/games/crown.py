"""``/crown``: Capture the Crown: its commands and how its secret is asked."""

from __future__ import annotations

from typing import Literal

from discord import app_commands

import games
from bot.chat.games.private_side import PrivateSide
from bot.chat.matches.game_commands import (
    Coordinate3,
    GameCog,
    Interaction,
    Option,
    challenge_command,
)
from bot.chat.matches.places import playable_anywhere
from bot.i18n import _
from bot.service.notices import MatchSnapshot


@playable_anywhere
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

    @app_commands.command(
        name=games.get("crown").move_command, description="Attack a cell of your opponent's grid."
    )
    @app_commands.describe(row="Row, 1-3 from the top.", col="Column, 1-3 from the left.")
    async def attack(self, interaction: Interaction, row: Coordinate3, col: Coordinate3) -> None:
        await self.play(interaction, f"{row} {col}")


class CrownPrivateSide(PrivateSide):
    def secret_hint(self, snap: MatchSnapshot) -> str:
        return _("Press a cell, or type it here as `row col`, e.g. `2 3`.")


PRIVATE_SIDE = CrownPrivateSide()


COG = Crown
"""The game's command group, added by the composition root."""
