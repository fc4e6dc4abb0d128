"""The bot removed from a server, and members leaving one, as the running bot meets them.

Removed from a server (GUILD_DELETE, or missing from READY after a restart), the bot calls off
the server's unfinished matches: no result, and nothing posted. A member who leaves is not
told to the bot (it asks for no privileged intent): their matches end by their deadlines, as
when they stop answering.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import pytest

from bot.chat.components import Verb

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeGuild, FakeMember

pytest_plugins = ("tests.e2e.bot_fixtures",)


async def start(table: Table, challenger: FakeMember, opponent: FakeMember, game: str) -> None:
    mark = table.checkpoint()
    await table.slash(challenger, f"{game} challenge", opponent=opponent)
    challenge = await table.posted("challenges you", after=mark)
    await table.click(opponent, challenge, Verb.ACCEPT)
    await table.posted("Coin toss", after=mark)


async def called_off(table: Table, caplog: pytest.LogCaptureFixture, *members: FakeMember) -> None:
    """Wait until the bot has called off a server's matches; none of the members' is left."""
    await table.fake.wait_until(
        lambda: "unfinished matches called off" in caplog.text, what="the matches called off"
    )
    assert table.app is not None
    for member in members:
        assert await table.app.matches.lookups.unfinished(member.id) == []


async def test_removed_from_a_server_the_bot_calls_its_matches_off(
    table: Table,
    guild: FakeGuild,
    alice: FakeMember,
    bob: FakeMember,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    await start(table, alice, bob, "crystal")
    mark = table.checkpoint()
    await table.slash(bob, "flag challenge", opponent=alice)
    await table.posted("challenges you", after=mark)
    app = table.app
    assert app is not None
    assert len(await app.matches.lookups.unfinished(alice.id)) == 2

    requests = len(table.fake.requests)
    table.fake.remove_guild(guild)
    await called_off(table, caplog, alice, bob)
    table.clock.advance(minutes=11)  # no deadline is left to fire
    assert table.app is not None
    sweeps = table.app.sweeps.loop
    swept = sweeps.current_loop
    await table.fake.wait_until(lambda: sweeps.current_loop > swept + 1, what="two sweeps")
    posts = [r for r in table.fake.requests[requests:] if r.method in ("POST", "PATCH")]
    assert posts == []  # nothing is posted in a server the bot left
    for member in (alice, bob):
        record = await app.parts.servers.member_record(guild.id, member.id)
        assert record.total == (0, 0, 0) and record.recent == []


async def test_removed_while_away_the_bot_calls_the_matches_off_at_start(
    idle_table: Table,
    guild: FakeGuild,
    alice: FakeMember,
    bob: FakeMember,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    table = idle_table
    async with table.running():
        await start(table, alice, bob, "crystal")
    table.fake.remove_guild(guild)
    async with table.running():
        await called_off(table, caplog, alice, bob)


async def test_a_member_who_left_loses_when_their_turn_runs_out(
    table: Table, guild: FakeGuild, alice: FakeMember, bob: FakeMember
) -> None:
    await start(table, alice, bob, "crystal")
    mark = table.checkpoint()
    await table.click(alice, table.board(), Verb.PLAY, "9")
    await table.posted("captures crystal 9", after=mark)
    table.fake.remove_member(guild, bob)  # the bot is not told

    table.clock.advance(minutes=10, seconds=1)
    end = await table.posted("ran out of time", after=mark)
    assert f"<@{alice.id}> wins: <@{bob.id}> ran out of time." in end.text
    assert end.id == table.board_of(1).id and not end.content  # one board, waiting for no one


async def test_a_member_who_left_during_setup_lets_it_time_out_with_no_result(
    table: Table, guild: FakeGuild, alice: FakeMember, bob: FakeMember
) -> None:
    mark = table.checkpoint()
    await start(table, alice, bob, "crown")
    prompt = await table.posted("Choose your secret", after=mark, where=alice)
    await table.click(alice, prompt, Verb.SECRET, "1 1")
    table.fake.remove_member(guild, bob)

    table.clock.advance(minutes=5, seconds=1)
    called_off = await table.posted("Setup timed out", after=mark)
    assert "no result" in called_off.text
    assert called_off.id == table.board_of(1).id and not called_off.content
    assert [p.verb for p in table.presses(called_off)] == [Verb.REMATCH]
