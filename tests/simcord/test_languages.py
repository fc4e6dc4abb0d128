"""A French server on SimCord: its preferred locale is French, so every board of a whole match,
the one the sweeper posts at the time-out too, is written in French. SimCord's interactions
always carry ``en-US``, so the members' private answers and DMs stay in English.

Texts are converted to the catalogs part by part: the boards are compared with what the bot's
renderer writes in French (``speaking("fr")``), which holds for every text, translated yet or not.
"""

from __future__ import annotations

import discord
import pytest
import simcord

from bot.chat.boards import render
from bot.chat.components import Post
from bot.i18n import speaking
from bot.settings import Settings

from .table import Member, SimClock, Table, as_message, buttons


@pytest.fixture
def table(simcord_env: simcord.Env, settings: Settings, clock: SimClock) -> Table:
    return Table(simcord_env, settings, clock, preferred_locale="fr")


async def written_in(table: Table, language: str) -> Post:
    """Match #1's board as the bot writes it now in ``language``."""
    snap = await table.app.matches.lookups.snapshot(1)
    with speaking(language):
        if snap.status == "challenged":
            return render.challenge_post(snap, [])
        return render.board_post(snap, [])


async def assert_french(table: Table, board: discord.Message) -> None:
    """The board is match #1's as the bot writes it in French: its title and its buttons."""
    expected = await written_in(table, "fr")
    if expected.embed is not None:
        assert board.embeds and board.embeds[0].title == expected.embed.title
    shown = [button.label for button in buttons(board)]
    assert shown == [button.label for row in expected.layout for button in row]


def first_button(message: discord.Message) -> tuple[int, int]:
    assert buttons(message), "the message has no button"
    return (1, 1)


async def test_a_french_server_plays_a_whole_match_on_french_boards(
    table: Table, alice: Member, bob: Member
) -> None:
    languages = table.app.languages
    assert languages is not None
    await table.env.settle()  # the bot has taken in the server's GUILD_CREATE
    assert await languages.server(table.guild.id) == "fr"

    result = await alice.command("crown challenge", opponent=bob)
    assert result.response is not None and not result.response.ephemeral
    offer = table.now(as_message(result.response))
    await assert_french(table, offer)

    await bob.press(offer, at=first_button(offer))  # Accept
    board = table.now(offer)
    await assert_french(table, board)
    # Members' apps are in English on SimCord: their DMs are too.
    assert await languages.member(bob.id, table.guild.id) == "en-US"

    await alice.type_dm("3 1")
    await bob.type_dm("2 3")
    board = table.now(offer)
    await assert_french(table, board)

    await alice.command("crown attack", row=2, col=2)  # a miss: Bob chooses the hint
    hint = bob.dms()[-1]
    await bob.press(hint, at=first_button(hint))
    board = table.now(offer)
    await assert_french(table, board)

    await table.let_time_pass(minutes=11)  # Bob's turn runs out: the sweeper ends the match
    board = table.now(offer)
    snap = await table.app.matches.lookups.snapshot(1)
    assert snap.over and snap.winner_id == alice.id
    await assert_french(table, board)
