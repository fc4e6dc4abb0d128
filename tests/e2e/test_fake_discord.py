"""The fake Discord against a real, unmodified discord.py client.

A small bot (slash commands with options, a group, buttons, a DynamicItem, a select, a modal,
deferrals, DMs) logs in through the ``fake_discord`` fixture; the tests act as users and check
what the bot sees and what the fake stores, and that Discord's limits and interaction rules hold.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.http import Route

from .fake_discord import (
    BOT_PERMISSIONS,
    ClientStopped,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    InvalidInvocation,
)

MANAGE_GUILD = 1 << 5
GUILD_READY_TIMEOUT = 0.02
"""Seconds discord.py waits after the last GUILD_CREATE before it is ready (default 2)."""

OPPONENT = object()
"""Stands for the ``bob`` fixture in parametrized option values."""


class CounterButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"counter:(?P<count>\d+)",
):
    """A button that survives restarts: its count lives in its custom_id."""

    def __init__(self, count: int) -> None:
        super().__init__(discord.ui.Button(label=f"Count {count}", custom_id=f"counter:{count}"))
        self.count = count

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: Any,
        /,
    ) -> CounterButton:
        return cls(int(match["count"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(CounterButton(self.count + 1))
        await interaction.response.edit_message(content=f"count {self.count + 1}", view=view)


class ChallengeView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(
        label="Accept", custom_id="challenge:accept", style=discord.ButtonStyle.green
    )
    async def accept(
        self, interaction: discord.Interaction[Any], button: discord.ui.Button[ChallengeView]
    ) -> None:
        button.disabled = True
        await interaction.response.edit_message(
            content=f"accepted by {interaction.user.name}", view=self
        )


class ColourView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.select(
        custom_id="colour",
        options=[discord.SelectOption(label=name, value=name) for name in ("red", "blue")],
    )
    async def choose(
        self, interaction: discord.Interaction[Any], select: discord.ui.Select[ColourView]
    ) -> None:
        await interaction.response.edit_message(content=f"picked {select.values[0]}", view=None)


class FeedbackModal(discord.ui.Modal):
    comment: discord.ui.TextInput[FeedbackModal] = discord.ui.TextInput(
        label="Comment", custom_id="comment", max_length=50
    )

    def __init__(self) -> None:
        super().__init__(title="Feedback", custom_id="feedback")

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(f"thanks: {self.comment.value}", ephemeral=True)


class SampleBot(discord.Client):
    """A bot with one command per kind of answer Discord offers."""

    def __init__(self, guild_id: int, intents: discord.Intents | None = None) -> None:
        super().__init__(
            intents=intents or discord.Intents.default(), guild_ready_timeout=GUILD_READY_TIMEOUT
        )
        self.tree = app_commands.CommandTree(self)
        self.guild_object = discord.Object(guild_id)
        self.seen_messages: list[discord.Message] = []
        self.errors: list[discord.HTTPException] = []
        self.gate = asyncio.Event()
        self.resumed = asyncio.Event()
        self._add_commands()

    async def setup_hook(self) -> None:
        self.add_dynamic_items(CounterButton)
        await self.tree.sync(guild=self.guild_object)
        await self.tree.sync()

    async def on_message(self, message: discord.Message) -> None:
        self.seen_messages.append(message)

    async def on_resumed(self) -> None:
        self.resumed.set()

    def _add_commands(self) -> None:
        tree, guild = self.tree, self.guild_object

        @tree.command(description="Answers ok", guild=guild)
        async def ping(interaction: discord.Interaction[Any], hidden: bool = False) -> None:
            await interaction.response.send_message("ok", ephemeral=hidden)

        @tree.command(description="Server settings", guild=guild)
        @app_commands.default_permissions(manage_guild=True)
        async def settings(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("settings", ephemeral=True)

        @tree.command(name="help", description="Answers in DMs too")
        async def help_command(interaction: discord.Interaction[Any]) -> None:
            where = "a DM" if interaction.guild is None else "a guild"
            await interaction.response.send_message(f"help from {where}", ephemeral=True)

        @tree.command(description="A button that counts", guild=guild)
        async def counter(interaction: discord.Interaction[Any], hidden: bool = False) -> None:
            view = discord.ui.View(timeout=None)
            view.add_item(CounterButton(0))
            await interaction.response.send_message("count 0", view=view, ephemeral=hidden)

        @tree.command(description="Pick a colour", guild=guild)
        async def pick(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("pick one", view=ColourView())

        @tree.command(description="Opens a modal", guild=guild)
        async def feedback(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_modal(FeedbackModal())

        @tree.command(description="Opens a modal with too long a title", guild=guild)
        async def wordy_modal(interaction: discord.Interaction[Any]) -> None:
            modal = FeedbackModal()
            modal.title = "t" * 46
            try:
                await interaction.response.send_modal(modal)
            except discord.HTTPException as error:
                self.errors.append(error)

        duel = app_commands.Group(name="duel", description="Duels", guild_ids=[guild.id])

        @duel.command(description="Challenge someone")
        @app_commands.describe(opponent="Who to challenge", rounds="How many rounds")
        async def challenge(
            interaction: discord.Interaction[Any],
            opponent: discord.Member,
            rounds: app_commands.Range[int, 1, 9] = 3,
        ) -> None:
            text = (
                f"{interaction.user.name} challenges {opponent.display_name} "
                f"({type(opponent).__name__}) to {rounds} rounds"
            )
            await interaction.response.send_message(text, view=ChallengeView())

        @duel.command(description="Thinks, then answers")
        async def slow(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.defer(thinking=True)
            await interaction.followup.send("done")
            await interaction.followup.send("and more")

        @duel.command(description="Answers twice at once")
        async def twice(interaction: discord.Interaction[Any]) -> None:
            sends = (interaction.response.send_message(text) for text in ("first", "second"))
            results = await asyncio.gather(*sends, return_exceptions=True)
            self.errors += [r for r in results if isinstance(r, discord.HTTPException)]

        @duel.command(description="Answers when the test lets it")
        async def late(interaction: discord.Interaction[Any]) -> None:
            await self.gate.wait()
            try:
                await interaction.response.send_message("too late")
            except discord.HTTPException as error:
                self.errors.append(error)

        tree.add_command(duel)


@pytest.fixture
async def bot(
    fake_discord: FakeDiscord, guild: FakeGuild, channel: FakeChannel
) -> AsyncIterator[SampleBot]:
    """The sample bot, logged in and ready, in a guild that has ``channel``."""
    async with fake_discord.connected(SampleBot(guild.id)) as client:
        assert isinstance(client, SampleBot)
        yield client


@pytest.fixture
async def http(fake_discord: FakeDiscord) -> AsyncIterator[discord.http.HTTPClient]:
    """discord.py's own HTTP client, logged in, without a gateway connection."""
    client = discord.http.HTTPClient(asyncio.get_running_loop())
    await client.static_login(fake_discord.token)
    yield client
    await client.close()


