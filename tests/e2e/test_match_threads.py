"""A thread per match (``/settings threads:on``) through the fake Discord: each match played in
its own public thread, headed by a one-line result and archived at its end; the fallbacks to
the channel; a thread archived mid-match revived on the next board change."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from bot.chat.components import Verb

from .fake_discord.permissions import CREATE_PUBLIC_THREADS, MANAGE_GUILD

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeChannel, FakeGuild, FakeMember, FakeMessage

pytest_plugins = ("tests.e2e.bot_fixtures",)

PUBLIC_THREAD = 11


async def threads_on(table: Table, guild: FakeGuild) -> None:
    """A manager turns threads on with ``/settings threads:on``."""
    fake = table.fake
    role = fake.add_role(guild, "mods", permissions=MANAGE_GUILD)
    mod = fake.add_member(guild, fake.add_user("mod"), roles=(role,))
    saved = table.answer(await table.slash(mod, "settings", threads="on"))
    assert "Threads: each match is played in its own thread." in saved


def threads_of(table: Table) -> list[FakeChannel]:
    return [c for c in table.fake.state.channels.values() if c.parent_id == table.channel.id]


async def thread_board(table: Table, thread: FakeChannel, text: str) -> FakeMessage:
    """The match's board in its thread, once it shows ``text``."""
    return await table.fake.wait_for_message(
        thread, lambda m: bool(m.embeds) and text in m.text, after=0, edited=True
    )


async def test_a_match_is_played_in_its_own_thread_to_its_end(
    table: Table, guild: FakeGuild, alice: FakeMember, bob: FakeMember
) -> None:
    await threads_on(table, guild)
    fake = table.fake
    (challenge,) = (await table.slash(alice, "crystal challenge", opponent=bob)).messages
    await table.click(bob, challenge, Verb.ACCEPT)
    await fake.wait_until(lambda: threads_of(table), what="the match's thread")
    (thread,) = threads_of(table)
    assert thread.id == challenge.id  # started from the challenge message
    assert (thread.type, thread.auto_archive_duration) == (PUBLIC_THREAD, 10080)
    heading = await table.posted("played in the thread below", after=0)
    assert heading is challenge and not heading.embeds and not heading.custom_ids
    assert f"<@{alice.id}> vs <@{bob.id}>" in heading.text or f"<@{bob.id}> vs" in heading.text
    board = await thread_board(table, thread, "Coin toss")
    assert not [m for m in fake.messages(table.channel) if m.embeds]  # the board left

    await table.click(alice, board, Verb.PLAY, "9")
    took = await thread_board(table, thread, "captures crystal 9")
    assert f"<@{bob.id}>, your move." in took.content
    games = table.answer(await table.slash(bob, "games"))
    assert f"/{thread.id}/{took.id}" in games  # /games links to the board in its thread
    await fake.slash(bob, thread, "crystal take", crystal=1)
    took = await thread_board(table, thread, "captures crystal 1")
    await table.click(alice, took, Verb.PLAY, "6")
    end = await thread_board(table, thread, "wins with exactly 15 points")
    assert [p.verb for p in table.presses(end)] == [Verb.REMATCH, Verb.REVIEW]
    await fake.wait_until(lambda: thread.archived, what="the thread to be archived")
    assert heading.text == f"**Crystal Capture · match #1**: <@{alice.id}> beat <@{bob.id}>."
    assert len(fake.messages(table.channel)) == 1  # the channel holds the heading only
