"""Shards in the fake Discord, with discord.py's AutoShardedClient and plain clients.

A guild's events and interactions go to the sessions of shard ``(guild_id >> 22) % shard_count``,
DMs to shard 0, and every session identified on a shard gets its events.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands

from .fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeMember

INVALID_SHARD = 4010


@pytest.fixture
async def sharded() -> AsyncIterator[FakeDiscord]:
    """A fake that recommends two shards, with discord.py pointed at it."""
    async with FakeDiscord(shards=2) as fake:
        with fake.patch_discord():
            yield fake
    assert not fake.unexpected_requests


class World:
    """One guild (with a channel) on each of two shards, and a member of both."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.guilds: list[FakeGuild] = []
        self.channels: list[FakeChannel] = []
        self.alice = fake.add_user("alice")
        self.members: list[FakeMember] = []
        for shard in (0, 1):
            guild = fake.add_guild(f"on shard {shard}", shard=(shard, 2))
            self.guilds.append(guild)
            self.channels.append(fake.add_text_channel(guild, "play"))
            self.members.append(fake.add_member(guild, self.alice))


def intents() -> discord.Intents:
    """The default intents and message content, so members' messages arrive with their text."""
    chosen = discord.Intents.default()
    chosen.message_content = True
    return chosen


def record(client: discord.Client) -> tuple[list[discord.Message], list[discord.Interaction[Any]]]:
    """What ``client`` receives: members' messages and interactions."""
    messages: list[discord.Message] = []
    interactions: list[discord.Interaction[Any]] = []

    async def on_message(message: discord.Message) -> None:
        if not message.author.bot:
            messages.append(message)

    async def on_interaction(interaction: discord.Interaction[Any]) -> None:
        interactions.append(interaction)

    client.event(on_message)
    client.event(on_interaction)
    return messages, interactions


def ping_tree(client: discord.Client, answer: str) -> app_commands.CommandTree[Any]:
    """A tree with a global ``/ping`` answering ``answer``."""
    tree: app_commands.CommandTree[Any] = app_commands.CommandTree(client)

    @tree.command(description="Says who answered")
    async def ping(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(answer)

    return tree


class PingClient(discord.Client):
    """An unsharded client with ``/ping``."""

    def __init__(self) -> None:
        super().__init__(intents=intents(), guild_ready_timeout=0.02)
        self.tree = ping_tree(self, "unsharded")

    async def setup_hook(self) -> None:
        await self.tree.sync()


class ShardClient(discord.AutoShardedClient):
    """A client running one of two shards, with ``/ping``."""

    def __init__(self, shard_id: int) -> None:
        super().__init__(
            intents=intents(),
            shard_ids=[shard_id],
            shard_count=2,
            guild_ready_timeout=0.02,
        )
        self.tree = ping_tree(self, f"shard {shard_id}")

    async def setup_hook(self) -> None:
        await self.tree.sync()


class EagerShards(discord.AutoShardedClient):
    """Runs the shards ``GET /gateway/bot`` recommends, identifying them without a pause."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.02)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py waits 5 s before each shard but the first; the fake needs no such pause."""


def guild_ids(client: discord.Client) -> set[int]:
    return {guild.id for guild in client.guilds}


async def test_gateway_bot_recommends_the_configured_shard_count(sharded: FakeDiscord) -> None:
    headers = {"Authorization": f"Bot {sharded.token}"}
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{sharded.api_base}/gateway/bot", headers=headers) as answer:
            body = await answer.json()
        async with session.get(f"{sharded.api_base}/gateway/bot") as anonymous:
            assert anonymous.status == 401
    assert body["url"] == sharded.gateway_url
    assert body["shards"] == 2
    limit = body["session_start_limit"]
    assert limit["max_concurrency"] == 1
    assert 0 < limit["remaining"] <= limit["total"]


async def test_an_auto_sharded_client_runs_the_recommended_shards(sharded: FakeDiscord) -> None:
    world = World(sharded)
    client = EagerShards()
    async with sharded.connected(client):
        assert client.shard_count == 2
        assert {guild.id: guild.shard_id for guild in client.guilds} == {
            world.guilds[0].id: 0,
            world.guilds[1].id: 1,
        }
        assert sorted(s.shard.id for s in sharded.gateway.sessions) == [0, 1]
    assert sharded.bot_calls()["GET /gateway/bot"] == 1
    assert sharded.gateway.sessions == []  # closed with 1000: the sessions ended


async def test_each_shard_gets_its_guilds_events_and_dms_go_to_shard_zero(
    sharded: FakeDiscord,
) -> None:
    world = World(sharded)
    clients = [ShardClient(0), ShardClient(1)]
    seen = [record(client) for client in clients]
    async with sharded.connected(clients[0]), sharded.connected(clients[1]):
        assert [guild_ids(c) for c in clients] == [{world.guilds[0].id}, {world.guilds[1].id}]

        await sharded.send(world.alice, world.channels[1], "on shard one")
        await sharded.dm(world.alice, "a DM")
        answers = []
        for where in (world.channels[1], world.channels[0], sharded.dm_channel(world.alice)):
            interaction = await sharded.slash(world.alice, where, "ping")
            answers.append((await sharded.wait_for_response(interaction)).original)
        await sharded.wait_until(lambda: len(seen[0][0]) == 1 and len(seen[1][0]) == 1)

    assert [m.content if m else None for m in answers] == ["shard 1", "shard 0", "shard 0"]
    assert [m.content for m in seen[1][0]] == ["on shard one"]
    assert [m.content for m in seen[0][0]] == ["a DM"]
    assert [len(interactions) for _, interactions in seen] == [2, 1]


async def test_two_sessions_on_one_shard_both_get_its_events(
    fake_discord: FakeDiscord, guild: FakeGuild, channel: FakeChannel, alice: FakeMember
) -> None:
    answering = PingClient()
    listening = discord.Client(intents=intents(), guild_ready_timeout=0.02)
    seen = [record(client) for client in (answering, listening)]
    async with fake_discord.connected(answering), fake_discord.connected(listening):
        await fake_discord.send(alice, channel, "to everyone")
        interaction = await fake_discord.slash(alice, channel, "ping")
        await fake_discord.wait_for_response(interaction)
        await fake_discord.wait_until(lambda: all(len(m) == 1 and len(i) == 1 for m, i in seen))
        assert len(fake_discord.gateway.sessions) == 2
    assert [[m.content for m in messages] for messages, _ in seen] == [["to everyone"]] * 2
    assert interaction.original is not None and interaction.original.content == "unsharded"


@pytest.mark.parametrize("shard", [[2, 2], [0, 0], [-1, 2], [0], "0,1", [True, 2]])
async def test_an_invalid_shard_closes_the_connection(sharded: FakeDiscord, shard: Any) -> None:
    identify = {"op": 2, "d": {"token": sharded.token, "intents": 1, "shard": shard}}
    async with aiohttp.ClientSession() as session, session.ws_connect(sharded.gateway_url) as ws:
        hello = json.loads((await ws.receive()).data)
        assert hello["op"] == 10
        await ws.send_str(json.dumps(identify))
        closing = await ws.receive()
        assert closing.type is aiohttp.WSMsgType.CLOSE
        assert ws.close_code == INVALID_SHARD
    assert sharded.gateway.sessions == []
