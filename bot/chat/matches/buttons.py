"""Restart-proof buttons (the forms some open are in ``bot.chat.matches.forms``).

Every button is a ``discord.ui.DynamicItem`` whose ``custom_id`` carries the game, the match id,
the match version and what to do (see ``bot.chat.components.Press``). The classes are bound to
the parts they use and registered once by the composition root (``button_items``), so a button
sent before a restart still works after it: a click is handled from its ``custom_id`` and the
database alone.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.chat.boards.render import prompt_post
from bot.chat.components import (
    ACTION_TEMPLATE,
    CHALLENGE_TEMPLATE,
    NOOP_TEMPLATE,
    OPEN_TEMPLATE,
    Layout,
    Post,
    Press,
    Verb,
)
from bot.chat.games import private_side
from bot.chat.matches.carried import Carried, Pressed, carried_view
from bot.chat.matches.game_commands import Interaction
from bot.chat.parts import Parts
from bot.chat.readers import acting_of
from bot.i18n import _
from bot.service.notices import BoardRoute, Report
from games.base import Ask

log = logging.getLogger(__name__)

__all__ = ["button_items", "to_view"]


def to_view(layout: Layout) -> discord.ui.View | None:
    """The ``layout`` as a view of buttons the registered items answer (``None`` when it has no
    button). The view never times out."""
    if not layout:
        return None
    return carried_view(
        *(
            Carried(
                label=spec.label,
                custom_id=spec.press.custom_id,
                style=spec.style,
                disabled=spec.disabled,
                row=row_index,
            )
            for row_index, row in enumerate(layout)
            for spec in row
        )
    )


class _PressButton(Pressed, template=r"(?!)"):
    """A button that knows its ``Press``; only its subclasses are registered."""

    def __init__(self, button: discord.ui.Button[Any], match: re.Match[str]) -> None:
        super().__init__(button, match)
        self.press = Press.from_match(match)


class ShownButton(_PressButton, template=NOOP_TEMPLATE):
    """A disabled button that only shows something (an attacked cell, a claimed number).

    Discord does not send presses of disabled buttons; the class exists so that every button
    on a message is answered and no per-message view has to be kept.
    """

    async def callback(self, interaction: Interaction) -> None:
        await interaction.response.send_message(_("That button does nothing."), ephemeral=True)


def button_items(parts: Parts) -> tuple[type[_PressButton], ...]:
    """The board's buttons, answered through ``parts``: register them once with
    ``client.add_dynamic_items``."""
    matches, requests = parts.matches, parts.requests

    class ChallengeButton(_PressButton, template=CHALLENGE_TEMPLATE):
        """Accept, Decline, Withdraw on a challenge; Rematch on a finished board."""

        async def callback(self, interaction: Interaction) -> None:
            press, user, challenges = self.press, acting_of(interaction), matches.challenges
            calls = {
                Verb.ACCEPT: challenges.accept,
                Verb.DECLINE: challenges.decline,
                Verb.WITHDRAW: challenges.withdraw,
                Verb.REMATCH: challenges.rematch,
            }
            use_case, guild = calls[press.verb], interaction.guild_id
            await requests.run(
                interaction,
                lambda board: use_case(press.match_id, user, guild_id=guild, board=board),
            )

    class ActionButton(_PressButton, template=ACTION_TEMPLATE):
        """A move, a hint or a trap cell (version-checked), or a setup secret (not
        version-checked).

        Secrets are not checked against the version: both players choose theirs at the same
        time, so the other player's secret moves the version on without making this one stale.
        """

        async def callback(self, interaction: Interaction) -> None:
            press, user = self.press, acting_of(interaction)
            version = press.version if press.verb == Verb.PLAY else None
            answering = {Ask.SECRET} if press.verb == Verb.SECRET else None

            async def submit(board: BoardRoute) -> Report:
                return await matches.play.submit(
                    press.match_id,
                    user,
                    press.arg,
                    expected_version=version,
                    answering=answering,
                    guild_id=interaction.guild_id,
                    board=board,
                )

            await requests.run(interaction, submit, stale=press)

    class OpenButton(_PressButton, template=OPEN_TEMPLATE):
        """Opens something private: what the game's module opens (a trap cell picker, a code
        form), else the presser's prompt (a refused DM's)."""

        async def callback(self, interaction: Interaction) -> None:
            press = self.press
            if await private_side(press.game).open(interaction, press, parts):
                return
            await requests.show(
                interaction, lambda: _private_prompt(interaction, press, parts), stale=press
            )

    return ChallengeButton, ActionButton, OpenButton, ShownButton


async def _private_prompt(interaction: Interaction, press: Press, parts: Parts) -> Post:
    """What the presser is asked for (a secret, a hint), to answer in the channel privately."""
    prompt = await parts.matches.lookups.prompt(
        press.match_id, interaction.user.id, guild_id=interaction.guild_id
    )
    snap = prompt.match
    server = parts.dms.server_name(snap.guild_id)
    return prompt_post(prompt, server=server, board=parts.places.board_url(snap))
