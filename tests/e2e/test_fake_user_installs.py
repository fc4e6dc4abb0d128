"""The fake Discord's user installs, against a real discord.py client.

A member who added the application to their account runs its user-installable commands in a DM or
group DM between people and in servers without the application, where the bot's token reaches
nothing and only the interaction's token answers. The payloads are read back through discord.py's
own parsing (``discord.Interaction``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands

from .fake_discord import (
    EVERYONE_PERMISSIONS,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMember,
    FakeUser,
    InvalidInvocation,
)

FIFTEEN_MINUTES = 15 * 60
ATTACH_FILES = 1 << 15
EMBED_LINKS = 1 << 14
MENTION_EVERYONE = 1 << 17
USE_EXTERNAL_APPS = 1 << 50
EPHEMERAL = 1 << 6

anywhere = app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
both_installs = app_commands.allowed_installs(guilds=True, users=True)


class JoinView(discord.ui.View):
    """A "Join" button under the board: anyone in the channel may press it."""

    def __init__(self, seen: list[discord.Interaction[Any]]) -> None:
        super().__init__(timeout=None)
        self.seen = seen

    @discord.ui.button(label="Join", custom_id="join")
    async def join(
        self, interaction: discord.Interaction[Any], button: discord.ui.Button[JoinView]
    ) -> None:
        self.seen.append(interaction)
        await interaction.response.send_message(f"{interaction.user.name} joins")


class InstallBot(discord.Client):
    """Commands installable to users (``/play``, ``/later``, ``/spam``) and one that is not
    (``/setup``); each records the interaction as discord.py parsed it."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.02)
        self.tree = app_commands.CommandTree(self)
        self.seen: list[discord.Interaction[Any]] = []
        self.errors: list[discord.HTTPException] = []
        self.gate = asyncio.Event()
        self.done = asyncio.Event()

        @self.tree.command(description="Starts a game here")
        @anywhere
        @both_installs
        async def play(interaction: discord.Interaction[Any]) -> None:
            self.seen.append(interaction)
            await interaction.response.send_message("board", view=JoinView(self.seen))
            await self.followup("your hand", interaction, ephemeral=True)
            try:  # the bot's own token, where the bot may not be
                assert interaction.channel is not None
                await interaction.channel.send("posted by the bot")  # type: ignore[union-attr]
            except discord.HTTPException as error:
                self.errors.append(error)
            self.done.set()

        @self.tree.command(description="Answers once the test opens the gate")
        @anywhere
        @both_installs
        @app_commands.describe(defer="Defer first")
        async def later(interaction: discord.Interaction[Any], defer: bool = True) -> None:
            self.seen.append(interaction)
            if defer:
                await interaction.response.defer(thinking=True)
            await self.gate.wait()
            try:
                if not defer:
                    await interaction.response.send_message("late")
                else:
                    await interaction.followup.send("late")
            except discord.HTTPException as error:
                self.errors.append(error)
            try:
                await interaction.edit_original_response(content="edited")
            except discord.HTTPException as error:
                self.errors.append(error)
            self.done.set()

        @self.tree.command(description="Follows up until refused")
        @anywhere
        @both_installs
        async def spam(interaction: discord.Interaction[Any]) -> None:
            self.seen.append(interaction)
            await interaction.response.send_message("start")
            for number in range(7):
                if not await self.followup(f"more {number}", interaction):
                    break
            self.done.set()

        @self.tree.command(description="Server settings")
        async def setup(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("settings")

    async def followup(
        self, text: str, interaction: discord.Interaction[Any], *, ephemeral: bool = False
    ) -> bool:
        try:
            await interaction.followup.send(text, ephemeral=ephemeral)
        except discord.HTTPException as error:
            self.errors.append(error)
            return False
        return True

    async def setup_hook(self) -> None:
        await self.tree.sync()


@pytest.fixture
def dora(fake_discord: FakeDiscord) -> FakeUser:
    """A user with the application installed to her account."""
    user = fake_discord.add_user("dora")
    fake_discord.install_for_user(user)
    return user


@pytest.fixture
def eli(fake_discord: FakeDiscord) -> FakeUser:
    return fake_discord.add_user("eli")


@pytest.fixture
def fay(fake_discord: FakeDiscord) -> FakeUser:
    return fake_discord.add_user("fay")


@pytest.fixture
def elsewhere(fake_discord: FakeDiscord, dora: FakeUser, eli: FakeUser) -> FakeGuild:
    """A server without the application, where dora and eli are members."""
    server = fake_discord.add_guild("Elsewhere", with_app=False)
    fake_discord.add_member(server, dora)
    fake_discord.add_member(server, eli)
    return server


def forbidden(error: discord.HTTPException) -> tuple[int, int]:
    return error.status, error.code


async def test_only_commands_installable_to_users_reach_a_user_install(
    fake_discord: FakeDiscord, dora: FakeUser, eli: FakeUser, fay: FakeUser
) -> None:
    group = fake_discord.add_group_dm(dora, eli, fay, name="game night")
    async with fake_discord.connected(InstallBot()):
        with pytest.raises(InvalidInvocation, match="not available in private channels"):
            await fake_discord.slash(dora, group, "setup")
        with pytest.raises(InvalidInvocation, match="not installed"):
            await fake_discord.slash(eli, group, "play")  # eli has not installed the app
        fake_discord.uninstall_for_user(dora)
        with pytest.raises(InvalidInvocation, match="not installed"):
            await fake_discord.slash(dora, group, "play")

    registered = {command["name"]: command for command in fake_discord.commands()}
    assert registered["setup"]["integration_types"] == [0]  # discord.py sent null
    assert registered["setup"]["contexts"] is None
    assert registered["play"]["integration_types"] == [0, 1]
    assert registered["play"]["contexts"] == [0, 1, 2]
    assert fake_discord.interactions == []


async def test_registration_refuses_unknown_installs_and_contexts(
    fake_discord: FakeDiscord,
) -> None:
    url = f"{fake_discord.api_base}/applications/{fake_discord.application_id}/commands"
    body = [{"name": "x", "description": "x", "integration_types": [2], "contexts": [3]}]
    headers = {"Authorization": f"Bot {fake_discord.token}"}
    async with (
        aiohttp.ClientSession() as session,
        session.put(url, json=body, headers=headers) as response,
    ):
        answer = await response.json()
    assert response.status == 400 and answer["code"] == 50035
    assert set(answer["errors"]["0"]) == {"integration_types", "contexts"}


@pytest.mark.parametrize("group", [True, False], ids=["group DM", "DM between people"])
async def test_a_private_channel_interaction_is_shaped_as_discord_sends_it(
    fake_discord: FakeDiscord, dora: FakeUser, eli: FakeUser, fay: FakeUser, group: bool
) -> None:
    if group:
        channel = fake_discord.add_group_dm(dora, eli, fay, name="game night")
    else:
        channel = fake_discord.add_dm_between(dora, eli)
    bot = InstallBot()
    async with fake_discord.connected(bot):
        interaction = await fake_discord.slash(dora, channel, "play")
        await fake_discord.wait_until(lambda: bot.done.is_set())

    [seen] = bot.seen
    assert seen.context.private_channel and not seen.context.guild and not seen.context.dm_channel
    assert seen.is_user_integration() and not seen.is_guild_integration()
    assert seen.guild_id is None and seen.guild is None
    assert isinstance(seen.user, discord.User) and seen.user.id == dora.id
    others = {eli.id, fay.id} if group else {eli.id}
    if group:
        assert isinstance(seen.channel, discord.GroupChannel)
        assert seen.channel.name == "game night" and seen.channel.owner_id == dora.id
    else:
        assert isinstance(seen.channel, discord.DMChannel)
    assert {user.id for user in seen.channel.recipients} == others
    assert seen.app_permissions.value == ATTACH_FILES | EMBED_LINKS | MENTION_EVERYONE
    payload = interaction.payload
    assert payload["context"] == 2
    assert payload["authorizing_integration_owners"] == {"1": str(dora.id)}
    assert payload["entitlements"] == []
    assert payload["channel"]["type"] == (3 if group else 1)
    assert not {"guild_id", "member", "guild", "guild_locale"} & set(payload)
    # The bot's token reaches nothing there; the interaction's token answered.
    [error] = bot.errors
    assert isinstance(error, discord.Forbidden) and forbidden(error) == (403, 50001)
    board, hand = interaction.messages
    assert fake_discord.visible_messages(eli, channel) == [board]
    assert fake_discord.visible_messages(dora, channel) == [board, hand]
    assert hand.ephemeral and not board.ephemeral
    metadata = board.payload()["interaction_metadata"]
    assert metadata["authorizing_integration_owners"] == {"1": str(dora.id)}


async def test_the_bots_token_reads_and_edits_nothing_in_a_group_dm(
    fake_discord: FakeDiscord, dora: FakeUser, eli: FakeUser
) -> None:
    group = fake_discord.add_group_dm(dora, eli, name="pair")
    bot = InstallBot()
    async with fake_discord.connected(bot):
        interaction = await fake_discord.slash(dora, group, "play")
        await fake_discord.wait_until(lambda: bot.done.is_set())
        board = interaction.messages[0]
        channel = bot.get_partial_messageable(group.id)
        attempts = [
            channel.fetch_message(board.id),
            channel.get_partial_message(board.id).edit(content="changed"),
            channel.get_partial_message(board.id).delete(),
            bot.http.logs_from(group.id, 10),
        ]
        for attempt in attempts:
            with pytest.raises(discord.Forbidden) as refused:
                await attempt
            assert forbidden(refused.value) == (403, 50001)
    assert board.content == "board" and not board.deleted


async def test_a_user_install_in_a_server_without_the_app(
    fake_discord: FakeDiscord, elsewhere: FakeGuild, dora: FakeUser, eli: FakeUser
) -> None:
    lobby = fake_discord.add_text_channel(elsewhere, "lobby")
    bot = InstallBot()
    async with fake_discord.connected(bot):
        with pytest.raises(InvalidInvocation, match="not installed"):
            await fake_discord.slash(dora, lobby, "setup")
        interaction = await fake_discord.slash(dora, lobby, "play")
        await fake_discord.wait_until(lambda: bot.done.is_set())
        with pytest.raises(discord.Forbidden) as refused:
            await bot.fetch_guild(elsewhere.id)
        assert forbidden(refused.value) == (403, 50001)

    [seen] = bot.seen
    assert seen.context.guild and seen.guild_id == elsewhere.id
    assert isinstance(seen.user, discord.Member) and seen.user.id == dora.id
    assert seen.is_user_integration() and not seen.is_guild_integration()
    assert seen.app_permissions.send_messages and seen.app_permissions.use_external_apps
    assert interaction.payload["authorizing_integration_owners"] == {"1": str(dora.id)}
    [error] = bot.errors
    assert isinstance(error, discord.Forbidden) and forbidden(error) == (403, 50001)
    board, hand = interaction.messages
    assert fake_discord.visible_messages(eli, lobby) == [board]
    assert hand.ephemeral


async def test_without_use_external_apps_every_answer_is_ephemeral(
    fake_discord: FakeDiscord, elsewhere: FakeGuild, dora: FakeUser, eli: FakeUser
) -> None:
    lobby = fake_discord.add_text_channel(elsewhere, "lobby")
    fake_discord.set_role_permissions(elsewhere.everyone, EVERYONE_PERMISSIONS & ~USE_EXTERNAL_APPS)
    bot = InstallBot()
    async with fake_discord.connected(bot):
        interaction = await fake_discord.slash(dora, lobby, "play")
        await fake_discord.wait_until(lambda: bot.done.is_set())

    [seen] = bot.seen
    assert not seen.app_permissions.use_external_apps
    assert not seen.app_permissions.send_messages  # how a bot can tell beforehand
    board, hand = interaction.messages
    assert board.ephemeral and hand.ephemeral  # the bot asked for a public board
    assert fake_discord.visible_messages(eli, lobby) == []
    assert fake_discord.visible_messages(dora, lobby) == [board, hand]


async def test_use_external_apps_does_not_touch_a_server_with_the_app(
    fake_discord: FakeDiscord, guild: FakeGuild, channel: FakeChannel, alice: FakeMember
) -> None:
    fake_discord.install_for_user(alice)
    fake_discord.set_role_permissions(guild.everyone, EVERYONE_PERMISSIONS & ~USE_EXTERNAL_APPS)
    bot = InstallBot()
    async with fake_discord.connected(bot):
        interaction = await fake_discord.slash(alice, channel, "play")
        await fake_discord.wait_until(lambda: bot.done.is_set())

    owners = interaction.payload["authorizing_integration_owners"]
    assert owners == {"0": str(guild.id), "1": str(alice.id)}
    [seen] = bot.seen
    assert seen.is_guild_integration() and seen.is_user_integration()
    assert not interaction.messages[0].ephemeral
    assert bot.errors == []  # the bot is in the server: its own token posts


@pytest.mark.parametrize("where", ["group DM", "server without the app", "server with it"])
async def test_followups_are_capped_at_five_when_a_user_install_alone_authorised(
    fake_discord: FakeDiscord,
    dora: FakeUser,
    eli: FakeUser,
    elsewhere: FakeGuild,
    guild: FakeGuild,
    channel: FakeChannel,
    where: str,
) -> None:
    fake_discord.rate_limits.followup_message = None  # the cap, not the 5 per 2 s bucket
    if where == "group DM":
        place = fake_discord.add_group_dm(dora, eli, name="pair")
    elif where == "server without the app":
        place = fake_discord.add_text_channel(elsewhere, "lobby")
    else:
        fake_discord.add_member(guild, dora)
        place = channel
    bot = InstallBot()
    async with fake_discord.connected(bot):
        interaction = await fake_discord.slash(dora, place, "spam")
        await fake_discord.wait_until(lambda: bot.done.is_set())

    if where == "server with it":
        assert bot.errors == [] and len(interaction.followups) == 7
        return
    assert len(interaction.followups) == 5
    [error] = bot.errors
    assert (error.status, error.code) == (400, 40094)
    assert error.text == "This interaction has hit the maximum number of follow up messages"


@pytest.mark.parametrize(
    ("waited", "expired"), [(FIFTEEN_MINUTES - 1, False), (FIFTEEN_MINUTES + 1, True)]
)
async def test_the_token_answers_for_fifteen_minutes_in_a_group_dm(
    fake_discord: FakeDiscord, dora: FakeUser, eli: FakeUser, waited: int, expired: bool
) -> None:
    group = fake_discord.add_group_dm(dora, eli, name="pair")
    bot = InstallBot()
    async with fake_discord.connected(bot):
        interaction = await fake_discord.slash(dora, group, "later")
        await fake_discord.wait_until(lambda: interaction.deferred, what="the deferral")
        fake_discord.advance_clock(waited)
        bot.gate.set()
        await fake_discord.wait_until(lambda: bot.done.is_set())

    original = interaction.original
    assert original is not None
    if not expired:
        assert bot.errors == [] and original.content == "edited"
        return
    assert [(e.status, e.code, e.text) for e in bot.errors] == [
        (401, 50027, "Invalid Webhook Token"),
        (401, 50027, "Invalid Webhook Token"),
    ]
    assert original.loading  # the members still see "is thinking..."


async def test_the_first_answer_must_come_within_three_seconds(
    fake_discord: FakeDiscord, dora: FakeUser, eli: FakeUser
) -> None:
    group = fake_discord.add_group_dm(dora, eli, name="pair")
    bot = InstallBot()
    async with fake_discord.connected(bot):
        interaction = await fake_discord.slash(dora, group, "later", defer=False)
        await fake_discord.wait_until(lambda: interaction.sent_at is not None)
        fake_discord.advance_clock(3.5)
        bot.gate.set()
        await fake_discord.wait_until(lambda: bot.done.is_set())

    first = bot.errors[0]
    assert isinstance(first, discord.NotFound) and (first.code, first.text) == (
        10062,
        "Unknown interaction",
    )
    assert not interaction.acknowledged


async def test_a_press_by_another_member_keeps_the_installer_as_authoriser(
    fake_discord: FakeDiscord, dora: FakeUser, eli: FakeUser
) -> None:
    group = fake_discord.add_group_dm(dora, eli, name="pair")
    bot = InstallBot()
    async with fake_discord.connected(bot):
        played = await fake_discord.slash(dora, group, "play")
        await fake_discord.wait_until(lambda: bot.done.is_set())
        board = played.messages[0]
        press = await fake_discord.click(eli, board, "join")
        await fake_discord.wait_for_response(press)

    pressed = bot.seen[-1]
    assert pressed.user.id == eli.id and pressed.context.private_channel
    assert not pressed.is_user_integration()  # eli did not install the app: dora did
    assert press.payload["authorizing_integration_owners"] == {"1": str(dora.id)}
    assert press.original is not None and press.original.content == "eli joins"
    assert press.original in fake_discord.visible_messages(dora, group)
