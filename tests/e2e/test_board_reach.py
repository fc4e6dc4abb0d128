"""A channel the bot cannot post in: a challenge there is refused before anything is saved. A
match whose channel goes out of reach mid-match waits: its deadlines are held, so nobody loses on
time, and it goes on when the bot may post again (a channel or a role changes). Only a channel
out of reach for a whole turn timeout has its matches called off, without a result, and only
then are the players told."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import pytest

from bot.chat.components import Verb

from .fake_discord.permissions import SEND_MESSAGES, VIEW_CHANNEL

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeMember, FakeMessage

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


async def bury(table: Table, board: FakeMessage, who: FakeMember) -> None:
    """A member chats until five messages lie below the board: its next update is a new post."""
    for index in range(5):
        await table.fake.send(who, table.channel, f"chat {index}")


async def lost_mid_setup(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember, deny: int
) -> int:
    """A Crown match in setup whose board is buried when the bot loses ``deny`` in the channel;
    Alice's secret, typed by DM, is the first thing it cannot show. The checkpoint before."""
    fake = table.fake
    mark = table.checkpoint()
    await table.slash(alice, "crown challenge", opponent=bob)
    challenge = await table.posted("challenges you", after=mark)
    await table.click(bob, challenge, Verb.ACCEPT)
    board = await table.posted("Coin toss", after=mark)
    await bury(table, board, carol)
    fake.set_overwrite(table.channel, fake.bot, deny=deny)
    fake.advance_clock(16 * 60)  # the board's interaction token has expired
    await table.dm(alice, "1 1")
    assert table.app is not None
    await fake.wait_until(lambda: table.app is not None and table.app.channel_reach.holds(
        table.channel.id), what="the channel to be held")  # fmt: skip
    return mark


def told_off(table: Table, who: FakeMember) -> bool:
    return any("was called off" in message.text for message in table.fake.dms(who))


@pytest.mark.parametrize("deny", [SEND_MESSAGES, VIEW_CHANNEL], ids=["send", "view"])
async def test_a_channel_out_of_reach_holds_the_deadlines_and_resumes_when_it_is_back(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember, deny: int
) -> None:
    fake = table.fake
    mark = await lost_mid_setup(table, alice, bob, carol, deny)
    assert table.app is not None
    service = table.app.parts.service
    [match_id] = [m.id for m in await service.unfinished(bob.id)]

    # Bob's secret is due, but nobody can see the board: the deadline waits.
    table.clock.advance(minutes=5, seconds=1)
    await asyncio.sleep(0.5)  # several sweeps
    snap = await service.snapshot(match_id)
    assert snap.status == "setup"
    assert not told_off(table, alice) and not told_off(table, bob)

    # A moderator gives the permission back (CHANNEL_UPDATE): the board comes back at once.
    fake.clear_overwrite(table.channel, fake.bot)
    back = await table.posted("I could not post here for 5 minutes", after=mark)
    assert "Setup" in back.text or "secret" in back.text
    assert not table.app.channel_reach.holds(table.channel.id)

    # And the match goes on.
    prompt = await table.posted("Choose your secret", after=mark, where=bob)
    await table.click(bob, prompt, Verb.SECRET, "3 3")
    await table.posted("Both Crowns are placed", after=mark)
    assert not told_off(table, alice) and not told_off(table, bob)
