"""A secret typed by DM while the bot was away is taken when it starts again, and only once.

Bob is asked for his Crown in three matches, each by DM. He answers match 2 while the bot runs;
the bot stops; he types his answer to match 1 in the DM. At its next start the bot reads Bob's
DM after the oldest prompt still awaited, takes the answer to match 1 (match 1 goes on) and
passes over the answer to match 2 it took live. A third start reads the same messages again
(match 3 still waits for Bob) and plays nothing, and Bob is told nothing more. A DM typed
while ``python -m bot`` shuts down is answered "restarting", and played by the next start.
"""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from bot.chat.components import Press, Verb

from .bot_process import READY, bot_process

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeMember, FakeMessage

pytest_plugins = ("tests.e2e.bot_fixtures",)

PROMPT = "Choose your secret"


async def start(table: Table, challenger: FakeMember, opponent: FakeMember) -> FakeMessage:
    """Challenge to Capture the Crown and accept; the board, once both are asked by DM."""
    mark = table.checkpoint()
    answered = await table.slash(challenger, "crown challenge", opponent=opponent)
    (challenge,) = answered.messages
    await table.click(opponent, challenge, Verb.ACCEPT)
    board = await table.posted("Coin toss", after=mark)
    await table.posted(PROMPT, after=mark, where=challenger)
    await table.posted(PROMPT, after=mark, where=opponent)
    return board


def button(message: FakeMessage, verb: str) -> str:
    """The custom_id of the message's button doing ``verb``."""
    return next(c for c in message.custom_ids if (p := Press.parse(c)) and p.verb == verb)


def told(fake: FakeDiscord, member: FakeMember, after: int) -> list[str]:
    """What the bot DMed ``member`` since the checkpoint ``after``."""
    return [m.content for m in fake.dms(member) if m.author is fake.bot and m.id > after]


async def test_a_secret_typed_while_the_bot_was_away_is_taken_at_the_next_start_once(
    idle_table: Table,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: FakeMember,
    bob: FakeMember,
) -> None:
    table, fake = idle_table, fake_discord
    dave = fake.add_member(guild, fake.add_user("dave"))
    erin = fake.add_member(guild, fake.add_user("erin"))

    async with table.running():
        first = await start(table, alice, bob)
        second = await start(table, dave, bob)
        await start(table, erin, bob)  # match 3: Bob never answers it
        for challenger in (alice, dave):
            assert "Your Crown is at (1,1)." in (await table.dm(challenger, "1 1")).content
        assert "Your Crown is at (3,3)." in (await table.dm(bob, "#2 3 3")).content
        await table.posted("Both Crowns are placed", after=second.id)

    # The bot is away: Bob answers match 1 in his DM.
    await fake.dm(bob, "#1 2 3")
    mark = table.checkpoint()

    async with table.running():
        placed = await table.posted("Both Crowns are placed", after=mark)
        assert placed.id == first.id
        app = table.app
        assert app is not None and app.catching_up is not None
        await app.catching_up
        (reply,) = told(fake, bob, mark)  # "#2 3 3", taken live, is not played again
        assert "Your Crown is at (2,3)." in reply

    mark = table.checkpoint()
    boards = {m.id: m.text for m in fake.messages(table.channel)}
    async with table.running():
        app = table.app
        assert app is not None and app.catching_up is not None
        await app.catching_up
    assert told(fake, bob, mark) == []
    assert {m.id: m.text for m in fake.messages(table.channel)} == boards


async def test_a_secret_typed_while_the_bot_shuts_down_is_taken_at_its_next_start(
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    channel: FakeChannel,
    alice: FakeMember,
    bob: FakeMember,
    tmp_path: Path,
) -> None:
    """``python -m bot`` stopped by SIGTERM while a request is in flight: Bob's DM meanwhile is
    answered "restarting" and played by the next start."""
    fake = fake_discord
    dave = fake.add_member(guild, fake.add_user("dave"))
    async with bot_process(tmp_path, fake) as bot:
        await bot.wait_for_line(READY)
        mark = fake.checkpoint()
        answered = await fake.wait_for_response(
            await fake.slash(alice, channel, "crown challenge", opponent=bob)
        )
        await fake.click(bob, answered.messages[0], button(answered.messages[0], Verb.ACCEPT))
        board = await fake.wait_for_message(channel, lambda m: "Coin toss" in m.text, after=mark)
        await fake.wait_for_message(bob, lambda m: PROMPT in m.content, after=mark)
        await fake.wait_for_message(alice, lambda m: PROMPT in m.content, after=mark)
        dm_mark = fake.checkpoint()
        await fake.dm(alice, "1 1")
        await fake.wait_for_message(alice, lambda m: "(1,1)" in m.content, after=dm_mark)

        # Another program holds the database: Alice's next challenge waits for it, in flight.
        database = sqlite3.connect(tmp_path / "parlor.db", isolation_level=None)
        try:
            database.execute("BEGIN IMMEDIATE")
            pending = await fake.slash(alice, channel, "crystal challenge", opponent=dave)
            await fake.wait_until(lambda: pending.acknowledged, what="the challenge deferred")
            bot.send_signal(signal.SIGTERM)
            await bot.wait_for_line("Stopping")
            dm_mark = fake.checkpoint()
            await fake.dm(bob, "2 3")
            reply = await fake.wait_for_message(bob, after=dm_mark)
            assert "it will read your answer to its question when it is back" in reply.content
        finally:
            database.rollback()
            database.close()
        assert await bot.wait() == 0

    mark = fake.checkpoint()
    async with bot_process(tmp_path, fake) as bot:
        await bot.wait_for_line(READY)
        placed = await fake.wait_for_message(
            channel, lambda m: "Both Crowns are placed" in m.text, after=mark, edited=True
        )
        assert placed.id == board.id
        await fake.wait_for_message(
            bob, lambda m: "Your Crown is at (2,3)." in m.content, after=mark
        )
        await bot.wait_for_line("Read 1 DMs typed while the bot was away")
