"""``/safe``: Safe Cracker: its commands, its board and its buttons."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.chat.boards import number
from bot.chat.components import Button, Layout, Verb, press
from bot.chat.drawing import Drawing
from bot.chat.game_cog import GameCog, Interaction, Option, challenge_command
from bot.service.notices import MatchSnapshot
from games.base import SEATS
from games.safe import Options, SafeView

if TYPE_CHECKING:
    from bot.chat.app import Parlor

SAFE_ROWS = 10
"""Guesses shown per player: the latest ones, so a long game stays well under 1,000 characters."""


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


class SafeDrawing(Drawing):
    def board(self, view: SafeView, names: tuple[str, str]) -> str:
        """Each player's guesses (the latest ``SAFE_ROWS``) with their exact matches."""
        lines = []
        for seat in SEATS:
            records = view.guesses[seat]
            # Once over, the code each player was after, revealed beside their guesses.
            code = view.codes[1 - seat] if view.outcome is not None else None
            target = f" at 🔓 {''.join(number(d) for d in code)}" if code is not None else ""
            lines.append(f"{names[seat]}'s guesses{target}:")
            if not records:
                lines.append("(none yet)")
            elif len(records) > SAFE_ROWS:
                lines.append(f"… {len(records) - SAFE_ROWS} earlier")
            for record in records[-SAFE_ROWS:]:
                digits = "".join(number(d) for d in record.code)
                lines.append(f"{digits} 🎯 {record.exact}/{view.options.length}")
        return "\n".join(lines)

    def moves(self, snap: MatchSnapshot, seat: int) -> Layout:
        return ((Button("Guess", press(snap, Verb.GUESS), discord.ButtonStyle.primary),),)

    def secret_picker(self, snap: MatchSnapshot) -> Layout:
        return ((Button("Set my code", press(snap, Verb.CODE), discord.ButtonStyle.primary),),)

    def secret_hint(self, snap: MatchSnapshot) -> str:
        code = Options.from_mapping(snap.options)
        return (
            f"Press **Set my code**, or type your code here: {code.shape}, e.g. `{code.example}`."
        )


DRAWING = SafeDrawing()


async def setup(bot: Parlor) -> None:
    await bot.add_cog(Safe(bot))
