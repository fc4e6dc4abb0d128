"""Parlor's start on SimCord: as ``python -m bot`` builds it, and again after a restart."""

from __future__ import annotations

import simcord

from bot.settings import Settings
from bot.wiring import build

from .table import Member, Table, labels, last_event, private_answer, start


def command_syncs(table: Table) -> int:
    """How many times the bot registered its global slash commands with Discord."""
    return sum(
        request.method == "PUT" and request.path.endswith("/commands")
        for request in table.env.http_requests
    )


async def test_parlor_runs_as_python_m_bot_builds_it(settings: Settings) -> None:
    """The bot as built for production (its own clock and seeds) on SimCord, unmodified."""
    bot = build(settings).client
    async with simcord.run(bot, shard_count=1) as env:
        guild = env.create_guild("Parlor test")
        channel = guild.create_text_channel("duels")
        alice = guild.add_member(env.create_user("alice"))
        bob = guild.add_member(env.create_user("bob"))
        assert {"crown challenge", "stats", "rules", "resign"} <= set(
            alice.available_commands(channel)
        )
        rules = await alice.slash(channel, "rules", game="crown")
        assert rules.ephemeral and rules.response is not None
        assert "Crown" in rules.response.content

        await alice.slash(channel, "crown challenge", opponent=bob)
        challenge = channel.last_message
        assert challenge is not None and "challenges you" in challenge.content
        await bob.click(challenge, label="Accept")
        dm = alice.user.dm_channel.last_message
        assert dm is not None and "Choose your secret" in dm.content
        await bot.close()


async def test_buttons_sent_before_a_restart_work_after_it(
    table: Table, alice: Member, bob: Member
) -> None:
    crystal = await start(table, alice, bob, "crystal")
    await alice.press(crystal, "9")
    crown = await start(table, alice, bob, "crown")
    prompt = alice.latest_dm("Choose your secret")
    assert command_syncs(table) == 1

    await table.restart()

    # The board's buttons and a DM's, sent by the old process, work in the new one.
    await bob.press(table.now(crystal), "2")
    after = table.now(crystal)
    assert last_event(after) == f"{bob.mention} captures crystal 2: 2 points."
    assert after.content == f"{alice.mention}, your move."
    assert "2" not in labels(after)
    chosen = await alice.press(prompt, "2,2")
    assert "Your Crown is at (2,2)." in private_answer(chosen)
    # The new process knows the boards from the database: a typed DM edits the crown's.
    assert "Your Crown is at (1,3)." in await bob.type_dm("1 3")
    assert "Both Crowns are placed" in last_event(table.now(crown))
    assert table.board(match=2).id == crown.id
    assert [message.id for message in table.messages()] == [crystal.id, crown.id]
    # The command tree did not change, so the new process did not register it again.
    assert command_syncs(table) == 1