async def answer(fake: FakeDiscord, interaction: FakeInteraction) -> FakeMessage:
    """The message the user sees first in answer to ``interaction``."""
    await fake.wait_for_response(interaction)
    assert interaction.original is not None
    return interaction.original


# -- login, ready, registration ---------------------------------------------------------------


async def test_login_reaches_ready_with_guilds_channels_and_commands(
    fake_discord: FakeDiscord, bot: SampleBot, guild: FakeGuild, channel: FakeChannel
) -> None:
    assert bot.user is not None and bot.user.id == fake_discord.bot.id
    assert bot.application_id == fake_discord.application_id
    client_guild = bot.get_guild(guild.id)
    assert client_guild is not None and client_guild.me is not None
    assert client_guild.get_channel(channel.id) is not None
    first_requests = [(r.method, r.path) for r in fake_discord.requests[:2]]
    assert first_requests == [("GET", "/users/@me"), ("GET", "/oauth2/applications/@me")]
    guild_commands = {command["name"] for command in fake_discord.commands(guild)}
    expected = {"ping", "settings", "counter", "pick", "feedback", "wordy_modal", "duel"}
    assert guild_commands == expected
    assert [command["name"] for command in fake_discord.commands()] == ["help"]


async def test_command_registration_over_discord_limits_is_refused(
    fake_discord: FakeDiscord, bot: SampleBot, guild: FakeGuild
) -> None:
    async def noop(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("never")

    wordy: app_commands.Command[Any, ..., None] = app_commands.Command(
        name="wordy", description="x" * 101, callback=noop
    )
    bot.tree.add_command(wordy, guild=bot.guild_object)
    before = fake_discord.commands(guild)

    with pytest.raises(discord.HTTPException) as refused:
        await bot.tree.sync(guild=bot.guild_object)

    assert refused.value.status == 400 and refused.value.code == 50035
    assert "Must be between 1 and 100 in length." in str(refused.value)
    assert fake_discord.commands(guild) == before


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ({"name": "Upper", "description": "d"}, "Command name is invalid"),
        ({"name": "x" * 33, "description": "d"}, "Command name is invalid"),
        ({"name": "ok", "description": ""}, "Must be between 1 and 100 in length."),
        (
            {
                "name": "many",
                "description": "d",
                "options": [{"type": 3, "name": f"o{i}", "description": "d"} for i in range(26)],
            },
            "Must be 25 or fewer in length.",
        ),
        (
            {
                "name": "choices",
                "description": "d",
                "options": [
                    {
                        "type": 3,
                        "name": "pick",
                        "description": "d",
                        "choices": [{"name": f"c{i}", "value": f"c{i}"} for i in range(26)],
                    }
                ],
            },
            "Must be 25 or fewer in length.",
        ),
        (
            {
                "name": "mixed",
                "description": "d",
                "options": [
                    {"type": 1, "name": "sub", "description": "d"},
                    {"type": 3, "name": "text", "description": "d"},
                ],
            },
            "cannot be mixed",
        ),
        (
            {
                "name": "deep",
                "description": "d",
                "options": [
                    {
                        "type": 2,
                        "name": "group",
                        "description": "d",
                        "options": [{"type": 2, "name": "inner", "description": "d"}],
                    }
                ],
            },
            "Sub-command groups",
        ),
        (
            {
                "name": "range",
                "description": "d",
                "options": [{"type": 3, "name": "t", "description": "d", "min_value": 1}],
            },
            "Only integer and number options can have a range",
        ),
        (
            {
                "name": "order",
                "description": "d",
                "options": [
                    {"type": 3, "name": "a", "description": "d"},
                    {"type": 3, "name": "b", "description": "d", "required": True},
                ],
            },
            "Required options must be placed before non-required options",
        ),
        (
            {"name": "cap", "description": "d", "name_localizations": {"de": "Groß"}},
            "Command name is invalid",
        ),
        (
            {"name": "space", "description": "d", "name_localizations": {"fr": "deux mots"}},
            "Command name is invalid",
        ),
        (
            {"name": "locale", "description": "d", "name_localizations": {"xx": "ok"}},
            "Value must be one of",
        ),
        (
            {"name": "empty", "description": "d", "description_localizations": {"fr": ""}},
            "Must be between 1 and 100 in length.",
        ),
        (
            {
                "name": "long",
                "description": "d",
                "options": [
                    {
                        "type": 3,
                        "name": "t",
                        "description": "d",
                        "description_localizations": {"de": "x" * 101},
                    }
                ],
            },
            "Must be between 1 and 100 in length.",
        ),
        (
            {
                "name": "option",
                "description": "d",
                "options": [
                    {"type": 3, "name": "t", "description": "d", "name_localizations": {"de": "T"}}
                ],
            },
            "Command name is invalid",
        ),
        (
            {
                "name": "choice",
                "description": "d",
                "options": [
                    {
                        "type": 3,
                        "name": "t",
                        "description": "d",
                        "choices": [
                            {"name": "a", "value": "a", "name_localizations": {"de": "x" * 101}}
                        ],
                    }
                ],
            },
            "Must be between 1 and 100 in length.",
        ),
        (
            {
                "name": "twins",
                "description": "d",
                "options": [
                    {"type": 3, "name": "a", "description": "d", "name_localizations": {"de": "b"}},
                    {"type": 3, "name": "b", "description": "d"},
                ],
            },
            "Duplicate",
        ),
    ],
)
async def test_invalid_command_payloads_are_refused(
    fake_discord: FakeDiscord,
    http: discord.http.HTTPClient,
    guild: FakeGuild,
    command: dict[str, Any],
    error: str,
) -> None:
    with pytest.raises(discord.HTTPException) as refused:
        await http.bulk_upsert_guild_commands(fake_discord.application_id, guild.id, [command])

    assert refused.value.code == 50035
    assert error in str(refused.value)
    assert fake_discord.commands(guild) == []


