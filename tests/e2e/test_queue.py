"""The quick-pair queue through the fake Discord: six members join with ``/play``, the waves pair
four of them by rating, and of the two left far apart one takes the bot's private offer."""

from __future__ import annotations

import logging
from collections import Counter
from logging import WARNING
from typing import TYPE_CHECKING, cast

import discord
import pytest

from bot.chat.queue.commands import QueueCog
from db.models import PlayerStats

from .fake_discord.permissions import VIEW_CHANNEL
from .fake_discord.state import MANAGE_GUILD

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import (
        FakeDiscord,
        FakeGuild,
        FakeInteraction,
        FakeMember,
        FakeMessage,
        RecordedRequest,
    )

pytest_plugins = ("tests.e2e.bot_fixtures",)

RATINGS = {"ann": 1210, "ben": 1480, "cat": 1830, "dan": 1250, "eve": 1500, "fay": 2400}
WAVE = 8.0
"""Seconds to wait for the next queue round (one every 5 s)."""


@pytest.fixture
def six(fake_discord: FakeDiscord, guild: FakeGuild) -> dict[str, FakeMember]:
    return {name: fake_discord.add_member(guild, fake_discord.add_user(name)) for name in RATINGS}


async def test_six_members_are_paired_by_rating_and_one_plays_the_bot(
    table: Table, guild: FakeGuild, six: dict[str, FakeMember]
) -> None:
    bot, fake = table.bot, table.fake
    assert bot is not None and table.app is not None
    async with table.app.matches.runner.sessions.begin() as session:
        for name, rating in RATINGS.items():
            session.add(
                PlayerStats(guild_id=table.channel.guild_id, game="crystal",
                            user_id=six[name].id, rating=float(rating), deviation=60.0)
            )  # fmt: skip
    role = fake.add_role(guild, "mods", permissions=MANAGE_GUILD)
    mod = fake.add_member(guild, fake.add_user("mod"), roles=(role,))
    refused = table.answer(await table.slash(mod, "settings", queue_wait="11m"))
    assert "The queue's wait is at most 10 minutes." in refused
    saved = table.answer(await table.slash(mod, "settings", queue_wait="2s"))
    assert "after 2 seconds waiting" in saved
    answers: dict[str, FakeInteraction] = {}
    for name, member in six.items():
        answers[name] = await table.slash(member, "play", game="crystal")
        (answer,) = answers[name].messages
        assert answer.ephemeral and "You are waiting for Crystal Capture" in answer.text
    queue_messages = [m for m in fake.messages(table.channel) if "Crystal Capture queue" in m.text]
    assert len(queue_messages) == 1  # one message per game and channel, edited in place

    def started() -> list[frozenset[int]]:
        boards = [m for m in fake.messages(table.channel) if m.embeds and "moves first" in m.text]
        pairs = []
        for board in boards:
            ids = {member.id for member in six.values() if f"<@{member.id}>" in board.text}
            pairs.append(frozenset(ids))
        return pairs

    await fake.wait_until(lambda: len(started()) == 2, timeout=WAVE, what="two matches")
    ids = {name: member.id for name, member in six.items()}
    assert set(started()) == {
        frozenset({ids["ann"], ids["dan"]}),
        frozenset({ids["ben"], ids["eve"]}),
    }
    await fake.wait_until(
        lambda: "2 are waiting" in queue_messages[0].text, timeout=WAVE, what="the count"
    )
    # cat (1830) and fay (2400) are too far apart; after the server's 2 s both are offered me.
    table.clock.advance(seconds=3)

    def offer(name: str) -> object:
        return next((m for m in answers[name].messages if "Play me at level" in m.text), None)

    await fake.wait_until(lambda: offer("cat") and offer("fay"), timeout=WAVE, what="offers")
    cat_offer = next(m for m in answers["cat"].messages if "Play me at level hard" in m.text)
    assert cat_offer.ephemeral
    pressed = await fake.click(six["cat"], cat_offer, cat_offer.custom_ids[0])
    await fake.wait_for_response(pressed)
    versus = await table.posted(lambda m: bool(m.embeds) and "plays me at level hard" in m.text,
                                after=0)  # fmt: skip
    assert f"<@{ids['cat']}>" in versus.text and not versus.ephemeral
    # An extension is loaded as a module of its own: its class is not this test's import.
    cog = cast(QueueCog, bot.get_cog(QueueCog.__cog_name__))
    assert await cog.queue.place(ids["cat"]) is None
    await fake.wait_until(
        lambda: "1 is waiting" in queue_messages[0].text, timeout=WAVE, what="the count"
    )
    leave = next(c for c in queue_messages[0].custom_ids if c.endswith("leave:crystal"))
    left = await fake.click(six["fay"], queue_messages[0], leave)
    await fake.wait_for_response(left)
    assert "You left the queue." in table.answer(left)
    assert await cog.queue.place(ids["fay"]) is None


