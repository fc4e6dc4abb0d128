"""``python -m bot`` as a host runs it: stopped by a signal mid-request, and its start-up lines."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

from bot.chat.components import Verb

from .bot_fixtures import button
from .bot_process import READY, bot_process
from .fake_discord import FakeChannel, FakeDiscord, FakeMember

RESTARTING = "Parlor is restarting"


async def test_sigterm_finishes_the_request_in_flight_and_exits_cleanly(
    fake_discord: FakeDiscord,
    channel: FakeChannel,
    alice: FakeMember,
    bob: FakeMember,
    tmp_path: Path,
) -> None:
    fake = fake_discord
    async with bot_process(tmp_path, fake) as bot:
        await bot.wait_for_line(READY)
        mark = fake.checkpoint()
        await fake.wait_for_response(
            await fake.slash(alice, channel, "crystal challenge", opponent=bob)
        )
        challenge = await fake.wait_for_message(channel, lambda m: "challenges you" in m.text)

        # Another program holds the database: Bob's accept waits for it, in flight.
        database = sqlite3.connect(tmp_path / "parlor.db", isolation_level=None)
        try:
            database.execute("BEGIN IMMEDIATE")
            accept = await fake.click(bob, challenge, button(challenge, Verb.ACCEPT))
            await fake.wait_until(lambda: accept.acknowledged, what="the accept to be deferred")
            bot.send_signal(signal.SIGTERM)
            await bot.wait_for_line("Stopping")

            # Meanwhile new requests are told to come back, and change nothing.
            rules = await fake.wait_for_response(
                await fake.slash(alice, channel, "rules", game="crown")
            )
            assert rules.messages[0].ephemeral and RESTARTING in rules.messages[0].content
            withdraw = await fake.wait_for_response(
                await fake.click(alice, challenge, button(challenge, Verb.WITHDRAW))
            )
            assert withdraw.messages[0].ephemeral
            assert RESTARTING in withdraw.messages[0].content
            dm_mark = fake.checkpoint()
            await fake.dm(alice, "2 3")
            reply = await fake.wait_for_message(alice, after=dm_mark)
            assert RESTARTING in reply.content
            assert not [m for m in fake.messages(channel) if "Coin toss" in m.text]
        finally:
            database.rollback()
            database.close()

        # The accept in flight completes; then the bot logs out and exits.
        board = await fake.wait_for_message(channel, lambda m: "Coin toss" in m.text, after=mark)
        assert board.embeds
        assert await bot.wait() == 0
        assert "Stopped" in bot.lines[-1]
        assert "Traceback" not in bot.output
        assert "withdrew" not in "\n".join(m.text for m in fake.messages(channel))
