"""A channel the bot cannot post in: a challenge there is refused before anything is saved. A
match whose channel goes out of reach mid-match waits: its deadlines are held, so nobody loses on
time, and it goes on when the bot may post again (a channel or a role changes). Only a channel
out of reach for a whole turn timeout has its matches called off, without a result, and only
then are the players told."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

import discord
import pytest

from bot.chat.components import Verb

from .fake_discord.permissions import SEND_MESSAGES, VIEW_CHANNEL

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeGuild, FakeMember, FakeMessage

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
    assert table.app is not None
    assert await table.app.matches.lookups.unfinished(alice.id) == []


async def bury(table: Table, board: FakeMessage, who: FakeMember) -> None:
    """A member chats until five messages lie below the board: its next update is a new post."""
    for index in range(5):
        await table.fake.send(who, table.channel, f"chat {index}")


async def lost_mid_setup(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember, take: Callable[[], None]
) -> int:
    """A Crown match in setup whose board is buried when ``take`` takes the bot's reach in the
    channel; Alice's secret, typed by DM, is the first thing it cannot show. The checkpoint
    before."""
    fake = table.fake
    mark = table.checkpoint()
    await table.slash(alice, "crown challenge", opponent=bob)
    challenge = await table.posted("challenges you", after=mark)
    await table.click(bob, challenge, Verb.ACCEPT)
    board = await table.posted("Coin toss", after=mark)
    await bury(table, board, carol)
    take()
    bot = table.bot
    assert bot is not None

    def seen_by_the_bot() -> bool:
        place = bot.get_channel(table.channel.id)
        assert isinstance(place, discord.TextChannel)
        return not place.permissions_for(place.guild.me).send_messages

    await fake.wait_until(seen_by_the_bot, what="the bot to see the change")
    fake.advance_clock(16 * 60)  # the board's interaction token has expired
    await table.dm(alice, "1 1")
    assert table.app is not None
    await fake.wait_until(lambda: table.app is not None and table.app.channel_reach.holds(
        table.channel.id), what="the channel to be held")  # fmt: skip
    return mark


def told_off(table: Table, who: FakeMember) -> bool:
    return any("was called off" in message.text for message in table.fake.dms(who))


class Reach:
    """Ways a moderator takes the bot's reach in the table's channel, and gives it back."""

    def __init__(self, table: Table) -> None:
        self.fake, self.channel = table.fake, table.channel
        self.guild = self.fake.state.guild_of(self.channel)

    def deny(self, permission: int) -> tuple[Callable[[], None], Callable[[], None]]:
        """A channel overwrite for the bot (CHANNEL_UPDATE both ways)."""

        def take() -> None:
            self.fake.set_overwrite(self.channel, self.fake.bot, deny=permission)

        def give() -> None:
            self.fake.clear_overwrite(self.channel, self.fake.bot)

        return take, give

    def role(self) -> tuple[Callable[[], None], Callable[[], None]]:
        """Nobody may post in the server, then the bot's role may again (GUILD_ROLE_UPDATE)."""
        assert self.guild is not None
        everyone, mine = self.guild.everyone, self.fake.bot_role(self.guild)
        granted = mine.permissions

        def take() -> None:
            self.fake.set_role_permissions(everyone, everyone.permissions & ~SEND_MESSAGES)
            self.fake.set_role_permissions(mine, granted & ~SEND_MESSAGES)

        def give() -> None:
            self.fake.set_role_permissions(mine, granted)

        return take, give


WAYS = {
    "send-overwrite": lambda reach: reach.deny(SEND_MESSAGES),
    "view-overwrite": lambda reach: reach.deny(VIEW_CHANNEL),
    "role": lambda reach: reach.role(),
}


@pytest.mark.parametrize("way", sorted(WAYS))
async def test_a_channel_out_of_reach_holds_the_deadlines_and_resumes_when_it_is_back(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember, way: str
) -> None:
    take, give = WAYS[way](Reach(table))
    mark = await lost_mid_setup(table, alice, bob, carol, take)
    assert table.app is not None
    assert table.app.invalid.recent() >= 1  # the refused post counts toward Discord's limit
    service = table.app.matches
    [match_id] = [m.id for m in await service.lookups.unfinished(bob.id)]

    # Bob's secret is due, but nobody can see the board: the deadline waits.
    table.clock.advance(minutes=5, seconds=1)
    await asyncio.sleep(0.5)  # several sweeps
    snap = await service.lookups.snapshot(match_id)
    assert snap.status == "setup"
    assert not told_off(table, alice) and not told_off(table, bob)

    # A moderator gives the permission back: the board comes back at once.
    give()
    back = await table.posted("I could not post here for 5 minutes", after=mark)
    assert "so the clock was reset" in back.text
    assert not table.app.channel_reach.holds(table.channel.id)

    # And the match goes on.
    prompt = await table.posted("Choose your secret", after=mark, where=bob)
    await table.click(bob, prompt, Verb.SECRET, "3 3")
    await table.posted("Both Crowns are placed", after=mark)
    assert not told_off(table, alice) and not told_off(table, bob)


