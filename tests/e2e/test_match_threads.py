"""A thread per match (``/settings threads:on``) through the fake Discord: each match played in
its own public thread, headed by a one-line result and archived at its end; the fallbacks to
the channel; a thread archived mid-match revived on the next board change."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from bot.chat.components import Verb

from .fake_discord.permissions import CREATE_PUBLIC_THREADS, MANAGE_GUILD, SEND_MESSAGES_IN_THREADS
from .fake_discord.records import THREAD_CREATED

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeChannel, FakeGuild, FakeInteraction, FakeMember, FakeMessage

pytest_plugins = ("tests.e2e.bot_fixtures",)

PUBLIC_THREAD = 11
QUEUE_WAVE = 8.0
"""Seconds to wait for the queue's next wave (one every 5 s)."""


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


async def accepted_without_thread(
    table: Table, challenger: FakeMember, opponent: FakeMember
) -> tuple[FakeMessage, FakeInteraction, FakeMessage]:
    """A challenge accepted where no thread can be started: the challenge, the press, and the
    private notice the member who pressed Accept gets."""
    (challenge,) = (await table.slash(challenger, "crystal challenge", opponent=opponent)).messages
    pressed = await table.click(opponent, challenge, Verb.ACCEPT)
    notice = await table.fake.wait_until(
        lambda: next((m for m in pressed.messages if m.ephemeral), None), what="the notice"
    )
    return challenge, pressed, notice


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
    # The channel holds the heading, and Discord's notice that the thread was started.
    left = fake.messages(table.channel)
    assert [m.id for m in left if m.type != THREAD_CREATED] == [heading.id]
    assert [m.content for m in left if m.type == THREAD_CREATED] == [thread.name]


