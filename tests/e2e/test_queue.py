"""The quick-pair queue through the fake Discord: six members join with ``/play``, the waves pair
four of them by rating, and of the two left far apart one takes the bot's private offer."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import pytest

from bot.chat.queue.commands import QueueCog
from db.models import PlayerStats

from .fake_discord.state import MANAGE_GUILD

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeDiscord, FakeGuild, FakeInteraction, FakeMember

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
                            user_id=six[name].id, rating=float(rating))
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
