"""Threads in the fake Discord, driven through discord.py: starting, posting, archiving, locking.

The bot's cache must follow the fake (THREAD_CREATE, THREAD_UPDATE, GUILD_CREATE's threads), and
the routes answer as Discord does in archived and locked threads.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import discord
import pytest

from .fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeMember, InvalidInvocation
from .fake_discord.permissions import (
    CREATE_PUBLIC_THREADS,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
)
from .fake_discord.records import THREAD_CREATED

PUBLIC_THREAD = 11
THREAD_ARCHIVED = 50083
THREAD_LOCKED = 160005
HAS_THREAD = 1 << 5


class ThreadBot(discord.Client):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.02)

    def text(self, channel: FakeChannel) -> discord.TextChannel:
        found = self.get_channel(channel.id)
        assert isinstance(found, discord.TextChannel)
        return found

    def thread(self, thread_id: int) -> discord.Thread | None:
        found = self.get_channel(thread_id)
        return found if isinstance(found, discord.Thread) else None


@pytest.fixture
async def bot(fake_discord: FakeDiscord, channel: FakeChannel) -> AsyncIterator[ThreadBot]:
    async with fake_discord.connected(ThreadBot()) as client:
        assert isinstance(client, ThreadBot)
        yield client


async def cached_thread(fake: FakeDiscord, bot: ThreadBot, thread: FakeChannel) -> discord.Thread:
    """The client's Thread once THREAD_CREATE has reached it."""
    return await fake.wait_until(lambda: bot.thread(thread.id), what="THREAD_CREATE")


async def test_the_bot_starts_public_threads_and_posts_in_them(
    fake_discord: FakeDiscord, channel: FakeChannel, bot: ThreadBot
) -> None:
    text = bot.text(channel)
    started = await text.create_thread(name="duel", type=discord.ChannelType.public_thread)
    thread = fake_discord.state.channel(started.id)
    assert (thread.type, thread.parent_id, thread.owner_id) == (
        PUBLIC_THREAD,
        channel.id,
        fake_discord.bot.id,
    )
    assert fake_discord.bot.id in thread.member_ids
    await started.send("in the thread")
    assert [m.content for m in fake_discord.messages(thread)] == ["in the thread"]
    assert thread.message_count == 1
    assert (await cached_thread(fake_discord, bot, thread)).parent_id == channel.id

    opener = await text.send("from here")
    from_message = await opener.create_thread(name="replies")
    assert from_message.id == opener.id
    assert fake_discord.state.channel(opener.id).type == PUBLIC_THREAD
    assert fake_discord.state.messages[opener.id].flags & HAS_THREAD
    # Discord says in the channel that each thread was started, referring to the thread.
    notices = [m for m in fake_discord.messages(channel) if m.type == THREAD_CREATED]
    assert [(m.content, m.reference["channel_id"]) for m in notices] == [
        ("duel", str(started.id)),
        ("replies", str(opener.id)),
    ]
    with pytest.raises(discord.HTTPException) as refused:
        await opener.create_thread(name="again")
    assert (refused.value.status, refused.value.code) == (400, 160004)


async def test_starting_a_thread_needs_create_public_threads(
    fake_discord: FakeDiscord, channel: FakeChannel, bot: ThreadBot
) -> None:
    text = bot.text(channel)
    opener = await text.send("from here")
    fake_discord.set_overwrite(channel, fake_discord.bot, deny=CREATE_PUBLIC_THREADS)
    for attempt in (
        text.create_thread(name="t", type=discord.ChannelType.public_thread),
        opener.create_thread(name="t"),
    ):
        with pytest.raises(discord.Forbidden) as refused:
            await attempt
        assert refused.value.code == 50013
    assert channel.id in fake_discord.state.channels
    assert not any(c.is_thread for c in fake_discord.state.channels.values())


async def test_threads_take_send_messages_in_threads_not_send_messages(
    fake_discord: FakeDiscord, guild: FakeGuild, channel: FakeChannel, bot: ThreadBot
) -> None:
    thread = fake_discord.add_thread(channel, "talk")
    cached = await cached_thread(fake_discord, bot, thread)
    fake_discord.set_overwrite(channel, fake_discord.bot, deny=SEND_MESSAGES)
    assert fake_discord.bot.id not in thread.member_ids
    await cached.send("still allowed in the thread")
    assert fake_discord.bot.id in thread.member_ids  # posting joins the thread
    with pytest.raises(discord.Forbidden):
        await bot.text(channel).send("not in the channel")
    fake_discord.set_overwrite(
        channel, fake_discord.bot, allow=SEND_MESSAGES, deny=SEND_MESSAGES_IN_THREADS
    )
    with pytest.raises(discord.Forbidden) as refused:
        await cached.send("not in the thread")
    assert refused.value.code == 50013
    assert [m.content for m in fake_discord.messages(thread)] == ["still allowed in the thread"]


async def test_posting_in_an_archived_thread_unarchives_it(
    fake_discord: FakeDiscord, channel: FakeChannel, bot: ThreadBot
) -> None:
    thread = fake_discord.add_thread(channel, "old")
    cached = await cached_thread(fake_discord, bot, thread)
    fake_discord.set_thread_state(thread, archived=True)
    await fake_discord.wait_until(lambda: cached.archived, what="THREAD_UPDATE (archived)")
    assert bot.thread(thread.id) is None  # discord.py drops archived threads from its cache
    await cached.send("wake up")
    assert not thread.archived
    back = await cached_thread(fake_discord, bot, thread)  # THREAD_UPDATE brought it back
    assert not back.archived
    assert [m.content for m in fake_discord.messages(thread)] == ["wake up"]