async def test_a_queue_pairing_and_a_match_against_the_bot_get_threads_of_their_own(
    table: Table, guild: FakeGuild, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    await threads_on(table, guild)
    fake = table.fake
    for member in (alice, bob):
        await table.slash(member, "play", game="crystal")
    await fake.wait_until(lambda: threads_of(table), timeout=QUEUE_WAVE, what="the pair's thread")
    (paired,) = threads_of(table)
    board = await thread_board(table, paired, "moves first")
    assert f"<@{alice.id}>" in board.text and f"<@{bob.id}>" in board.text
    starter = next(m for m in fake.messages(table.channel) if m.id == paired.id)
    await fake.wait_until(lambda: "played in the thread below" in starter.text, what="heading")
    assert not starter.embeds and not starter.custom_ids
    assert paired.auto_archive_duration == 10080

    answered = await table.slash(carol, "crystal challenge", opponent=fake.bot)
    (started,) = answered.messages  # the first board, as the command's answer
    await fake.wait_until(lambda: len(threads_of(table)) == 2, what="the bot match's thread")
    versus = next(t for t in threads_of(table) if t.id != paired.id)
    assert versus.id == started.id  # started from the match's first board
    await thread_board(table, versus, "Coin toss")
    await fake.wait_until(lambda: "played in the thread below" in started.text, what="heading")
    assert "played in the thread below" in started.text and not started.custom_ids


@pytest.mark.parametrize(
    ("denied", "named", "unnamed"),
    [
        (CREATE_PUBLIC_THREADS, "Create Public Threads", "Send Messages in Threads"),
        (SEND_MESSAGES_IN_THREADS, "Send Messages in Threads", "Create Public Threads"),
    ],
)
async def test_without_a_thread_permission_the_match_stays_in_the_channel(
    table: Table,
    guild: FakeGuild,
    alice: FakeMember,
    bob: FakeMember,
    denied: int,
    named: str,
    unnamed: str,
) -> None:
    await threads_on(table, guild)
    fake = table.fake
    fake.set_overwrite(table.channel, fake.bot, deny=denied)
    challenge, pressed, notice = await accepted_without_thread(table, alice, bob)
    assert "I could not start a thread for this match" in notice.text
    assert f"**{named}**" in notice.text and unnamed not in notice.text
    assert not threads_of(table)
    board = await table.posted("Coin toss", after=0)
    assert board is challenge and board.embeds  # the match goes on in the channel
    await table.click(alice, board, Verb.PLAY, "9")
    await table.posted("captures crystal 9", after=0)
    assert not threads_of(table) and len(pressed.messages) == 1  # told once, not at each move


async def test_at_the_active_thread_cap_the_match_stays_in_the_channel(
    table: Table, guild: FakeGuild, alice: FakeMember, bob: FakeMember
) -> None:
    await threads_on(table, guild)
    fake = table.fake
    fake.state.active_thread_cap = 1
    fake.add_thread(table.channel, "busy")
    challenge, pressed, notice = await accepted_without_thread(table, alice, bob)
    assert "as many active threads as Discord allows" in notice.text
    assert f"<#{table.channel.id}>" in notice.text
    assert [t.name for t in threads_of(table)] == ["busy"] and len(pressed.messages) == 1
    board = await table.posted("Coin toss", after=0)
    assert board is challenge and board.embeds


async def test_a_queue_pairing_without_a_thread_tells_its_players_by_dm(
    table: Table, guild: FakeGuild, alice: FakeMember, bob: FakeMember
) -> None:
    await threads_on(table, guild)
    fake = table.fake
    fake.state.active_thread_cap = 0
    for member in (alice, bob):
        await table.slash(member, "play", game="crystal")
    for member in (alice, bob):
        notice = await fake.wait_for_message(
            member, lambda m: "active threads" in m.text, after=0, timeout=QUEUE_WAVE
        )
        assert f"<#{table.channel.id}>" in notice.text
    board = await table.posted("moves first", after=0)
    assert board.embeds and not threads_of(table)


async def test_a_thread_archived_mid_match_is_revived_by_the_next_board(
    table: Table, guild: FakeGuild, alice: FakeMember, bob: FakeMember
) -> None:
    await threads_on(table, guild)
    fake = table.fake
    (challenge,) = (await table.slash(alice, "crystal challenge", opponent=bob)).messages
    await table.click(bob, challenge, Verb.ACCEPT)
    await fake.wait_until(lambda: threads_of(table), what="the match's thread")
    (thread,) = threads_of(table)
    board = await thread_board(table, thread, "Coin toss")
    fake.set_thread_state(thread, archived=True)  # a week without a message
    heading = next(m for m in fake.messages(table.channel) if m.id == thread.id)
    table.clock.advance(minutes=10, seconds=1)  # the board next changes: Alice's time runs out
    end = await thread_board(table, thread, "ran out of time")
    assert end is not board  # posted anew, which unarchived the thread (an edit cannot)
    await fake.wait_until(lambda: board.deleted, what="the stale board to go")
    assert [m.id for m in fake.messages(thread) if m.embeds] == [end.id]
    assert f"<@{bob.id}> wins: <@{alice.id}> ran out of time." in end.text
    await fake.wait_until(lambda: "beat" in heading.text, what="the heading's result")
    assert heading.text == f"**Crystal Capture · match #1**: <@{bob.id}> beat <@{alice.id}>."
    await fake.wait_until(lambda: thread.archived, what="the thread archived again")


async def test_resign_and_a_rematch_in_the_matchs_thread(
    table: Table, guild: FakeGuild, alice: FakeMember, bob: FakeMember
) -> None:
    await threads_on(table, guild)
    fake = table.fake
    (challenge,) = (await table.slash(alice, "crystal challenge", opponent=bob)).messages
    await table.click(bob, challenge, Verb.ACCEPT)
    await fake.wait_until(lambda: threads_of(table), what="the match's thread")
    (thread,) = threads_of(table)
    await thread_board(table, thread, "Coin toss")
    resigned = await fake.wait_for_response(await fake.slash(bob, thread, "resign"))
    assert resigned.messages
    end = await thread_board(table, thread, "resigned")
    await fake.wait_until(lambda: thread.archived, what="the thread archived")
    assert challenge.text == f"**Crystal Capture · match #1**: <@{alice.id}> beat <@{bob.id}>."

    offer = await table.click(bob, end, Verb.REMATCH)  # pressed in the archived thread
    rematch = await fake.wait_until(
        lambda: next((m for m in fake.messages(thread) if "challenges you" in m.text), None),
        what="the rematch in the thread",
    )
    assert offer.acknowledged
    await table.click(alice, rematch, Verb.ACCEPT)
    await thread_board(table, thread, "Coin toss")
    assert threads_of(table) == [thread]  # played on in the same thread
    await fake.wait_until(lambda: not thread.archived, what="the thread back for the rematch")
    await fake.wait_for_response(await fake.slash(alice, thread, "resign"))
    await fake.wait_until(lambda: thread.archived, what="the thread archived again")
    assert challenge.text == f"**Crystal Capture · match #2**: <@{bob.id}> beat <@{alice.id}>."