async def test_localised_commands_are_stored_and_listed_as_discord_lists_them(
    fake_discord: FakeDiscord, http: discord.http.HTTPClient, guild: FakeGuild
) -> None:
    names = {"de": "größe", "fr": "l'échelle", "hi": "आकार", "th": "ขนาด", "es-419": "tamaño"}
    command = {
        "name": "size",
        "description": "The size.",
        "name_localizations": names,
        "description_localizations": {"de": "Die Größe."},
        "options": [
            {
                "type": 3,
                "name": "unit",
                "description": "A unit.",
                "name_localizations": {"de": "einheit"},
                "choices": [
                    {"name": "Metres", "value": "m", "name_localizations": {"de": "Meter"}}
                ],
            }
        ],
    }
    application = fake_discord.application_id
    stored = await http.bulk_upsert_guild_commands(application, guild.id, [command])
    assert stored[0]["name_localizations"] == names

    route = Route("GET", "/applications/{a}/guilds/{g}/commands", a=application, g=guild.id)
    full = await http.request(route, params={"with_localizations": "true"})
    assert full[0]["description_localizations"] == {"de": "Die Größe."}
    assert full[0]["options"][0]["choices"][0]["name_localizations"] == {"de": "Meter"}
    plain = await http.request(route)
    assert "name_localizations" not in plain[0]
    assert "name_localizations" not in plain[0]["options"][0]["choices"][0]
    url = f"{fake_discord.api_base}/applications/{application}/guilds/{guild.id}/commands"
    headers = {"Authorization": f"Bot {fake_discord.token}", "X-Discord-Locale": "de"}
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as answer:
        german = await answer.json()
    assert german[0]["name_localized"] == "größe"
    assert german[0]["description_localized"] == "Die Größe."
    assert german[0]["options"][0]["choices"][0]["name_localized"] == "Meter"


