"""The members and the table of the tests of matches outside servers: two friends, Dora (who
added Parlor to her own account) and Eli, who share no server with the bot, and their group DM."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import pytest

from .fake_discord import FakeChannel, FakeDiscord, FakeUser

if TYPE_CHECKING:
    from .bot_fixtures import Table


@pytest.fixture
def dora(fake_discord: FakeDiscord) -> FakeUser:
    """A member who added Parlor to her own account, in no server with the bot."""
    user = fake_discord.add_user("dora")
    fake_discord.install_for_user(user)
    return user


@pytest.fixture
def eli(fake_discord: FakeDiscord) -> FakeUser:
    """Dora's friend: no install of his own, no server with the bot."""
    return fake_discord.add_user("eli")


@pytest.fixture
def group_dm(fake_discord: FakeDiscord, dora: FakeUser, eli: FakeUser) -> FakeChannel:
    return fake_discord.add_group_dm(dora, eli, name="friends")


@pytest.fixture
async def group(idle_table: Table, group_dm: FakeChannel) -> AsyncIterator[Table]:
    """The group DM as the table (its server's members are not in it), the bot running."""
    idle_table.channel = group_dm
    async with idle_table.running():
        yield idle_table
