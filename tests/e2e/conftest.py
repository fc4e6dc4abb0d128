"""End-to-end fixtures: a fake Discord on 127.0.0.1 that discord.py points at, and its world.

``fake_discord`` is started, patched into discord.py for the test (``Route.BASE`` and
``DiscordWebSocket.DEFAULT_GATEWAY``, restored afterwards) and closed at teardown, where any request
to a route the fake does not know fails the test. Run a client against it with
``async with fake_discord.connected(client): ...``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from .fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeMember


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A started fake Discord, with discord.py pointed at it for the duration of the test."""
    fake = FakeDiscord()
    await fake.start()
    try:
        with fake.patch_discord():
            yield fake
    finally:
        await fake.close()
    unexpected = ", ".join(str(request) for request in fake.unexpected_requests)
    assert not unexpected, f"requests to routes the fake Discord does not know: {unexpected}"


@pytest.fixture
def guild(fake_discord: FakeDiscord) -> FakeGuild:
    """A guild the bot is in."""
    return fake_discord.add_guild("Parlor test")


@pytest.fixture
def channel(fake_discord: FakeDiscord, guild: FakeGuild) -> FakeChannel:
    """A text channel of ``guild``."""
    return fake_discord.add_text_channel(guild, "duels")


@pytest.fixture
def alice(fake_discord: FakeDiscord, guild: FakeGuild) -> FakeMember:
    """A member of ``guild`` who accepts DMs."""
    return fake_discord.add_member(guild, fake_discord.add_user("alice"))


@pytest.fixture
def bob(fake_discord: FakeDiscord, guild: FakeGuild) -> FakeMember:
    """Another member of ``guild`` who accepts DMs."""
    return fake_discord.add_member(guild, fake_discord.add_user("bob"))


@pytest.fixture
def carol(fake_discord: FakeDiscord, guild: FakeGuild) -> FakeMember:
    """A member of ``guild`` whose DMs are closed: the bot's DMs to her fail with 50007."""
    return fake_discord.add_member(guild, fake_discord.add_user("carol", dms_open=False))
