"""Interaction tokens expire 15 minutes after the interaction, on the fake's clock.

After that every use of the token, the callback included, answers 401 with code 50027 "Invalid
Webhook Token". The tests move the fake's clock instead of waiting.
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands

from .fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeMember

FIFTEEN_MINUTES = 15 * 60


class LateBot(discord.Client):
    """``/late`` defers, then follows up once the test opens the gate; ``/silent`` never answers."""

    def __init__(self, guild_id: int) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.02)
        self.tree = app_commands.CommandTree(self)
        self.guild = discord.Object(guild_id)
        self.gate = asyncio.Event()
        self.errors: list[discord.HTTPException] = []

        @self.tree.command(description="Answers late", guild=self.guild)
        async def late(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.defer(thinking=True)
            await self.gate.wait()
            try:
                await interaction.followup.send("late")
            except discord.HTTPException as error:
                self.errors.append(error)

        @self.tree.command(description="Never answers", guild=self.guild)
        async def silent(interaction: discord.Interaction[Any]) -> None:
            return None

    async def setup_hook(self) -> None:
        await self.tree.sync(guild=self.guild)


@pytest.mark.parametrize(
    ("waited", "expired"), [(FIFTEEN_MINUTES - 1, False), (FIFTEEN_MINUTES + 1, True)]
)
async def test_a_followup_works_for_fifteen_minutes_then_the_token_is_invalid(
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    channel: FakeChannel,
    alice: FakeMember,
    waited: int,
    expired: bool,
) -> None:
    bot = LateBot(guild.id)
    async with fake_discord.connected(bot):
        interaction = await fake_discord.slash(alice, channel, "late")
        await fake_discord.wait_until(lambda: interaction.deferred, what="the deferral")
        fake_discord.advance_clock(waited)
        bot.gate.set()
        await fake_discord.wait_until(lambda: bot.errors or interaction.answered)
    assert interaction.original is not None
    if not expired:
        assert not bot.errors
        assert interaction.original.content == "late"
        return
    [error] = bot.errors
    assert (error.status, error.code, error.text) == (401, 50027, "Invalid Webhook Token")
    assert interaction.original.loading  # the user still sees "is thinking..."


async def test_every_use_of_an_expired_token_is_refused(
    fake_discord: FakeDiscord, guild: FakeGuild, channel: FakeChannel, alice: FakeMember
) -> None:
    async with fake_discord.connected(LateBot(guild.id)):
        interaction = await fake_discord.slash(alice, channel, "silent")
    fake_discord.advance_clock(FIFTEEN_MINUTES + 1)
    base = fake_discord.api_base
    webhook = f"{base}/webhooks/{fake_discord.application_id}/{interaction.token}"
    attempts = [
        ("POST", f"{base}/interactions/{interaction.id}/{interaction.token}/callback", {"type": 5}),
        ("POST", webhook, {"content": "late"}),
        ("GET", f"{webhook}/messages/@original", None),
        ("PATCH", f"{webhook}/messages/@original", {"content": "late"}),
        ("DELETE", f"{webhook}/messages/@original", None),
    ]
    async with aiohttp.ClientSession() as session:
        for method, url, body in attempts:
            async with session.request(method, url, json=body) as response:
                assert response.status == 401, (method, url)
                assert await response.json() == {
                    "message": "Invalid Webhook Token",
                    "code": 50027,
                }
    assert not interaction.acknowledged
