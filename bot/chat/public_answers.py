"""Answers the channel sees: an embed (and a chart) built in the server's language, a failure
told to the member alone."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from contextlib import AbstractContextManager
from typing import Any

import discord

from bot.chat.failures import FAILED
from bot.chat.followups import Followups
from bot.chat.readers import in_server_language
from bot.chat.request_outcomes import FAILED_OUTCOME, settle
from bot.i18n import _
from bot.service.failures import log_failure
from bot.service.languages import Languages

Interaction = discord.Interaction[Any]

log = logging.getLogger(__name__)

ANSWER_WITHIN = 2.0
"""Seconds an answer is awaited before the interaction is deferred (Discord allows 3)."""


Shown = tuple[discord.Embed, discord.File | None]
"""A public answer: its embed, and a file the embed shows as its image (a chart), if any."""


async def answer_publicly(
    interaction: Interaction,
    making: Awaitable[Shown],
    followups: Followups,
    languages: Languages | None = None,
) -> None:
    """Answer with the embed (and file) ``making`` builds, for the channel to see; a failure
    privately. After a deferral the answer is a followup ``followups`` creates.

    A deferral cannot be private for a failure and public for a success, so the answer is
    awaited first: a failure then goes to the member alone. Only when it takes longer than
    ``ANSWER_WITHIN`` is the interaction deferred publicly ("thinking"); a failure after that
    deletes the placeholder and is told to the member alone all the same.
    """
    public = await in_server_language(languages, interaction.guild_id or 0)
    work = asyncio.ensure_future(_made_in(public, making))
    done, _pending = await asyncio.wait({work}, timeout=ANSWER_WITHIN)
    if not done:
        await interaction.response.defer(thinking=True)
    try:
        embed, file = await work
    except Exception:
        log_failure(log, "command of user %s failed", interaction.user.id)
        if interaction.response.is_done():
            await interaction.delete_original_response()
            await followups.send(interaction, _(FAILED), ephemeral=True)
        else:
            await interaction.response.send_message(_(FAILED), ephemeral=True)
        settle(interaction, FAILED_OUTCOME)
        return
    none = discord.AllowedMentions.none()
    files = [] if file is None else [file]
    if file is not None:
        embed.set_image(url=f"attachment://{file.filename}")
    if interaction.response.is_done():
        await followups.send(interaction, embed=embed, files=files, allowed_mentions=none)
    else:
        await interaction.response.send_message(embed=embed, files=files, allowed_mentions=none)


async def _made_in(language: AbstractContextManager[None], making: Awaitable[Shown]) -> Shown:
    """What ``making`` builds, written in ``language``."""
    with language:
        return await making
