"""``/flag``: Flag Chase: its commands and the trap cell picker (the buttons are the game's)."""

from __future__ import annotations

from discord import app_commands

import games
from bot.chat.components import Post, Press, Verb
from bot.chat.games.private_side import PrivateSide
from bot.chat.matches.controls import layout
from bot.chat.matches.game_commands import (
    Coordinate5,
    GameCog,
    Interaction,
    challenge_command,
)
from bot.chat.matches.places import playable_anywhere
from bot.chat.parts import Parts
from bot.i18n import _
from bot.service.errors import AlreadyPlayed, InvalidMove
from bot.service.notices import MatchSnapshot
from games.flag import GAME, View, own_traps


@playable_anywhere
class Flag(
    GameCog,
    group_name="flag",
    group_description="Flag Chase: reach the other flag on a 5x5 grid, around hidden traps.",
):
    game = "flag"

    challenge = challenge_command("flag")

    @app_commands.command(
        name=games.get("flag").move_command, description="Move your agent to a cell next to it."
    )
    @app_commands.describe(row="Row, 1-5 from the top.", col="Column, 1-5 from the left.")
    async def move(self, interaction: Interaction, row: Coordinate5, col: Coordinate5) -> None:
        await self.play(interaction, f"{row} {col}")

    @app_commands.command(description="Place a trap in secret: I ask you privately for its cell.")
    async def trap(self, interaction: Interaction) -> None:
        await self.parts.requests.show(interaction, lambda: self.send_trap_picker(interaction))

    async def send_trap_picker(self, interaction: Interaction) -> Post:
        """DM the caller their trap cell picker; the picker itself when their DMs are closed."""
        match_id = await self.match_of(interaction)
        prompt = await self.parts.matches.lookups.prompt(match_id, interaction.user.id)
        view = prompt.view
        if not view.traps_left[view.seat]:
            raise InvalidMove(_("You have placed both your traps: move your agent instead."))
        picker = PRIVATE_SIDE.trap_picker(prompt.match, view)
        if prompt.match.by_interaction_only:
            return picker  # no DM where the match is reached only through interactions
        if await self.parts.dms.send_dm(interaction.user.id, picker):
            return Post(_("I sent you the trap cell picker by DM."))
        closed = _("I cannot DM you (your DMs are closed), so pick the cell here.")
        return Post(f"{closed}\n{picker.content}", layout=picker.layout)


class FlagPrivateSide(PrivateSide):
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
        choices = GAME.choices(view)
        if not choices.actions:
            raise InvalidMove(_("It is not your turn: the other player is to act."))
        cells = layout(snap, choices)
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
        if not snap.by_interaction_only:  # no DM is read for a match outside servers
            text += "\n" + _("In a DM you may also type it, e.g. `TRAP 3 4`.")
        return Post(text, layout=cells)


PRIVATE_SIDE = FlagPrivateSide()


COG = Flag
"""The game's command group, added by the composition root."""
