"""The fake Discord when the bot is removed from a guild, or a member leaves one."""

from __future__ import annotations

import discord
import pytest

from .fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeMember


class Watcher(discord.Client):
    """Records the guilds it was removed from and the members it saw leave."""

    def __init__(self, intents: discord.Intents) -> None:
        super().__init__(intents=intents, guild_ready_timeout=0.02)
        self.removed: list[int] = []
        self.left: list[int] = []

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        self.removed.append(guild.id)

    async def on_raw_member_remove(self, payload: discord.RawMemberRemoveEvent) -> None:
        self.left.append(payload.user.id)


async def test_a_removed_guild_is_deleted_and_its_channels_unknown(
    fake_discord: FakeDiscord, guild: FakeGuild, channel: FakeChannel
) -> None:
    client = Watcher(discord.Intents.default())
    async with fake_discord.connected(client):
        assert client.get_guild(guild.id) is not None
        fake_discord.remove_guild(guild)
        await fake_discord.wait_until(lambda: client.removed, what="GUILD_DELETE")
        assert client.removed == [guild.id] and client.get_guild(guild.id) is None
        with pytest.raises(discord.NotFound):
            await client.get_partial_messageable(channel.id).send("still here?")


@pytest.mark.parametrize("members_intent", [False, True])
async def test_a_member_leaving_is_told_only_with_the_members_intent(
    fake_discord: FakeDiscord, guild: FakeGuild, alice: FakeMember, members_intent: bool
) -> None:
    client = Watcher(discord.Intents(guilds=True, members=members_intent))
    async with fake_discord.connected(client):
        fake_discord.remove_member(guild, alice)
        assert guild.member(alice.id) is None
        # Events arrive in order: once the next one is in, a member event would be too.
        fake_discord.remove_guild(guild)
        await fake_discord.wait_until(lambda: client.removed, what="GUILD_DELETE")
        assert client.left == ([alice.id] if members_intent else [])
