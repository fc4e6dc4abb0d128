"""Seasons through the fake Discord: the settings, ``/stats season:``, and a season that ends
while the bot is down, whose podium is posted once after the restart (and found and edited in
place, not posted again, by an attempt that did not know it was posted)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

import pytest
from sqlalchemy import update

from bot.chat.components import Verb
from db.engine import create_engine
from db.models import SeasonPodium

from .fake_discord import InvalidInvocation
from .fake_discord.permissions import EMBED_LINKS
from .fake_discord.state import MANAGE_GUILD

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeMember

pytest_plugins = ("tests.e2e.bot_fixtures",)


async def crystal_won_by_alice(table: Table, alice: FakeMember, bob: FakeMember) -> None:
    """Alice challenges Bob to Crystal Capture, Bob accepts and resigns: a rated match."""
    mark = table.checkpoint()
    await table.slash(alice, "crystal challenge", opponent=bob)
    challenge = await table.posted("challenges you", after=mark)
    await table.click(bob, challenge, Verb.ACCEPT)
    await table.posted("Coin toss", after=mark)
    await table.slash(bob, "resign")
    await table.posted("resigned", after=mark)


def manager(fake: FakeDiscord, guild: FakeGuild) -> FakeMember:
    role = fake.add_role(guild, "mods", permissions=MANAGE_GUILD)
    return fake.add_member(guild, fake.add_user("mod"), roles=(role,))


def podiums(table: Table, channel: FakeChannel) -> list[str]:
    return [m.text for m in table.fake.messages(channel) if "Its podium" in m.text]


async def test_season_settings_are_for_managers_and_say_what_is_wrong(
    table: Table, fake_discord: FakeDiscord, guild: FakeGuild, bob: FakeMember
) -> None:
    mod = manager(fake_discord, guild)
    with pytest.raises(InvalidInvocation):
        await fake_discord.slash(bob, table.channel, "settings", season_length="month")

    shown = table.answer(await table.slash(mod, "settings"))
    assert "Seasons: a calendar quarter each, ranked by rating." in shown
    assert "Podiums: not posted" in shown

    podium = fake_discord.add_text_channel(guild, "podiums")
    saved = table.answer(
        await table.slash(
            mod, "settings", season_length="month", season_score="points", season_channel=podium
        )
    )
    assert "Seasons: a calendar month each, ranked by points (1 a win, ½ a draw)." in saved
    assert f"Podiums: posted in <#{podium.id}> when a season ends." in saved

    closed = fake_discord.add_text_channel(guild, "closed")
    fake_discord.set_overwrite(closed, fake_discord.bot, deny=EMBED_LINKS)
    refused = table.answer(await table.slash(mod, "settings", season_channel=closed))
    assert f"I cannot post podiums in <#{closed.id}>" in refused and "Embed Links" in refused
    assert f"<#{podium.id}>" in table.answer(await table.slash(mod, "settings"))  # unchanged

    off = table.answer(await table.slash(mod, "settings", season_length="off"))
    assert "Seasons: off." in off


async def test_stats_season_shows_the_running_season_and_refuses_what_is_not_one(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    refused = table.answer(await table.slash(alice, "stats", season="current"))
    assert "No season has started in this server yet" in refused

    await crystal_won_by_alice(table, alice, bob)
    shown = await table.slash(alice, "stats", season="current", game="crystal")
    (message,) = shown.messages
    assert not message.ephemeral
    text = table.answer(shown)
    assert "Season 1 (running)" in text
    assert "Provisional (not ranked yet)" in text and f"<@{alice.id}>" in text

    assert "There is no season 4 in this server" in table.answer(
        await table.slash(alice, "stats", season="4")
    )
    assert "is not a season: write current" in table.answer(
        await table.slash(alice, "stats", season="soon")
    )
    assert "not both" in table.answer(await table.slash(alice, "stats", season="1", user=bob))


async def test_a_season_ended_while_the_bot_was_down_is_posted_once_after_the_restart(
    idle_table: Table,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: FakeMember,
    bob: FakeMember,
) -> None:
    table = idle_table
    mod = manager(fake_discord, guild)
    podium = fake_discord.add_text_channel(guild, "podiums")
    async with table.running():
        await table.slash(mod, "settings", season_channel=podium)
        await crystal_won_by_alice(table, alice, bob)

    table.clock.now = datetime(2026, 4, 2, 9, 0, tzinfo=UTC)  # down over the quarter's end
    async with table.running():
        posted = await fake_discord.wait_for_message(
            podium, lambda m: "Season 1 has ended" in m.text, after=0
        )
        shown = await table.slash(alice, "stats", season="current")
        assert "Season 2 (running)" in table.answer(shown)
        table.clock.advance(seconds=1)
        past = table.answer(await table.slash(alice, "stats", season="1", game="crystal"))
        assert "Season 1 (ended)" in past and f"<@{alice.id}>" in past
        await fake_discord.wait_until(
            lambda: table.app is not None and not table.app.outbox.pending, what="a quiet sweep"
        )
    assert len(podiums(table, podium)) == 1

    # As if the process that posted it had died before recording it: another restart, long
    # after Discord forgot the post's nonce, finds the post and edits it in place.
    engine = create_engine(table.settings.database_url)
    try:
        async with engine.begin() as connection:
            await connection.execute(
                update(SeasonPodium).values(
                    posted=False, message_id=None, attempts=1, due_at=table.clock.now
                )
            )
    finally:
        await engine.dispose()
    table.clock.advance(hours=1)
    fake_discord.advance_clock(60 * 60)
    async with table.running():
        await fake_discord.wait_until(
            lambda: len(posted.history) > 0,
            what="the podium edited in place",
        )
    assert [m.id for m in fake_discord.messages(podium) if "Its podium" in m.text] == [posted.id]