async def test_a_channel_out_of_reach_for_a_whole_turn_has_its_match_called_off(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    take, _give = Reach(table).deny(VIEW_CHANNEL)
    mark = await lost_mid_setup(table, alice, bob, carol, take)
    assert table.app is not None
    service = table.app.matches

    table.clock.advance(minutes=9, seconds=59)  # the setup's 5 minutes ran out: held
    await asyncio.sleep(0.5)
    assert [m.status for m in await service.lookups.unfinished(bob.id)] == ["setup"]
    assert not told_off(table, alice) and not told_off(table, bob)

    table.clock.advance(seconds=2)  # a whole turn timeout (10 minutes) out of reach
    told = await table.posted("was called off", after=mark, where=bob)
    assert "I could not post in that channel" in told.text and "No result" in told.text
    await table.posted("was called off", after=mark, where=alice)
    assert await service.lookups.unfinished(bob.id) == []
    record = await table.app.parts.servers.member_record(table.channel.guild_id or 0, alice.id)
    assert record.lines == []
    assert not table.app.channel_reach.holds(table.channel.id)


async def timed_out_unseen(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> tuple[int, FakeMessage, Callable[[], None]]:
    """A Crystal match whose board is buried when the bot loses Send Messages; Alice's turn runs
    out, Bob wins, and the new board at the bottom cannot be posted. The checkpoint before, the
    buried board, and what gives the permission back."""
    fake = table.fake
    mark = table.checkpoint()
    await table.slash(alice, "crystal challenge", opponent=bob)
    challenge = await table.posted("challenges you", after=mark)
    await table.click(bob, challenge, Verb.ACCEPT)
    board = await table.posted("your move", after=mark)
    await bury(table, board, carol)
    take, give = Reach(table).deny(SEND_MESSAGES)
    take()
    await fake.wait_until(
        lambda: not fake.permissions(fake.bot, table.channel) & SEND_MESSAGES, what="the overwrite"
    )
    table.clock.advance(minutes=10, seconds=1)
    app = table.app
    assert app is not None
    await fake.wait_until(lambda: app.channel_reach.holds(table.channel.id), what="the hold")
    return mark, board, give


async def test_a_match_that_ended_on_time_is_never_said_to_be_called_off(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    """Seen: a timeout whose board could not be posted was recorded as a win, and yet both
    players were told "called off, no result"."""
    await timed_out_unseen(table, alice, bob, carol)
    assert table.app is not None
    app = table.app
    assert await app.matches.lookups.unfinished(bob.id) == []
    record = await app.parts.servers.member_record(table.channel.guild_id or 0, bob.id)
    assert record.lines != []  # the win is recorded

    table.clock.advance(minutes=10, seconds=1)  # out of reach for a whole turn: nothing left
    await table.fake.wait_until(
        lambda: not app.channel_reach.holds(table.channel.id), what="the release"
    )
    assert not told_off(table, alice) and not told_off(table, bob)


async def test_a_channel_given_up_is_not_tried_again_for_the_boards_it_owed(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    """Seen: the result board of a match that ended while its channel was out of reach stayed
    owed once the channel was given up; every try was refused (403) and held the channel
    again, for another whole turn, as long as the bot stayed out."""
    await timed_out_unseen(table, alice, bob, carol)
    app = table.app
    assert app is not None
    table.clock.advance(minutes=10, seconds=1)  # out of reach for a whole turn: given up
    await table.fake.wait_until(
        lambda: not app.channel_reach.holds(table.channel.id), what="the release"
    )
    given_up = len(table.fake.requests)
    table.clock.advance(minutes=30)  # every backoff of the outbox long past
    await asyncio.sleep(1.0)  # ten sweeps
    tried = [r for r in table.fake.requests[given_up:] if str(table.channel.id) in r.path]
    assert tried == []
    assert not app.channel_reach.holds(table.channel.id)
    assert await app.matches.lookups.unfinished(bob.id) == []
    for player in (alice, bob):  # told the result that was never shown, once, by DM
        [told] = [m for m in table.fake.dms(player) if "can no longer post" in m.text]
        assert f"<@{bob.id}> beat <@{alice.id}>" in told.text
        assert not told_off(table, player)


async def test_a_role_given_to_the_bot_resumes_its_channel_at_once(
    idle_table: Table, guild: FakeGuild, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    """GUILD_MEMBER_UPDATE for the bot's own member comes whatever the intents."""
    table, fake = idle_table, idle_table.fake
    poster = fake.add_role(guild, "Posters", permissions=SEND_MESSAGES)
    async with table.running():
        take, _give = Reach(table).role()
        mark = await lost_mid_setup(table, alice, bob, carol, take)
        table.clock.advance(minutes=5, seconds=1)
        await asyncio.sleep(0.5)
        assert table.app is not None
        assert [m.status for m in await table.app.matches.lookups.unfinished(bob.id)] == ["setup"]

        fake.set_member_roles(guild, fake.bot, [fake.bot_role(guild), poster])
        await table.posted("I could not post here for 5 minutes", after=mark)
        assert not told_off(table, alice) and not told_off(table, bob)


async def test_a_board_owed_while_out_of_reach_is_shown_as_soon_as_it_is_back(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    mark, board, give = await timed_out_unseen(table, alice, bob, carol)
    give()
    end = await table.posted("ran out of time", after=mark)
    assert end.id > board.id and f"<@{bob.id}> wins" in end.text
    assert not told_off(table, alice) and not told_off(table, bob)