# -- slash commands ---------------------------------------------------------------------------


async def test_slash_command_gets_a_public_answer(
    fake_discord: FakeDiscord, bot: SampleBot, channel: FakeChannel, alice: FakeMember
) -> None:
    interaction = await fake_discord.slash(alice, channel, "ping")

    message = await answer(fake_discord, interaction)

    assert message.content == "ok" and not message.ephemeral
    assert interaction.response_type == 4 and interaction.latency is not None
    assert fake_discord.messages(channel) == [message]
    # Like Discord, the gateway tells the bot about its own public messages too.
    own = await fake_discord.wait_until(
        lambda: [m for m in bot.seen_messages if m.id == message.id]
    )
    assert own[0].author == bot.user


async def test_ephemeral_answer_is_seen_only_by_the_user(
    fake_discord: FakeDiscord,
    bot: SampleBot,
    channel: FakeChannel,
    alice: FakeMember,
    bob: FakeMember,
) -> None:
    interaction = await fake_discord.slash(alice, channel, "ping", hidden=True)

    message = await answer(fake_discord, interaction)

    assert message.ephemeral and message.content == "ok"
    assert fake_discord.ephemeral_messages(interaction) == [message]
    assert fake_discord.messages(channel) == []
    assert message in fake_discord.visible_messages(alice, channel)
    assert message not in fake_discord.visible_messages(bob, channel)


async def test_group_command_resolves_member_and_integer_options(
    fake_discord: FakeDiscord,
    bot: SampleBot,
    channel: FakeChannel,
    alice: FakeMember,
    bob: FakeMember,
) -> None:
    interaction = await fake_discord.slash(alice, channel, "duel challenge", opponent=bob, rounds=5)

    message = await answer(fake_discord, interaction)

    assert message.content == "alice challenges bob (Member) to 5 rounds"
    option = interaction.data["options"][0]
    assert option["type"] == 1 and option["name"] == "challenge"
    assert str(bob.id) in interaction.data["resolved"]["members"]
    assert message.custom_ids == ["challenge:accept"]


@pytest.mark.parametrize(
    ("command", "options", "complaint"),
    [
        ("duel challenge", {"rounds": 3}, "needs option 'opponent'"),
        ("duel challenge", {"opponent": "bob"}, "cannot take"),
        ("duel challenge", {"opponent": OPPONENT, "rounds": 10}, "must be within 1..9"),
        ("duel challenge", {"opponent": OPPONENT, "rounds": "3"}, "takes an integer"),
        ("duel challenge", {"opponent": OPPONENT, "colour": "red"}, "has no option colour"),
        ("duel", {}, "needs one of"),
        ("duel fight", {}, "has no subcommand 'fight'"),
        ("nope", {}, "is not registered"),
    ],
)
async def test_invocations_discord_would_not_send_are_refused(
    fake_discord: FakeDiscord,
    bot: SampleBot,
    channel: FakeChannel,
    alice: FakeMember,
    bob: FakeMember,
    command: str,
    options: dict[str, object],
    complaint: str,
) -> None:
    options = {name: bob if value is OPPONENT else value for name, value in options.items()}

    with pytest.raises(InvalidInvocation, match=complaint):
        await fake_discord.slash(alice, channel, command, **options)

    assert fake_discord.interactions == []


