"""Channel permissions in the fake Discord: computed as Discord does, and enforced on its routes.

discord.py's ``permissions_for`` must agree with the fake bit for bit (the overwrites reach it in
GUILD_CREATE and CHANNEL_UPDATE, the roles' permissions in GUILD_CREATE and GUILD_ROLE_UPDATE),
and the bot's REST calls are refused or trimmed the way Discord refuses or trims them.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.http import HTTPClient, handle_message_parameters

from .fake_discord import (
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMember,
    FakeRole,
    FakeUser,
    InvalidInvocation,
)
from .fake_discord.permissions import (
    ADMINISTRATOR,
    ALL_PERMISSIONS,
    ATTACH_FILES,
    EMBED_LINKS,
    MANAGE_MESSAGES,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    VIEW_CHANNEL,
)

MISSING_ACCESS = 50001
MISSING_PERMISSIONS = 50013


@pytest.fixture
async def http(fake_discord: FakeDiscord) -> AsyncIterator[HTTPClient]:
    """discord.py's own HTTP client, logged in to the fake."""
    client = HTTPClient(asyncio.get_running_loop())
    await client.static_login(fake_discord.token)
    try:
        yield client
    finally:
        await client.close()


async def post(http: HTTPClient, channel: FakeChannel, **fields: Any) -> dict[str, Any]:
    with handle_message_parameters(**fields) as params:
        return dict(await http.send_message(channel.id, params=params))


# ---------------------------------------------------------------------- the computation


