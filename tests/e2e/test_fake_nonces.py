"""The fake Discord answers a post repeated with the same enforced nonce as Discord does: with the
message the first post made, posting nothing new."""

from __future__ import annotations

import discord

from .fake_discord import FakeChannel, FakeDiscord


async def test_a_post_repeated_with_its_nonce_is_made_once(
    fake_discord: FakeDiscord, channel: FakeChannel
) -> None:
    client = discord.Client(intents=discord.Intents.default())
    async with fake_discord.connected(client):
        partial = client.get_partial_messageable(channel.id)
        first = await partial.send("hello", nonce="abc123")
        again = await partial.send("hello", nonce="abc123")
        other = await partial.send("hello", nonce="xyz789")
        plain = await partial.send("hello")
    assert again.id == first.id and other.id != first.id and plain.id != first.id
    assert [m.id for m in fake_discord.messages(channel)] == [first.id, other.id, plain.id]


async def test_the_same_nonce_posts_again_once_its_window_has_passed(
    fake_discord: FakeDiscord, channel: FakeChannel
) -> None:
    client = discord.Client(intents=discord.Intents.default())
    async with fake_discord.connected(client):
        partial = client.get_partial_messageable(channel.id)
        first = await partial.send("hello", nonce="abc123")
        fake_discord.advance_clock(10 * 60)
        later = await partial.send("hello", nonce="abc123")
    assert later.id != first.id