async def test_bots_and_outsiders_cannot_invoke_commands(
    fake_discord: FakeDiscord, bot: SampleBot, guild: FakeGuild, channel: FakeChannel
) -> None:
    robot = fake_discord.add_member(guild, fake_discord.add_user("robot", bot=True))
    outsider = fake_discord.add_user("outsider")

    with pytest.raises(InvalidInvocation, match="is a bot"):
        await fake_discord.slash(robot, channel, "ping")
    with pytest.raises(InvalidInvocation, match="not a member"):
        await fake_discord.slash(outsider, channel, "ping")


async def test_default_member_permissions_limit_who_can_invoke(
    fake_discord: FakeDiscord,
    bot: SampleBot,
    guild: FakeGuild,
    channel: FakeChannel,
    alice: FakeMember,
) -> None:
    managers = fake_discord.add_role(guild, "managers", permissions=MANAGE_GUILD)
    manager = fake_discord.add_member(guild, fake_discord.add_user("mia"), roles=(managers,))

    with pytest.raises(InvalidInvocation, match="lacks the permissions"):
        await fake_discord.slash(alice, channel, "settings")
    for allowed in (manager, fake_discord.owner):
        reply = await answer(fake_discord, await fake_discord.slash(allowed, channel, "settings"))
        assert reply.content == "settings"


async def test_global_command_works_in_a_dm_and_guild_commands_do_not(
    fake_discord: FakeDiscord, bot: SampleBot, alice: FakeMember
) -> None:
    dm = fake_discord.dm_channel(alice)

    interaction = await fake_discord.slash(alice, dm, "help")
    message = await answer(fake_discord, interaction)

    assert message.content == "help from a DM"
    assert "user" in interaction.payload and "member" not in interaction.payload
    assert interaction.payload["channel"]["type"] == 1
    with pytest.raises(InvalidInvocation, match="not registered in DMs"):
        await fake_discord.slash(alice, dm, "ping")


async def test_deferred_answer_is_completed_by_the_first_followup(
    fake_discord: FakeDiscord, bot: SampleBot, channel: FakeChannel, alice: FakeMember
) -> None:
    interaction = await fake_discord.slash(alice, channel, "duel slow")

    message = await answer(fake_discord, interaction)
    await fake_discord.wait_until(lambda: interaction.followups)

    assert interaction.response_type == 5
    assert message.content == "done" and not message.loading
    assert [m.content for m in interaction.messages] == ["done", "and more"]
    assert [m.content for m in fake_discord.messages(channel)] == ["done", "and more"]


# -- components and modals --------------------------------------------------------------------


async def test_button_click_updates_the_message(
    fake_discord: FakeDiscord,
    bot: SampleBot,
    channel: FakeChannel,
    alice: FakeMember,
    bob: FakeMember,
) -> None:
    challenge = await fake_discord.slash(alice, channel, "duel challenge", opponent=bob)
    message = await answer(fake_discord, challenge)

    click = await fake_discord.click(bob, message, "challenge:accept")
    await fake_discord.wait_for_response(click)

    assert click.response_type == 7 and click.original is message
    assert message.content == "accepted by bob"
    assert message.history[0]["content"].startswith("alice challenges bob")
    assert message.buttons[0]["disabled"] is True
    with pytest.raises(InvalidInvocation, match="disabled"):
        await fake_discord.click(alice, message, "challenge:accept")
    with pytest.raises(InvalidInvocation, match="no component"):
        await fake_discord.click(alice, message, "challenge:decline")


async def test_dynamic_item_button_keeps_working_as_its_custom_id_changes(
    fake_discord: FakeDiscord, bot: SampleBot, channel: FakeChannel, alice: FakeMember
) -> None:
    message = await answer(fake_discord, await fake_discord.slash(alice, channel, "counter"))

    for expected in (1, 2):
        click = await fake_discord.click(alice, message, f"counter:{expected - 1}")
        await fake_discord.wait_for_response(click)
        assert message.content == f"count {expected}"
        assert message.custom_ids == [f"counter:{expected}"]


