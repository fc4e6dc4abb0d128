"""Servers the bot is in and leaves: their languages, and their matches called off without a
result when the bot leaves.

READY lists every server the bot is in (those in an outage too): matches elsewhere belong to
servers that removed the bot while it was away. A server removed while the bot runs (or deleted)
is told by its own event.

Each server's preferred locale, its language until ``/settings language:`` chooses one, is
stored from READY (all at once), on joining a server, when a server comes back from an outage and
when it changes (GUILD_UPDATE): posts made with no interaction (the sweeper's) need it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import discord
from discord.ext import commands

from bot.chat.app import Parlor
from bot.service.languages import Languages
from bot.service.organizing import Organizing

log = logging.getLogger(__name__)


class Servers(commands.Cog):
    def __init__(
        self, client: Parlor, organizing: Organizing, languages: Languages | None = None
    ) -> None:
        self.client = client
        self.organizing = organizing
        self.languages = languages
        self._ready = False
        """Whether READY's servers were taken in: until then, each server's own event is left
        to ``on_ready``'s one batch."""

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
            await self.organizing.abort_absent_guilds(
                {guild.id for guild in client.guilds}, serves=client.serves_guild
            )
            await self._preferred(client.guilds)
        self._ready = True

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        """Added to a server: its preferred locale is its language until one is chosen."""
        async with self.client.busy():
            await self._preferred([guild])

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        """A server back after an outage: its locale may have changed meanwhile."""
        if not self._ready:
            return  # the start: on_ready stores every server's at once
        async with self.client.busy():
            await self._preferred([guild])

    @commands.Cog.listener()
    async def on_guild_update(self, before: discord.Guild, after: discord.Guild) -> None:
        if before.preferred_locale != after.preferred_locale:
            async with self.client.busy():
                await self._preferred([after])

    async def _preferred(self, guilds: Sequence[discord.Guild]) -> None:
        """Store the servers' preferred locales (only those that changed): the sweeper posts
        in them with no interaction to read them from."""
        if self.languages is None:
            return
        locales = {guild.id: guild.preferred_locale.value for guild in guilds}
        changed = await self.languages.preferred(locales)
        if changed:
            log.info("Preferred locale stored for %d servers", changed)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """Removed from a server (or the server deleted): its matches are called off."""
        async with self.client.busy():
            await self.organizing.abort_guild(guild.id)
