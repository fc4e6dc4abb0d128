"""Discord's invalid-request limit in the fake: answers of 401, 403 and 429 count, and past the
limit within ten minutes the address is banned, Cloudflare answering 429 before the API."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import discord
import pytest
from discord.http import HTTPClient, handle_message_parameters

from bot.chat.invalid_requests import InvalidRequests

from .fake_discord import FakeChannel, FakeDiscord
from .fake_discord.invalid_requests import BAN, WINDOW
from .fake_discord.permissions import VIEW_CHANNEL


@pytest.fixture
async def http(fake_discord: FakeDiscord) -> AsyncIterator[tuple[HTTPClient, InvalidRequests]]:
    """discord.py's own HTTP client, logged in to the fake, counting its invalid answers as
    the bot does."""
    counted = InvalidRequests()
    client = HTTPClient(asyncio.get_running_loop(), http_trace=counted.trace())
    await client.static_login(fake_discord.token)
    try:
        yield client, counted
    finally:
        await client.close()


async def post(http: HTTPClient, channel: FakeChannel) -> None:
    with handle_message_parameters(content="hello") as params:
        await http.send_message(channel.id, params=params)


async def test_past_the_limit_the_address_is_banned_for_a_while(
    fake_discord: FakeDiscord, channel: FakeChannel, http: tuple[HTTPClient, InvalidRequests]
) -> None:
    client, counted = http
    fake_discord.api.invalid.limit = 3
    fake_discord.set_overwrite(channel, fake_discord.bot, deny=VIEW_CHANNEL)
    for _attempt in range(4):
        with pytest.raises(discord.Forbidden):
            await post(client, channel)
    assert counted.recent() == fake_discord.api.invalid.count() == 4

    # Banned: even an allowed request is refused by Cloudflare, at once, without JSON.
    fake_discord.clear_overwrite(channel, fake_discord.bot)
    with pytest.raises(discord.HTTPException) as refused:
        await post(client, channel)
    assert refused.value.status == 429 and refused.value.code == 0
    assert fake_discord.api.invalid.refused == 1

    fake_discord.advance_clock(BAN)
    await post(client, channel)  # the ban is over
    assert fake_discord.api.invalid.count() == 0  # and the window long past


async def test_invalid_answers_older_than_ten_minutes_no_longer_count(
    fake_discord: FakeDiscord, channel: FakeChannel, http: tuple[HTTPClient, InvalidRequests]
) -> None:
    client, _counted = http
    fake_discord.api.invalid.limit = 3
    fake_discord.set_overwrite(channel, fake_discord.bot, deny=VIEW_CHANNEL)
    for _attempt in range(3):
        with pytest.raises(discord.Forbidden):
            await post(client, channel)
    fake_discord.advance_clock(WINDOW)
    for _attempt in range(3):
        with pytest.raises(discord.Forbidden):
            await post(client, channel)
    assert fake_discord.api.invalid.count() == 3
    assert fake_discord.api.invalid.banned_until is None