class World:
    """A guild with roles, members and channels whose overwrites cover Discord's cases."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.guild = fake.add_guild("perms")
        guild = self.guild
        self.mods = fake.add_role(guild, "mods", permissions=MANAGE_MESSAGES)
        self.muted = fake.add_role(guild, "muted")
        self.admins = fake.add_role(guild, "admins", permissions=ADMINISTRATOR)
        self.plain = fake.add_member(guild, fake.add_user("plain"))
        self.mod = fake.add_member(guild, fake.add_user("mod"), roles=(self.mods,))
        self.hushed = fake.add_member(guild, fake.add_user("hushed"), roles=(self.muted, self.mods))
        self.admin = fake.add_member(guild, fake.add_user("admin"), roles=(self.admins,))
        everyone = guild.everyone
        self.open = fake.add_text_channel(guild, "open")
        self.readonly = fake.add_text_channel(guild, "readonly")
        fake.set_overwrite(self.readonly, everyone, deny=SEND_MESSAGES)
        fake.set_overwrite(self.readonly, self.mods, allow=SEND_MESSAGES)
        self.hidden = fake.add_text_channel(guild, "hidden")
        fake.set_overwrite(self.hidden, everyone, deny=VIEW_CHANNEL)
        fake.set_overwrite(self.hidden, fake.bot, allow=VIEW_CHANNEL)
        self.quiet = fake.add_text_channel(guild, "quiet")
        fake.set_overwrite(self.quiet, self.muted, deny=SEND_MESSAGES | EMBED_LINKS)
        fake.set_overwrite(self.quiet, self.mods, allow=EMBED_LINKS)
        fake.set_overwrite(self.quiet, self.plain, deny=READ_MESSAGE_HISTORY)
        fake.set_overwrite(self.quiet, fake.bot_role(guild), deny=EMBED_LINKS)

    @property
    def people(self) -> list[FakeUser | FakeMember]:
        return [self.fake.bot, self.plain, self.mod, self.hushed, self.admin]

    @property
    def channels(self) -> list[FakeChannel]:
        return [self.open, self.readonly, self.hidden, self.quiet]


class CachingBot(discord.Client):
    """Caches every member (presences intent), and answers ``/ping``."""

    def __init__(self, guild_id: int) -> None:
        intents = discord.Intents.default()
        intents.members = intents.presences = True
        super().__init__(intents=intents, guild_ready_timeout=0.02)
        self.tree = app_commands.CommandTree(self)
        self.guild_id = guild_id
        self.seen: list[discord.Interaction[Any]] = []

        @self.tree.command(description="Answers ok", guild=discord.Object(guild_id))
        async def ping(interaction: discord.Interaction[Any]) -> None:
            self.seen.append(interaction)
            await interaction.response.send_message("ok")

    async def setup_hook(self) -> None:
        await self.tree.sync(guild=discord.Object(self.guild_id))

    def permissions(self, channel: FakeChannel, who: FakeUser | FakeMember) -> int:
        guild = self.get_guild(channel.guild_id or 0)
        assert guild is not None
        cached = guild.get_channel(channel.id)
        member = guild.get_member(who.id)
        assert isinstance(cached, discord.TextChannel) and member is not None
        return cached.permissions_for(member).value


VOICE_ONLY = discord.Permissions.voice().value
"""discord.py drops voice permissions in text channels (even an administrator's); Discord does
not, but they mean nothing there."""


def disagreements(fake: FakeDiscord, bot: CachingBot, world: World) -> list[str]:
    return [
        f"{who.user.name if isinstance(who, FakeMember) else who.name} in #{channel.name}"
        for channel in world.channels
        for who in world.people
        if bot.permissions(channel, who) != fake.permissions(who, channel) & ~VOICE_ONLY
    ]


async def test_discord_py_computes_the_permissions_the_fake_enforces(
    fake_discord: FakeDiscord,
) -> None:
    world = World(fake_discord)
    bot = CachingBot(world.guild.id)
    async with fake_discord.connected(bot):
        assert disagreements(fake_discord, bot, world) == []
        # Changes reach the client: an overwrite (CHANNEL_UPDATE), a role (GUILD_ROLE_UPDATE).
        fake_discord.set_overwrite(world.open, world.mods, deny=VIEW_CHANNEL)
        fake_discord.set_role_permissions(world.muted, ATTACH_FILES)
        fake_discord.clear_overwrite(world.readonly, world.mods)

        def synced() -> bool:
            return not disagreements(fake_discord, bot, world)

        await fake_discord.wait_until(synced, what="the client to see the new permissions")
        assert not fake_discord.permissions(world.mod, world.open) & VIEW_CHANNEL

        interaction = await fake_discord.slash(world.plain, world.quiet, "ping")
        await fake_discord.wait_for_response(interaction)
        [seen] = bot.seen
        assert seen.permissions.value & ~VOICE_ONLY == bot.permissions(world.quiet, world.plain)
    assert seen.app_permissions.value == fake_discord.permissions(fake_discord.bot, world.quiet)
    assert seen.permissions.value == fake_discord.permissions(world.plain, world.quiet)
    assert not seen.app_permissions.embed_links
    assert not seen.permissions.read_message_history


EVERYONE, ROLE, OTHER_ROLE, MEMBER = "everyone", "role", "other role", "member"


@pytest.mark.parametrize(
    ("overwrites", "expected", "absent"),
    [
        ({EVERYONE: (0, SEND_MESSAGES), ROLE: (SEND_MESSAGES, 0)}, SEND_MESSAGES, 0),
        ({ROLE: (SEND_MESSAGES, 0), OTHER_ROLE: (0, SEND_MESSAGES)}, SEND_MESSAGES, 0),
        ({ROLE: (SEND_MESSAGES, 0), MEMBER: (0, SEND_MESSAGES)}, 0, SEND_MESSAGES),
        ({EVERYONE: (0, VIEW_CHANNEL), MEMBER: (VIEW_CHANNEL, 0)}, VIEW_CHANNEL, 0),
        ({EVERYONE: (0, VIEW_CHANNEL)}, 0, SEND_MESSAGES | READ_MESSAGE_HISTORY),
        ({ROLE: (0, SEND_MESSAGES)}, READ_MESSAGE_HISTORY, EMBED_LINKS | ATTACH_FILES),
    ],
    ids=[
        "role allow beats everyone deny",
        "role allow beats another role's deny",
        "member deny beats role allow",
        "member allow beats everyone deny",
        "no view means nothing",
        "no send means no embeds or files",
    ],
)
def test_overwrites_apply_in_discords_order(
    fake_discord: FakeDiscord,
    overwrites: dict[str, tuple[int, int]],
    expected: int,
    absent: int,
) -> None:
    guild = fake_discord.add_guild("order")
    role = fake_discord.add_role(guild, "role")
    other = fake_discord.add_role(guild, "other role")
    member = fake_discord.add_member(guild, fake_discord.add_user("m"), roles=(role, other))
    channel = fake_discord.add_text_channel(guild, "c")
    targets: dict[str, FakeRole | FakeMember] = {
        EVERYONE: guild.everyone,
        ROLE: role,
        OTHER_ROLE: other,
        MEMBER: member,
    }
    for name, (allow, deny) in overwrites.items():
        fake_discord.set_overwrite(channel, targets[name], allow=allow, deny=deny)
    allowed = fake_discord.permissions(member, channel)
    assert allowed & expected == expected
    assert not allowed & absent


def test_administrators_and_the_owner_ignore_overwrites(fake_discord: FakeDiscord) -> None:
    guild = fake_discord.add_guild("admins", bot_permissions=ADMINISTRATOR)
    channel = fake_discord.add_text_channel(guild, "closed")
    fake_discord.set_overwrite(channel, guild.everyone, deny=VIEW_CHANNEL)
    fake_discord.set_overwrite(channel, fake_discord.bot, deny=VIEW_CHANNEL)
    assert fake_discord.permissions(fake_discord.bot, channel) == ALL_PERMISSIONS
    assert fake_discord.permissions(fake_discord.owner, channel) == ALL_PERMISSIONS


# ---------------------------------------------------------------------- the REST checks


async def test_a_channel_the_bot_cannot_see_is_missing_access(
    fake_discord: FakeDiscord, channel: FakeChannel, http: HTTPClient
) -> None:
    message = await post(http, channel, content="before")
    fake_discord.set_overwrite(channel, fake_discord.bot, deny=VIEW_CHANNEL)
    attempts = [
        http.get_channel(channel.id),
        post(http, channel, content="hidden"),
        http.logs_from(channel.id, 10),
        http.get_message(channel.id, message["id"]),
        http.send_typing(channel.id),
        http.delete_message(channel.id, message["id"]),
    ]
    for attempt in attempts:
        with pytest.raises(discord.Forbidden) as refused:
            await attempt
        assert (refused.value.code, refused.value.text) == (MISSING_ACCESS, "Missing Access")
    assert [m.content for m in fake_discord.messages(channel)] == ["before"]


async def test_a_deleted_channel_is_unknown(
    fake_discord: FakeDiscord, guild: FakeGuild, channel: FakeChannel, http: HTTPClient
) -> None:
    message = await post(http, channel, content="before")
    fake_discord.delete_channel(channel)
    attempts = [
        http.get_channel(channel.id),
        post(http, channel, content="after"),
        http.get_message(channel.id, message["id"]),
        http.delete_message(channel.id, message["id"]),
    ]
    for attempt in attempts:
        with pytest.raises(discord.NotFound) as refused:
            await attempt
        assert (refused.value.code, refused.value.text) == (10003, "Unknown Channel")
    assert channel.id not in guild.channels


async def test_posting_needs_send_messages_and_files_need_attach_files(
    fake_discord: FakeDiscord, channel: FakeChannel, http: HTTPClient
) -> None:
    fake_discord.set_overwrite(channel, fake_discord.bot, deny=ATTACH_FILES)
    with pytest.raises(discord.Forbidden) as refused:
        await post(http, channel, content="x", file=discord.File(io.BytesIO(b"x"), "x.txt"))
    assert (refused.value.code, refused.value.text) == (MISSING_PERMISSIONS, "Missing Permissions")
    fake_discord.set_overwrite(channel, fake_discord.bot, deny=SEND_MESSAGES)
    for attempt in (post(http, channel, content="x"), http.send_typing(channel.id)):
        with pytest.raises(discord.Forbidden) as refused:
            await attempt
        assert refused.value.code == MISSING_PERMISSIONS
    assert fake_discord.messages(channel) == []


async def test_without_embed_links_embeds_are_dropped_not_refused(
    fake_discord: FakeDiscord, channel: FakeChannel, http: HTTPClient
) -> None:
    fake_discord.set_overwrite(channel, fake_discord.bot, deny=EMBED_LINKS)
    embed = discord.Embed(title="board")
    sent = await post(http, channel, content="text", embed=embed)
    assert sent["embeds"] == []
    with pytest.raises(discord.HTTPException) as refused:
        await post(http, channel, embed=embed)
    assert (refused.value.status, refused.value.code) == (400, 50006)
    with handle_message_parameters(content="edited", embed=embed) as params:
        await http.edit_message(channel.id, sent["id"], params=params)
    [stored] = fake_discord.messages(channel)
    assert (stored.content, stored.embeds) == ("edited", [])

    fake_discord.clear_overwrite(channel, fake_discord.bot)
    assert (await post(http, channel, embed=embed))["embeds"][0]["title"] == "board"


async def test_reading_history_needs_read_message_history(
    fake_discord: FakeDiscord, channel: FakeChannel, http: HTTPClient
) -> None:
    first = await post(http, channel, content="first")
    fake_discord.set_overwrite(channel, fake_discord.bot, deny=READ_MESSAGE_HISTORY)
    assert await http.logs_from(channel.id, 10) == []
    with pytest.raises(discord.Forbidden) as refused:
        await http.get_message(channel.id, first["id"])
    assert refused.value.code == MISSING_PERMISSIONS
    reply = {"message_id": first["id"], "channel_id": str(channel.id)}
    with pytest.raises(discord.Forbidden) as refused:
        await post(http, channel, content="re", message_reference=reply)
    assert refused.value.code == 160002
    assert [m.content for m in fake_discord.messages(channel)] == ["first"]


async def test_members_cannot_act_where_discord_would_not_let_them(
    fake_discord: FakeDiscord, guild: FakeGuild, channel: FakeChannel, alice: FakeMember
) -> None:
    fake_discord.set_overwrite(channel, alice, deny=SEND_MESSAGES)
    with pytest.raises(InvalidInvocation, match="may not send"):
        await fake_discord.send(alice, channel, "hi")
    fake_discord.set_overwrite(channel, guild.everyone, deny=VIEW_CHANNEL)
    with pytest.raises(InvalidInvocation, match="cannot see"):
        await fake_discord.send(alice, channel, "hi")
