"""Posts each ended season's podium in its server's season channel, once.

The service owes a podium from the transaction that closes its season; the sweep loop claims
what is owed (one process at a time, for a minute) and shows it here. The post carries a nonce
made from the season, and its message is recorded the moment it exists: a later attempt (the
process died before it recorded that the podium is shown, Discord failed) edits that message in
place, and one made before the message was recorded posts with the same nonce, which Discord
answers with the first post for a few minutes. After a longer stop the attempt first looks for
the post among the channel's latest messages, by its footer. So a podium is posted once, however
late the bot comes back.
"""

from __future__ import annotations

import hashlib
import logging

import discord

from bot.chat.readers import in_server_language
from bot.chat.seasons.texts import marker, podium_post
from bot.service.failures import log_failure
from bot.service.languages import Languages
from bot.service.seasons import PodiumDue, Seasons

log = logging.getLogger(__name__)

LOOK_BACK = 50
"""The channel's latest messages searched for a post an earlier attempt made but did not record."""
SILENT = discord.AllowedMentions.none()


def podium_nonce(season_id: int) -> str:
    """The podium post's nonce (Discord takes at most 25 characters)."""
    return hashlib.blake2b(f"season:{season_id}".encode(), digest_size=10).hexdigest()


class PodiumDesk:
    """Shows the podiums owed, from the sweep loop of one bot process."""

    def __init__(
        self, seasons: Seasons, client: discord.Client, *, languages: Languages | None = None
    ) -> None:
        self.seasons = seasons
        self.client = client
        self.languages = languages

    async def sweep(self) -> None:
        """Show every podium owed (each on its own: one failing is tried again when its claim
        runs out)."""
        for due in await self.seasons.due_podiums():
            try:
                await self.show(due)
            except discord.HTTPException as error:
                log.warning(
                    "server %s: could not post the podium of season %s: HTTP %s",
                    due.guild_id,
                    due.season_id,
                    error.status,
                )
            except Exception:
                log_failure(log, "server %s: podium of season %s", due.guild_id, due.season_id)

    async def show(self, due: PodiumDue) -> None:
        board = await self.seasons.podium(due.season_id)
        with await in_server_language(self.languages, due.guild_id):
            content, embeds = podium_post(board)
        channel = self.client.get_partial_messageable(due.channel_id, guild_id=due.guild_id)
        message_id = due.message_id
        if message_id is None and due.attempts > 0:
            message_id = await self._earlier_post(channel, marker(board))
        if message_id is not None:
            try:
                await channel.get_partial_message(message_id).edit(
                    content=content, embeds=embeds, allowed_mentions=SILENT
                )
            except discord.NotFound:
                message_id = None  # deleted meanwhile: posted anew below
            else:
                if due.message_id is None:
                    await self.seasons.podium_message(due.season_id, message_id)
        if message_id is None:
            message = await channel.send(
                content=content,
                embeds=embeds,
                allowed_mentions=SILENT,
                nonce=podium_nonce(due.season_id),
            )
            await self.seasons.podium_message(due.season_id, message.id)
        await self.seasons.podium_shown(due.season_id)
        log.info("server %s: podium of season %s shown", due.guild_id, board.number)

    async def _earlier_post(self, channel: discord.PartialMessageable, footer: str) -> int | None:
        """The podium an earlier attempt posted without recording it, among the channel's
        latest messages (none found, or the history not readable: ``None``)."""
        me = self.client.user
        try:
            async for message in channel.history(limit=LOOK_BACK):
                if me is not None and message.author.id != me.id:
                    continue
                if any(embed.footer.text == footer for embed in message.embeds):
                    return message.id
        except discord.HTTPException as error:
            log.info("could not read channel %s's history: HTTP %s", channel.id, error.status)
        return None
