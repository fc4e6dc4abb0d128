"""Answers typed by DM while the bot was away, read once it is back.

Once the gateway is ready, each DM channel where a prompt is still awaited
(``AwaitedAnswers.awaited``) is read after its prompt (``GET /channels/{id}/messages?after=``),
oldest first, and what the member typed there is answered as a live DM would be
(``TypedAnswers.take``), each message once: a DM another start or the live event took already
is passed over.
"""

from __future__ import annotations

import logging

import discord

from bot.chat.app import Parlor
from bot.chat.dms.typed import TypedAnswers
from bot.service.dm_answers import Awaited, AwaitedAnswers
from bot.service.failures import log_failure

log = logging.getLogger(__name__)


class MissedAnswers:
    """Reads the answers typed while the bot was away, for one bot process."""

    def __init__(self, client: Parlor, answers: AwaitedAnswers, typed: TypedAnswers) -> None:
        self.client = client
        self.answers = answers
        self.typed = typed

    async def catch_up(self) -> int:
        """Answer what members typed after the prompts still awaited: how many DMs were taken."""
        read = 0
        for channel_id, prompt_id in awaited_channels(await self.answers.awaited()).items():
            try:
                read += await self._read(channel_id, prompt_id)
            except discord.HTTPException:
                log_failure(log, "reading the DM channel %s after a prompt failed", channel_id)
        if read:
            log.info("Read %d DMs typed while the bot was away", read)
        return read

    async def _read(self, channel_id: int, prompt_id: int) -> int:
        me = self.client.user
        oldest = self.answers.oldest()
        channel = self.client.get_partial_messageable(channel_id, type=discord.ChannelType.private)
        read = 0
        history = channel.history(limit=None, after=discord.Object(prompt_id), oldest_first=True)
        async for message in history:
            if self.client.closing:  # the next start reads the rest
                break
            if message.author.bot or (me is not None and message.author.id == me.id):
                continue
            if not message.content.strip() or message.created_at < oldest:
                continue
            read += await self.typed.take(message)
        return read


def awaited_channels(awaited: list[Awaited]) -> dict[int, int]:
    """Each DM channel with a prompt awaited, and its oldest such prompt: a member's prompts
    share their DM channel, which is read once."""
    after: dict[int, int] = {}
    for prompt in awaited:
        oldest = after.get(prompt.channel_id, prompt.message_id)
        after[prompt.channel_id] = min(oldest, prompt.message_id)
    return after