async def test_buttons_on_an_ephemeral_message_work_only_for_its_user(
    fake_discord: FakeDiscord,
    bot: SampleBot,
    channel: FakeChannel,
    alice: FakeMember,
    bob: FakeMember,
) -> None:
    hidden = await fake_discord.slash(alice, channel, "counter", hidden=True)
    message = await answer(fake_discord, hidden)

    with pytest.raises(InvalidInvocation, match="cannot see that ephemeral message"):
        await fake_discord.click(bob, message, "counter:0")
    click = await fake_discord.click(alice, message, "counter:0")
    await fake_discord.wait_for_response(click)

    assert message.ephemeral and message.content == "count 1"
    assert click.payload["message"]["flags"] & 64


async def test_select_menu_choice_reaches_the_bot(
    fake_discord: FakeDiscord, bot: SampleBot, channel: FakeChannel, alice: FakeMember
) -> None:
    message = await answer(fake_discord, await fake_discord.slash(alice, channel, "pick"))

    with pytest.raises(InvalidInvocation, match="has no option green"):
        await fake_discord.select(alice, message, "colour", ["green"])
    choice = await fake_discord.select(alice, message, "colour", ["blue"])
    await fake_discord.wait_for_response(choice)

    assert message.content == "picked blue" and message.components == []


async def test_modal_submission_reaches_the_modal(
    fake_discord: FakeDiscord,
    bot: SampleBot,
    channel: FakeChannel,
    alice: FakeMember,
    bob: FakeMember,
) -> None:
    opened = await fake_discord.wait_for_response(
        await fake_discord.slash(alice, channel, "feedback")
    )
    assert opened.modal is not None and opened.modal["title"] == "Feedback"
    assert [field["custom_id"] for field in opened.modal_text_inputs] == ["comment"]

    with pytest.raises(InvalidInvocation, match="shown to alice"):
        await fake_discord.submit_modal(bob, opened, "feedback", {"comment": "hi"})
    with pytest.raises(InvalidInvocation, match="takes 0 to 50 characters"):
        await fake_discord.submit_modal(alice, opened, "feedback", {"comment": "x" * 51})
    submitted = await fake_discord.submit_modal(alice, opened, "feedback", {"comment": "great"})
    reply = await answer(fake_discord, submitted)

    assert reply.content == "thanks: great" and reply.ephemeral
    with pytest.raises(InvalidInvocation, match="already submitted"):
        await fake_discord.submit_modal(alice, opened, "feedback", {"comment": "again"})


# -- interaction rules ------------------------------------------------------------------------


async def test_modal_over_discord_limits_is_refused(
    fake_discord: FakeDiscord, bot: SampleBot, channel: FakeChannel, alice: FakeMember
) -> None:
    interaction = await fake_discord.slash(alice, channel, "wordy_modal")

    await fake_discord.wait_until(lambda: bot.errors)

    assert bot.errors[0].code == 50035 and "In data.title" in str(bot.errors[0])
    assert not interaction.acknowledged


async def test_second_initial_response_is_refused(
    fake_discord: FakeDiscord, bot: SampleBot, channel: FakeChannel, alice: FakeMember
) -> None:
    interaction = await fake_discord.slash(alice, channel, "duel twice")

    await fake_discord.wait_until(lambda: bot.errors)

    assert [error.code for error in bot.errors] == [40060]
    assert interaction.original is not None
    assert fake_discord.messages(channel) == [interaction.original]


async def test_answer_after_the_deadline_is_an_unknown_interaction(
    fake_discord: FakeDiscord, bot: SampleBot, channel: FakeChannel, alice: FakeMember
) -> None:
    interaction = await fake_discord.slash(alice, channel, "duel late")
    fake_discord.interaction_deadline = 0.0  # every answer from now on comes too late

    bot.gate.set()
    await fake_discord.wait_until(lambda: bot.errors)

    assert isinstance(bot.errors[0], discord.NotFound) and bot.errors[0].code == 10062
    assert not interaction.acknowledged
    assert fake_discord.messages(channel) == []


# -- messages and DMs -------------------------------------------------------------------------


async def test_dm_text_reaches_on_message_without_the_content_intent(
    fake_discord: FakeDiscord, bot: SampleBot, alice: FakeMember
) -> None:
    assert not bot.intents.message_content

    sent = await fake_discord.dm(alice, "2 3")
    received = await fake_discord.wait_until(
        lambda: [m for m in bot.seen_messages if m.id == sent.id]
    )

    assert received[0].content == "2 3" and received[0].guild is None
    assert isinstance(received[0].channel, discord.DMChannel)
    assert fake_discord.dms(alice) == [sent]


