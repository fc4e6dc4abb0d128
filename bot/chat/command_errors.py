"""The private answer to a slash command that failed before or outside the match service.

Registered on the client's command tree by the composition root (``bot.wiring``), with the
process's ``Followups`` for a command already deferred and the client's ``dispatch``, which
tells the request watch how the command ended (``COMMAND_ENDED``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands

from bot.chat.app import NOT_A_MEMBER, NOT_A_MEMBER_TO_CHALLENGE
from bot.chat.failures import FAILED
from bot.chat.followups import Followups
from bot.chat.request_outcomes import COMMAND_ENDED, FAILED_OUTCOME, REFUSED
from bot.i18n import _
from bot.service.failures import log_failure

log = logging.getLogger(__name__)


class CommandErrors:
    """Answers a failed command privately; ``dispatch`` is the client's."""

    def __init__(self, followups: Followups, dispatch: Callable[..., None]) -> None:
        self.followups = followups
        self.dispatch = dispatch

    async def answer(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        """The command tree's error handler: a refusal or a failure, told privately."""
        outcome = REFUSED
        if isinstance(error, app_commands.MissingPermissions):
            text = _("You need the Manage Server permission for this command.")
        elif isinstance(error, app_commands.NoPrivateMessage):
            text = _("This command works in a server channel, not in DMs.")
        elif _not_a_member(error):
            command = interaction.command
            challenge = command is not None and command.name == "challenge"
            text = _(NOT_A_MEMBER_TO_CHALLENGE if challenge else NOT_A_MEMBER)
        else:
            cause = error.original if isinstance(error, app_commands.CommandInvokeError) else error
            log_failure(log, "command of user %s failed", interaction.user.id, error=cause)
            text, outcome = _(FAILED), FAILED_OUTCOME
        self.dispatch(COMMAND_ENDED, interaction, outcome)
        if interaction.response.is_done():
            await self.followups.send(interaction, text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)


def _not_a_member(error: app_commands.AppCommandError) -> bool:
    """A user option that needs a member got a user who is not in the server.

    Discord resolves such a user without member data, and discord.py refuses to make a
    ``Member`` of it.
    """
    return isinstance(error, app_commands.TransformerError) and (
        error.type is discord.AppCommandOptionType.user and isinstance(error.value, discord.User)
    )
