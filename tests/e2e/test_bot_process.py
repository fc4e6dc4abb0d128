"""``python -m bot`` as a host runs it: stopped by a signal mid-request, and its start-up lines."""

from __future__ import annotations

import signal
import socket
import sqlite3
from pathlib import Path

from aiohttp import web

from bot.chat.components import Press, Verb

from .bot_process import READY, bot_process
from .fake_discord import FakeChannel, FakeDiscord, FakeMember, FakeMessage

RESTARTING = "Parlor is restarting"


def button(message: FakeMessage, verb: str) -> str:
    """The custom_id of the message's button doing ``verb``."""
    return next(c for c in message.custom_ids if (p := Press.parse(c)) and p.verb == verb)


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
        assert board.embeds and board.id == challenge.id  # the challenge became the board
        assert await bot.wait() == 0
        assert "Stopped" in bot.lines[-1]
        assert "Traceback" not in bot.output
        # Parlor uses no voice: discord.py's warnings about its voice libraries are not shown.
        assert "PyNaCl" not in bot.output and "davey" not in bot.output
        assert "withdrew" not in "\n".join(m.text for m in fake.messages(channel))


# ---------------------------------------------------------------------- failing to log in


async def start_and_fail(tmp_path: Path, fake: FakeDiscord | None, **settings: str) -> str:
    """Start a bot expected to give up at once; its stderr, once it exited with status 2 having
    said what went wrong and what to do in two lines (README, "Set-up")."""
    async with bot_process(tmp_path, fake, **settings) as bot:
        assert await bot.wait() == 2
        output = bot.output
    assert "Traceback" not in output
    assert len(output.splitlines()) == 2, output
    return " ".join(output.split())


async def test_a_wrong_token_says_to_reset_it(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    said = await start_and_fail(tmp_path, fake_discord, DISCORD_TOKEN="abc")
    assert "Discord refused the bot token in DISCORD_TOKEN" in said
    assert "Reset Token" in said and "Developer Portal" in said
    assert any(r.path == "/users/@me" and r.status == 401 for r in fake_discord.requests)


async def test_an_outage_at_start_is_waited_out(
    fake_discord: FakeDiscord, channel: FakeChannel, alice: FakeMember, tmp_path: Path
) -> None:
    fake = fake_discord
    fake.outage(requests=2)
    async with bot_process(tmp_path, fake) as bot:
        await bot.wait_for_line(READY)
        rules = await fake.wait_for_response(
            await fake.slash(alice, channel, "rules", game="crown")
        )
        assert rules.messages
        bot.send_signal(signal.SIGTERM)
        assert await bot.wait() == 0

    logins = [r.status for r in fake.requests if r.path == "/users/@me"]
    assert logins[:3] == [503, 503, 200]
    waits = [line for line in bot.lines if "Could not log in to Discord" in line]
    assert len(waits) == 2, bot.output
    for attempt, line in enumerate(waits, start=1):
        assert f"at {fake.api_base} (HTTP 503); trying again in " in line
        assert line.endswith(f"(attempt {attempt})")
    assert fake.token not in bot.output
    assert "Traceback" not in bot.output


async def test_an_unreachable_discord_is_tried_again_until_stopped(tmp_path: Path) -> None:
    with socket.socket() as unused:  # a loopback port nobody listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    url = f"http://127.0.0.1:{port}/api/v10"
    settings = {"DISCORD_API_BASE_URL": url, "DISCORD_GATEWAY_URL": f"ws://127.0.0.1:{port}/"}
    async with bot_process(tmp_path, None, DISCORD_TOKEN="abc", **settings) as bot:
        first = await bot.wait_for_line("(attempt 1)")
        await bot.wait_for_line("(attempt 2)")
        bot.send_signal(signal.SIGTERM)
        assert await bot.wait(timeout=5) == 0
    assert f"Could not log in to Discord at {url} (Connection refused); trying again" in first
    assert "Stopped" in bot.lines[-1]
    assert "Traceback" not in bot.output


async def test_an_address_that_is_not_discord_says_to_check_it(tmp_path: Path) -> None:
    runner = web.AppRunner(web.Application())  # a web server with no page at all
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        port = runner.addresses[0][1]
        url = f"http://127.0.0.1:{port}/api/v10"
        said = await start_and_fail(tmp_path, None, DISCORD_TOKEN="abc", DISCORD_API_BASE_URL=url)
    finally:
        await runner.cleanup()
    assert f"{url} answered the login with HTTP 404" in said
    assert "Check DISCORD_API_BASE_URL" in said