async def test_archived_and_locked_threads_refuse_as_discord_does(
    fake_discord: FakeDiscord, channel: FakeChannel, bot: ThreadBot
) -> None:
    thread = fake_discord.add_thread(channel, "closing")
    cached = await cached_thread(fake_discord, bot, thread)
    first, second = [await cached.send(text) for text in ("first", "second")]

    fake_discord.set_thread_state(thread, archived=True)
    with pytest.raises(discord.HTTPException) as refused:
        await first.edit(content="edited")
    assert (refused.value.status, refused.value.code) == (400, THREAD_ARCHIVED)
    await first.delete()  # deleting is what an archived thread allows

    fake_discord.set_thread_state(thread, locked=True)
    for attempt in (cached.send("locked out"), second.delete()):
        with pytest.raises(discord.HTTPException) as refused:
            await attempt
        assert (refused.value.status, refused.value.code) == (400, THREAD_ARCHIVED)

    fake_discord.set_thread_state(thread, archived=False)  # active, still locked
    for attempt in (cached.send("locked out"), second.edit(content="edited")):
        with pytest.raises(discord.Forbidden) as refused:
            await attempt
        assert refused.value.code == THREAD_LOCKED
    assert [m.content for m in fake_discord.messages(thread)] == ["second"]


async def test_the_bot_archives_its_thread_but_may_not_lock_it(
    fake_discord: FakeDiscord, channel: FakeChannel, bot: ThreadBot
) -> None:
    started = await bot.text(channel).create_thread(
        name="mine", type=discord.ChannelType.public_thread
    )
    thread = fake_discord.state.channel(started.id)
    with pytest.raises(discord.Forbidden):
        await started.edit(locked=True)
    await started.edit(archived=True)
    assert thread.archived
    with pytest.raises(discord.HTTPException) as refused:
        await started.edit(name="renamed")
    assert refused.value.code == THREAD_ARCHIVED
    await started.edit(archived=False, name="renamed")
    assert (thread.archived, thread.name) == (False, "renamed")


async def test_members_post_in_threads_as_discord_lets_them(
    fake_discord: FakeDiscord, channel: FakeChannel, alice: FakeMember, bot: ThreadBot
) -> None:
    thread = fake_discord.add_thread(channel, "chat", owner=alice)
    fake_discord.set_thread_state(thread, archived=True)
    with pytest.raises(InvalidInvocation, match="archived"):
        await fake_discord.slash(alice, thread, "anything")
    await fake_discord.send(alice, thread, "back")
    assert not thread.archived
    fake_discord.set_thread_state(thread, archived=True, locked=True)
    with pytest.raises(InvalidInvocation, match="locked"):
        await fake_discord.send(alice, thread, "again")
    message = await fake_discord.wait_for_message(thread, by_bot=False)
    assert message.content == "back"


async def test_guild_create_carries_the_active_threads_the_bot_can_see(
    fake_discord: FakeDiscord, channel: FakeChannel, alice: FakeMember
) -> None:
    active = fake_discord.add_thread(channel, "active")
    archived = fake_discord.add_thread(channel, "archived")
    fake_discord.set_thread_state(archived, archived=True)
    private = fake_discord.add_thread(channel, "private", owner=alice, private=True)
    async with fake_discord.connected(ThreadBot()) as client:
        assert isinstance(client, ThreadBot)
        guild = client.get_guild(channel.guild_id or 0)
        assert guild is not None
        assert [t.id for t in guild.threads] == [active.id]
        with pytest.raises(discord.Forbidden) as refused:
            await client.fetch_channel(private.id)
        assert refused.value.code == 50001
        fetched = await client.fetch_channel(archived.id)
        assert isinstance(fetched, discord.Thread) and fetched.archived


async def test_a_server_at_its_active_thread_cap_starts_no_more(
    fake_discord: FakeDiscord, channel: FakeChannel, bot: ThreadBot
) -> None:
    fake_discord.state.active_thread_cap = 1
    text = bot.text(channel)
    first = await (await text.send("one")).create_thread(name="one", auto_archive_duration=10080)
    assert fake_discord.state.channel(first.id).auto_archive_duration == 10080
    second = await text.send("two")
    for attempt in (
        second.create_thread(name="two"),
        text.create_thread(name="two", type=discord.ChannelType.public_thread),
    ):
        with pytest.raises(discord.HTTPException) as refused:
            await attempt
        assert (refused.value.status, refused.value.code) == (400, 160006)
    # An archived thread leaves room; posting in it again needs that room back.
    thread = fake_discord.state.channel(first.id)
    await first.edit(archived=True)
    third = await second.create_thread(name="two")
    with pytest.raises(discord.HTTPException) as refused:
        await first.send("wake up")
    assert refused.value.code == 160006
    assert thread.archived
    await third.edit(archived=True)
    await first.send("wake up")
    assert not thread.archived


async def test_a_thread_takes_only_discords_archive_durations(
    fake_discord: FakeDiscord, channel: FakeChannel, bot: ThreadBot
) -> None:
    opener = await bot.text(channel).send("here")
    route = discord.http.Route(
        "POST",
        "/channels/{channel_id}/messages/{message_id}/threads",
        channel_id=channel.id,
        message_id=opener.id,
    )
    with pytest.raises(discord.HTTPException) as refused:
        await bot.http.request(route, json={"name": "t", "auto_archive_duration": 120})
    assert (refused.value.status, refused.value.code) == (400, 50035)
    assert not any(c.is_thread for c in fake_discord.state.channels.values())
