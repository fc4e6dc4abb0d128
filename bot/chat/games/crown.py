"""``/crown``: Capture the Crown: its commands, its board and its buttons."""

from __future__ import annotations

from typing import Literal

from discord import app_commands

from bot.chat.components import Button, Layout, Verb, press
from bot.chat.drawing import Drawing
from bot.chat.game_cog import Coordinate3, GameCog, Interaction, Option, challenge_command
from bot.i18n import _
from bot.service.notices import MatchSnapshot
from games.crown import SIZE


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


class CrownDrawing(Drawing):
    def moves(self, snap: MatchSnapshot, seat: int) -> Layout:
        view = snap.public_view
        attacked = {record.cell for record in view.attacks[seat]}
        rows = []
        for row in range(1, SIZE + 1):
            buttons = []
            for col in range(1, SIZE + 1):
                cell = (row, col)
                arg = f"{row} {col}"
                if cell in attacked:
                    buttons.append(Button("✕", press(snap, Verb.NOOP, arg), disabled=True))
                else:
                    buttons.append(Button(f"{row},{col}", press(snap, Verb.PLAY, arg)))
            rows.append(tuple(buttons))
        return tuple(rows)

    def secret_picker(self, snap: MatchSnapshot) -> Layout:
        """The 3x3 grid to hide one's Crown on."""
        return tuple(
            tuple(
                Button(f"{row},{col}", press(snap, Verb.SECRET, f"{row} {col}"))
                for col in range(1, SIZE + 1)
            )
            for row in range(1, SIZE + 1)
        )

    def secret_hint(self, snap: MatchSnapshot) -> str:
        return _("Press a cell, or type it here as `row col`, e.g. `2 3`.")


DRAWING = CrownDrawing()


COG = Crown
"""The game's command group, added by the composition root."""