async def test_guild_text_arrives_without_content_lacking_the_intent(
    fake_discord: FakeDiscord, bot: SampleBot, channel: FakeChannel, alice: FakeMember
) -> None:
    sent = await fake_discord.send(alice, channel, "hello everyone")
    received = await fake_discord.wait_until(
        lambda: [m for m in bot.seen_messages if m.id == sent.id]
    )

    assert received[0].content == ""
    assert received[0].author.id == alice.id


async def test_dm_to_open_user_arrives_and_to_closed_user_is_forbidden(
    fake_discord: FakeDiscord, bot: SampleBot, alice: FakeMember, carol: FakeMember
) -> None:
    await (await bot.fetch_user(alice.id)).send("your secret: 2 3")
    closed = await bot.fetch_user(carol.id)

    with pytest.raises(discord.Forbidden) as refused:
        await closed.send("your secret: 1 1")

    assert refused.value.code == 50007
    assert [m.content for m in fake_discord.dms(alice)] == ["your secret: 2 3"]
    assert fake_discord.dms(carol) == []
    arrived = await fake_discord.wait_for_message(alice, lambda m: "secret" in m.content)
    assert arrived.author is fake_discord.bot


async def test_bot_edits_and_deletes_its_channel_message(
    fake_discord: FakeDiscord, bot: SampleBot, channel: FakeChannel
) -> None:
    text_channel = bot.get_channel(channel.id)
    assert isinstance(text_channel, discord.TextChannel)

    sent = await text_channel.send("first")
    await sent.edit(content="second", embed=discord.Embed(title="Board"))
    stored = fake_discord.messages(channel)[0]
    fetched = await text_channel.fetch_message(sent.id)
    await fetched.delete()

    assert stored.content == "second" and stored.embeds[0]["title"] == "Board"
    assert fetched.content == "second"
    assert fake_discord.messages(channel) == []


# -- Discord's limits -------------------------------------------------------------------------


def button(custom_id: str, label: str = "Go") -> dict[str, Any]:
    return {"type": 2, "style": 1, "custom_id": custom_id, "label": label}


def row(*components: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(components)}


def embed(**fields: Any) -> dict[str, Any]:
    return {"type": "rich", **fields}


SELECT = {"type": 3, "custom_id": "pick", "options": [{"label": "a", "value": "a"}]}


@pytest.mark.parametrize(
    ("payload", "code", "complaint"),
    [
        ({"content": "x" * 2001}, 50035, "In content: Must be 2000 or fewer in length."),
        ({}, 50006, "Cannot send an empty message"),
        ({"content": "", "embeds": [], "components": []}, 50006, "empty message"),
        ({"embeds": [embed(title="t")] * 11}, 50035, "In embeds: Must be 10 or fewer"),
        ({"embeds": [embed(title="t" * 257)]}, 50035, "In embeds.0.title"),
        ({"embeds": [embed(description="d" * 4097)]}, 50035, "In embeds.0.description"),
        (
            {"embeds": [embed(fields=[{"name": "n", "value": "v"}] * 26)]},
            50035,
            "In embeds.0.fields",
        ),
        ({"embeds": [embed(fields=[{"name": "n" * 257, "value": "v"}])]}, 50035, "fields.0.name"),
        (
            {"embeds": [embed(fields=[{"name": "n", "value": "v" * 1025}])]},
            50035,
            "fields.0.value",
        ),
        ({"embeds": [embed(footer={"text": "f" * 2049})]}, 50035, "In embeds.0.footer.text"),
        ({"embeds": [embed(author={"name": "a" * 257})]}, 50035, "In embeds.0.author.name"),
        (
            {"embeds": [embed(description="d" * 4000), embed(description="d" * 2001)]},
            50035,
            "Embed size exceeds maximum size of 6000",
        ),
        (
            {"components": [row(button(f"b{i}")) for i in range(6)]},
            50035,
            "In components: Must be 5 or fewer",
        ),
        (
            {"components": [row(*(button(f"b{i}") for i in range(6)))]},
            50035,
            "In components.0.components",
        ),
        ({"components": [row(button("x" * 101))]}, 50035, "components.0.components.0.custom_id"),
        ({"components": [row(button(""))]}, 50035, "Must be between 1 and 100 in length."),
        (
            {"components": [row(button("same")), row(button("same"))]},
            50035,
            "Component custom id cannot be duplicated",
        ),
        (
            {"components": [row(button("b", label="l" * 81))]},
            50035,
            "components.0.components.0.label",
        ),
        ({"components": [row(SELECT, button("b"))]}, 50035, "exceeds the maximum width"),
        (
            {
                "components": [
                    row(
                        {
                            **SELECT,
                            "options": [{"label": f"{i}", "value": f"{i}"} for i in range(26)],
                        }
                    )
                ]
            },
            50035,
            "components.0.components.0.options",
        ),
        ({"components": [button("bare")]}, 50035, "In components.0.type"),
    ],
)
async def test_messages_over_discord_limits_raise_http_exception(
    fake_discord: FakeDiscord,
    http: discord.http.HTTPClient,
    channel: FakeChannel,
    payload: dict[str, Any],
    code: int,
    complaint: str,
) -> None:
    route = Route("POST", "/channels/{channel_id}/messages", channel_id=channel.id)

    with pytest.raises(discord.HTTPException) as refused:
        await http.request(route, json=payload)

    assert refused.value.status == 400 and refused.value.code == code
    assert complaint in str(refused.value)
    assert fake_discord.messages(channel) == []


