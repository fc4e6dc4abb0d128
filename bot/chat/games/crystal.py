"""``/crystal``: Crystal Capture: its commands, its board and its buttons."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.chat.components import Button, Layout, Verb, press
from bot.chat.drawing import Drawing
from bot.chat.game_cog import GameCog, Interaction, challenge_command
from bot.i18n import _
from bot.service.notices import MatchSnapshot
from games.crystal import CRYSTALS, TARGET


class Crystal(
    GameCog,
    group_name="crystal",
    group_description="Crystal Capture: take crystals 1-9; reach exactly 15 to win.",
):
    game = "crystal"

    challenge = challenge_command("crystal")

    @app_commands.command(description="Take a crystal from the pool.")
    @app_commands.describe(crystal="The crystal to take, 1-9.")
    async def take(self, interaction: Interaction, crystal: app_commands.Range[int, 1, 9]) -> None:
        await self.play(interaction, str(crystal))


class CrystalDrawing(Drawing):
    def moves(self, snap: MatchSnapshot, seat: int) -> Layout:
        """Crystals 1-9; a taken one, or one that would take the mover over 15, is disabled
        and says which."""
        view = snap.public_view
        room = TARGET - view.points[seat]
        buttons = []
        for crystal in CRYSTALS:
            if crystal not in view.pool:
                label, allowed = _("{number} · taken", number=crystal), False
            elif crystal > room:
                label, allowed = _("{number} · over {target}", number=crystal, target=TARGET), False
            else:
                label, allowed = str(crystal), True
            verb = Verb.PLAY if allowed else Verb.NOOP
            style = discord.ButtonStyle.primary if allowed else discord.ButtonStyle.secondary
            buttons.append(Button(label, press(snap, verb, str(crystal)), style, not allowed))
        return (tuple(buttons[:5]), tuple(buttons[5:]))


DRAWING = CrystalDrawing()


COG = Crystal
"""The game's command group, added by the composition root."""
