"""``/flag``: Flag Chase: its commands, its board, its buttons and the trap cell picker."""

from __future__ import annotations

import discord
from discord import app_commands

import games
from bot.chat.components import Button, Layout, Post, Press, Verb, press
from bot.chat.drawing import Drawing
from bot.chat.game_cog import Coordinate5, GameCog, Interaction, challenge_command
from bot.chat.parts import Parts
from bot.i18n import _
from bot.service.errors import AlreadyPlayed, InvalidMove
from bot.service.notices import MatchSnapshot
from games.flag import SIZE, View, own_traps


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
        await self.parts.requests.show(interaction, lambda: self.send_trap_picker(interaction))

    async def send_trap_picker(self, interaction: Interaction) -> Post:
        """DM the caller their trap cell picker; the picker itself when their DMs are closed."""
        match_id = await self.match_of(interaction)
        prompt = await self.parts.matches.lookups.prompt(match_id, interaction.user.id)
        view = prompt.view
        if not view.traps_left[view.seat]:
            raise InvalidMove(_("You have placed both your traps: move your agent instead."))
        picker = DRAWING.trap_picker(prompt.match, view)
        if await self.parts.dms.send_dm(interaction.user.id, picker):
            return Post(_("I sent you the trap cell picker by DM."))
        closed = _("I cannot DM you (your DMs are closed), so pick the cell here.")
        return Post(f"{closed}\n{picker.content}", layout=picker.layout)


ARROWS = {
    (-1, -1): "↖",
    (-1, 0): "↑",
    (-1, 1): "↗",
    (0, -1): "←",
    (0, 1): "→",
    (1, -1): "↙",
    (1, 0): "↓",
    (1, 1): "↘",
}


class FlagDrawing(Drawing):
    def moves(self, snap: MatchSnapshot, seat: int) -> Layout:
        """The 8 steps around the agent and, in the middle, the trap button.

        Only public facts disable a step (the grid's edge, the other agent): the mover's own traps
        are left enabled, since disabling them here would show the traps to everyone.
        """
        view = snap.public_view
        here = view.agents[seat]
        there = view.agents[1 - seat]
        rows = []
        for d_row in (-1, 0, 1):
            buttons = []
            for d_col in (-1, 0, 1):
                if (d_row, d_col) == (0, 0):
                    left = view.traps_left[seat]
                    label = _("Trap ({n} left)", n=left)
                    verb = Verb.TRAP if left else Verb.NOOP
                    buttons.append(
                        Button(
                            label, press(snap, verb), discord.ButtonStyle.danger, disabled=not left
                        )
                    )
                    continue
                cell = (here[0] + d_row, here[1] + d_col)
                arg = f"MOVE {cell[0]} {cell[1]}"
                on_grid = 1 <= cell[0] <= SIZE and 1 <= cell[1] <= SIZE
                arrow = ARROWS[(d_row, d_col)]
                if not on_grid:
                    buttons.append(Button(arrow, press(snap, Verb.NOOP, arg), disabled=True))
                elif cell == there:
                    buttons.append(
                        Button(
                            f"{arrow} {cell[0]},{cell[1]}",
                            press(snap, Verb.NOOP, arg),
                            disabled=True,
                        )
                    )
                else:
                    buttons.append(
                        Button(
                            f"{arrow} {cell[0]},{cell[1]}",
                            press(snap, Verb.PLAY, arg),
                            discord.ButtonStyle.primary,
                        )
                    )
            rows.append(tuple(buttons))
        return tuple(rows)

    def own_secrets(self, view: View) -> str | None:
        """The member's own traps (their view holds them; nobody else's does)."""
        return own_traps(view)

    async def open(self, interaction: Interaction, press: Press, parts: Parts) -> bool:
        """The trap cell picker, for the board the Trap button was on."""
        if press.verb != Verb.TRAP:
            return False

        async def picker() -> Post:
            prompt = await parts.matches.lookups.prompt(press.match_id, interaction.user.id)
            if prompt.match.version != press.version:
                raise AlreadyPlayed(
                    _("That board is out of date: use the buttons on the latest one.")
                )
            return self.trap_picker(prompt.match, prompt.view)

        await parts.requests.show(interaction, picker, stale=press)
        return True

    def trap_picker(self, snap: MatchSnapshot, view: View) -> Post:
        """The 5x5 grid a player picks a trap cell from (private: it shows their own traps)."""
        seat = view.seat
        assert seat is not None, "the picker is drawn from a player's own view"
        own = set(view.traps[seat] or ())
        blocked = {*view.flags, *view.agents}
        rows = []
        for row in range(1, SIZE + 1):
            buttons = []
            for col in range(1, SIZE + 1):
                cell = (row, col)
                arg = f"TRAP {row} {col}"
                if cell in own:
                    buttons.append(
                        Button(_("your trap"), press(snap, Verb.NOOP, arg), disabled=True)
                    )
                elif cell in view.flags:
                    buttons.append(Button(_("flag"), press(snap, Verb.NOOP, arg), disabled=True))
                elif cell in blocked:
                    buttons.append(Button(_("agent"), press(snap, Verb.NOOP, arg), disabled=True))
                else:
                    buttons.append(
                        Button(
                            f"{row},{col}", press(snap, Verb.PLAY, arg), discord.ButtonStyle.danger
                        )
                    )
            rows.append(tuple(buttons))
        left = view.traps_left[seat]
        text = _(
            "**{game}, match #{id}**: pick the cell for a trap ({n} left). Nobody else sees this.",
            game=games.get(snap.game).title,
            id=snap.id,
            n=left,
        )
        own_line = self.own_secrets(view)
        if own_line:
            text += f"\n{own_line}"
        text += "\n" + _("In a DM you may also type it, e.g. `TRAP 3 4`.")
        return Post(text, layout=tuple(rows))


DRAWING = FlagDrawing()


COG = Flag
"""The game's command group, added by the composition root."""