async def test_messages_at_the_limits_are_accepted(
    fake_discord: FakeDiscord, http: discord.http.HTTPClient, channel: FakeChannel
) -> None:
    route = Route("POST", "/channels/{channel_id}/messages", channel_id=channel.id)
    payload = {
        "content": "x" * 2000,
        "embeds": [embed(title="t" * 256, description="d" * 3696, footer={"text": "f" * 2048})],
        "components": [row(*(button(f"r{r}b{b}", "l" * 80) for b in range(5))) for r in range(5)],
    }

    created = await http.request(route, json=payload)

    assert fake_discord.messages(channel)[0].id == int(created["id"])


async def test_json_answers_have_the_exact_content_type_and_unknown_routes_are_recorded() -> None:
    async with FakeDiscord() as fake, aiohttp.ClientSession() as session:
        headers = {"Authorization": f"Bot {fake.token}"}
        async with session.get(f"{fake.api_base}/users/@me", headers=headers) as known:
            assert known.headers["Content-Type"] == "application/json"
            assert (await known.json())["id"] == str(fake.bot.id)
        async with session.get(f"{fake.api_base}/no/such/route", headers=headers) as unknown:
            assert unknown.status == 404
            assert await unknown.json() == {"message": "404: Not Found", "code": 0}
        async with session.get(f"{fake.api_base}/users/@me") as anonymous:
            assert anonymous.status == 401

    assert [str(r) for r in fake.unexpected_requests] == ["GET /no/such/route -> 404"]


# -- gateway ----------------------------------------------------------------------------------


@pytest.mark.parametrize("cut", ["drop", "reconnect"])
async def test_client_resumes_after_losing_the_connection_and_gets_missed_events(
    fake_discord: FakeDiscord, bot: SampleBot, channel: FakeChannel, alice: FakeMember, cut: str
) -> None:
    if cut == "drop":
        await fake_discord.drop_gateway()
    else:
        fake_discord.request_reconnect()
    # Sent while the bot reconnects: it arrives when the session resumes.
    interaction = await fake_discord.slash(alice, channel, "ping")

    message = await answer(fake_discord, interaction)

    assert message.content == "ok"
    assert bot.resumed.is_set()
    assert fake_discord.gateway.resume_count == 1 and fake_discord.gateway.identify_count == 1


async def test_members_intent_gets_the_member_list_in_chunks(
    fake_discord: FakeDiscord, guild: FakeGuild, channel: FakeChannel, alice: FakeMember
) -> None:
    client = SampleBot(guild.id, discord.Intents(guilds=True, members=True))

    async with fake_discord.connected(client):
        client_guild = client.get_guild(guild.id)
        assert client_guild is not None and client_guild.chunked
        names = sorted(member.name for member in client_guild.members)

    assert names == sorted(["alice", fake_discord.owner.name, fake_discord.bot.name])


async def test_privileged_intents_not_enabled_stop_the_client() -> None:
    fake = FakeDiscord(privileged_intents=False)
    await fake.start()
    try:
        guild = fake.add_guild("Parlor test", bot_permissions=BOT_PERMISSIONS)
        client = SampleBot(guild.id, discord.Intents(guilds=True, message_content=True))
        with fake.patch_discord(), pytest.raises(ClientStopped) as stopped:
            async with fake.connected(client):
                pass
    finally:
        await fake.close()

    assert isinstance(stopped.value.__cause__, discord.PrivilegedIntentsRequired)
    assert client.is_closed()
