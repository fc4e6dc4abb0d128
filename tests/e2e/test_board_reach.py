"""A channel the bot cannot post in: a challenge there is refused before anything is saved, and a
match whose channel goes out of reach is called off without a result, its players told privately."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.chat.components import Verb

from .fake_discord.permissions import SEND_MESSAGES, VIEW_CHANNEL

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeMember

pytest_plugins = ("tests.e2e.bot_fixtures",)


async def test_a_challenge_where_the_bot_cannot_post_says_what_is_missing(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    fake = table.fake
    fake.set_overwrite(table.channel, fake.bot, deny=SEND_MESSAGES)
    await table.fake.wait_until(
        lambda: not fake.permissions(fake.bot, table.channel) & SEND_MESSAGES, what="the overwrite"
    )
    answered = await table.slash(alice, "crystal challenge", opponent=bob)
    told = table.answer(answered)
    assert "I am missing the permissions Send Messages, Embed Links here" in told
    assert all(message.ephemeral for message in answered.messages)
    assert table.bot is not None
    assert await table.bot.parts.service.unfinished(alice.id) == []


async def test_a_match_whose_channel_goes_out_of_reach_is_called_off(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    fake = table.fake
    mark = table.checkpoint()
    await table.slash(alice, "crown challenge", opponent=bob)
    challenge = await table.posted("challenges you", after=mark)
    await table.click(bob, challenge, Verb.ACCEPT)
    await table.posted("Coin toss", after=mark)

    # The bot loses the channel, and the board's interaction token has expired: Alice's
    # secret, typed by DM, cannot be shown on the board.
    fake.set_overwrite(table.channel, fake.bot, deny=VIEW_CHANNEL)
    fake.advance_clock(16 * 60)
    await table.dm(alice, "1 1")
    told = await table.posted("was called off", after=mark, where=bob)
    assert "I can no longer see that channel" in told.text and "No result" in told.text
    await table.posted("was called off", after=mark, where=alice)
    assert table.bot is not None
    assert await table.bot.parts.service.unfinished(bob.id) == []
    record = await table.bot.parts.servers.member_record(table.channel.guild_id or 0, alice.id)
    assert record.lines == []
