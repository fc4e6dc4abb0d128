"""Deadlines on SimCord's clock: time passes only when a test lets it, and the bot's sweeper,
running in SimCord's virtual time, acts on what fell due.

The host's timeouts here are the shortest the bounds allow (a minute; half a minute for a
hint): every round of the sweeper is a real query, so the less virtual time passes, the faster.
"""

from __future__ import annotations

import discord
import pytest
from simcord import SetupError

from bot.settings import Settings

from .table import Member, Table, challenge, labels, last_event, start, text_of


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(
        update={
            "challenge_timeout": 60,
            "setup_timeout": 60,
            "turn_timeout": 60,
            "hint_timeout": 30,
        }
    )


async def test_an_unanswered_challenge_expires(table: Table, alice: Member, bob: Member) -> None:
    offer = await challenge(table, alice, bob, "flag")
    assert "The challenge expires in 1 minute." in offer.content
    await table.let_time_pass(seconds=50)
    assert labels(table.now(offer)) == ["Accept", "Decline", "Withdraw"]

    await table.let_time_pass(seconds=10)
    expired = table.now(offer)
    assert "expired without an answer" in expired.content
    assert not labels(expired)


async def test_secrets_not_chosen_in_time_call_the_match_off(
    table: Table, alice: Member, bob: Member
) -> None:
    board = await start(table, alice, bob, "crown")
    await alice.press(alice.latest_dm("Choose your secret"), "1,1")
    await table.let_time_pass(minutes=1)
    called_off = table.now(board)
    said = last_event(called_off)
    assert f"Setup timed out: {bob.mention} did not choose a secret in time." in said
    assert "no result" in said
    assert called_off.content == ""
    assert "No finished matches yet." in await alice.stats(user=alice)


async def test_the_player_who_runs_out_of_time_loses(
    table: Table, alice: Member, bob: Member
) -> None:
    board = await start(table, alice, bob, "crown")
    await alice.press(alice.latest_dm("Choose your secret"), "1,1")
    await bob.press(bob.latest_dm("Choose your secret"), "3,3")
    assert "Both Crowns are placed" in last_event(table.now(board))

    # A hint not chosen in time is given for the defender: the one leaving most cells open.
    await alice.press(table.now(board), "2,2")
    await table.let_time_pass(seconds=30)
    hinted = table.now(board)
    assert "did not answer in time, so I chose for them" in last_event(hinted)
    assert "the Crown's row is greater than 2" in last_event(hinted)
    assert hinted.content == f"{bob.mention}, your move."

    await table.let_time_pass(minutes=1)
    end = table.now(board)
    said = last_event(end)
    assert said.startswith(f"{alice.mention} wins: {bob.mention} ran out of time.")
    assert "Crown was at (1,1)" in said and "Crown was at (3,3)" in said
    assert labels(end) == ["Rematch", "Review"]
    assert [message.id for message in table.messages()] == [board.id]
    assert "1 W · 0 L · 0 D" in await alice.stats(game="crown", user=alice)
    assert "0 W · 1 L · 0 D" in await bob.stats(game="crown", user=bob)


async def test_a_server_sets_its_own_turn_time(table: Table, alice: Member, bob: Member) -> None:
    # Only members with the Manage Server permission see /settings at all.
    assert "settings" not in alice.actor.available_commands(table.channel)
    with pytest.raises(SetupError, match="not visible to this user"):
        await alice.command("settings", turn="2m")
    managers = table.guild.create_role(
        "Managers", permissions=discord.Permissions(manage_guild=True)
    )
    dana = Member(table, table.guild.add_member(table.env.create_user("dana"), roles=[managers]))
    told = await dana.ask("settings", turn="2m")
    assert "Settings saved." in told and "turn: 2 minutes" in told

    board = await start(table, alice, bob, "crystal")
    await table.let_time_pass(minutes=1, seconds=50)
    assert "ran out of time" not in text_of(table.now(board))
    await table.let_time_pass(seconds=10)
    said = last_event(table.now(board))
    assert said == f"{bob.mention} wins: {alice.mention} ran out of time."