async def test_a_queue_channel_out_of_reach_is_held_and_the_others_keep_their_count(
    table: Table, guild: FakeGuild, caplog: pytest.LogCaptureFixture
) -> None:
    """Two channels' queues; the bot loses access to one. The other's message keeps its count,
    the lost one is tried once, logged once and held (no request, no error, every round), and
    once access is back its message shows the count as it is then."""
    fake, app = table.fake, table.app
    assert app is not None
    caplog.set_level(logging.INFO)
    lost, lobby = table.channel, fake.add_text_channel(guild, "lobby")
    ann, ben = (fake.add_member(guild, fake.add_user(name)) for name in ("ann", "ben"))
    for member, channel in ((ann, lost), (ben, lobby)):
        joined = await fake.wait_for_response(
            await fake.slash(member, channel, "play", game="crystal")
        )
        assert "You are waiting for Crystal Capture" in table.answer(joined)
    lost_queue, lobby_queue = [
        await fake.wait_for_message(place, lambda m: "Crystal Capture queue" in m.text)
        for place in (lost, lobby)
    ]
    assert "1 is waiting" in lost_queue.text and "1 is waiting" in lobby_queue.text
    app.queue.waves.change_interval(seconds=0.1)  # quicker rounds; the same rounds

    fake.set_overwrite(lost, fake.bot, deny=VIEW_CHANNEL)  # 403 Missing Access (50001)
    bot = table.bot
    assert bot is not None

    def access_gone() -> bool:
        place = bot.get_channel(lost.id)
        assert isinstance(place, discord.TextChannel)
        return not place.permissions_for(place.guild.me).view_channel

    await fake.wait_until(access_gone, what="the bot to see its access gone")
    invalid_before = app.invalid.recent()
    await leave(fake, ann, lost_queue)  # the lost channel's count goes stale
    await fake.wait_until(lambda: app.channel_reach.holds(lost.id), what="the channel held")
    await leave(fake, ben, lobby_queue)
    await fake.wait_until(
        lambda: "nobody is waiting" in lobby_queue.text, timeout=WAVE, what="the other's count"
    )
    rounds = app.queue.waves.current_loop
    await fake.wait_until(lambda: app.queue.waves.current_loop >= rounds + 5, what="rounds")
    assert "1 is waiting" in lost_queue.text
    assert app.invalid.recent() == invalid_before + 1  # tried once, then held
    warned = Counter(r.name for r in caplog.records if str(lost.id) in r.getMessage())
    assert warned == {"bot.chat.queue.commands": 1, "bot.service.reach": 1}  # and no more
    assert {r.levelno for r in caplog.records if str(lost.id) in r.getMessage()} == {WARNING}
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]

    cat = fake.add_member(guild, fake.add_user("cat"))
    fake.clear_overwrite(lost, fake.bot)  # access is back (CHANNEL_UPDATE)
    await fake.wait_until(lambda: not app.channel_reach.holds(lost.id), what="the release")
    await fake.wait_until(
        lambda: "nobody is waiting" in lost_queue.text, timeout=WAVE, what="the count corrected"
    )
    joined = await fake.wait_for_response(await fake.slash(cat, lost, "play", game="crystal"))
    assert "You are waiting for Crystal Capture" in table.answer(joined)
    await fake.wait_until(lambda: "1 is waiting" in lost_queue.text, what="the count again")
    assert [m for m in fake.messages(lost) if "Crystal Capture queue" in m.text] == [lost_queue]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def leave(fake: FakeDiscord, member: FakeMember, queue_message: FakeMessage) -> None:
    """The member presses Leave on the queue's message."""
    custom_id = next(c for c in queue_message.custom_ids if c.endswith("leave:crystal"))
    left = await fake.wait_for_response(await fake.click(member, queue_message, custom_id))
    assert "You left the queue." in "\n".join(m.text for m in left.messages)


async def test_a_queue_whose_channel_is_deleted_is_closed(
    table: Table, guild: FakeGuild, caplog: pytest.LogCaptureFixture
) -> None:
    """A moderator deletes a queue's channel: its next edit is refused once (10003), the queue
    is closed (nobody is paired there), and the channel is never tried again."""
    fake, app = table.fake, table.app
    assert app is not None and table.bot is not None
    bot = table.bot
    lobby = fake.add_text_channel(guild, "lobby")
    ann, ben = (fake.add_member(guild, fake.add_user(name)) for name in ("ann", "ben"))
    async with app.matches.runner.sessions.begin() as session:
        for member, rating in ((ann, 1200.0), (ben, 2400.0)):  # too far apart to be paired
            session.add(PlayerStats(guild_id=guild.id, game="crystal", user_id=member.id,
                                    rating=rating, deviation=60.0))  # fmt: skip
    app.queue.waves.change_interval(seconds=0.1)  # quicker rounds; the same rounds
    for member in (ann, ben):
        await fake.wait_for_response(await fake.slash(member, lobby, "play", game="crystal"))
    await fake.wait_for_message(lobby, lambda m: "2 are waiting" in m.text, edited=True)
    fake.delete_channel(lobby)
    await fake.wait_until(lambda: bot.get_channel(lobby.id) is None, what="CHANNEL_DELETE")
    moved = await fake.wait_for_response(await fake.slash(ann, table.channel, "play",
                                                          game="crystal"))  # fmt: skip
    assert "You are waiting for Crystal Capture" in table.answer(moved)

    def to_lobby() -> list[RecordedRequest]:
        return [r for r in fake.requests if r.path.startswith(f"/channels/{lobby.id}/")]

    tried = len(to_lobby())
    await fake.wait_until(lambda: len(to_lobby()) > tried, what="the lobby's count edited")
    rounds = app.queue.waves.current_loop
    await fake.wait_until(lambda: app.queue.waves.current_loop >= rounds + 5, what="rounds")
    assert [r.status for r in to_lobby()[tried:]] == [404]  # once, then never again
    assert await app.queue.queue.place(ben.id) is None  # out of the closed queue
    assert (await app.queue.queue.place(ann.id)) is not None  # waiting where she moved
    warned = [r for r in caplog.records if str(lobby.id) in r.getMessage()]
    assert [(r.name, r.levelno) for r in warned] == [("bot.chat.queue.commands", WARNING)]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
