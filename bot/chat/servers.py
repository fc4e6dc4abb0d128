"""Servers the bot leaves: their matches are called off without a result.

READY lists every server the bot is in (those in an outage too): matches elsewhere belong to
servers that removed the bot while it was away. A server removed while the bot runs (or deleted)
is told by its own event.
"""

from __future__ import annotations

import logging

import discord
from discord.ext import commands

from bot.chat.app import Parlor
from bot.service.matches import MatchService

log = logging.getLogger(__name__)


class Servers(commands.Cog):
    def __init__(self, client: Parlor, service: MatchService) -> None:
        self.client = client
        self.service = service

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        client = self.client
        assert client.user is not None
        log.info(
            "Logged in as %s (id %s) in %d servers", client.user, client.user.id, len(client.guilds)
        )
        shards = ", ".join(map(str, sorted(client.shards)))
        log.info("Running shard %s of %s", shards, client.shard_count)
        async with client.busy():
            await self.service.abort_absent_guilds(
                {guild.id for guild in client.guilds}, serves=client.serves_guild
            )

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """Removed from a server (or the server deleted): its matches are called off."""
        async with self.client.busy():
            await self.service.abort_guild(guild.id)


async def setup(bot: Parlor) -> None:
    await bot.add_cog(Servers(bot, bot.parts.service))
