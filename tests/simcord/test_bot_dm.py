"""A match against the bot in its DM, on SimCord: a second opinion on the one place outside
servers SimCord models. SimCord knows the DM with the bot (interaction context 1) but not a
member's own install: its interactions name no authorising owner, it has no group DM and no
followup cap (docs/architecture.md, "Tests"). Outside a server the match lives on the challenge
command's own response, which each press edits: the DM holds that one message."""

from __future__ import annotations

import discord
from simcord.builders import UserHandle

from .table import Member, Table, labels, last_event, text_of


async def test_a_whole_match_against_the_bot_in_its_dm(table: Table, alice: Member) -> None:
    env = table.env
    bot_user = env.backend.bot_user
    user = alice.actor.user

    def in_dm() -> list[discord.Message]:
        return list(user.dm_channel.history())

    answered = await user.slash("crystal challenge", opponent=UserHandle(env, bot_user))
    assert answered.response is not None and not answered.response.ephemeral
    (board,) = in_dm()  # the command's own response, in the DM
    assert board.guild is None and "Coin toss" in last_event(board)

    for _ in range(9):
        crystals = [label for label in labels(board) if label.isdigit()]
        if not crystals:
            break
        pressed = await alice.press(board, crystals[0])
        assert pressed.response is not None and not pressed.response.ephemeral
        (board,) = in_dm()  # one message, edited from the challenge to the result
    assert labels(board) == ["Rematch", "Review"], text_of(board)
    assert "wins" in last_event(board) or "draw" in last_event(board).lower()
    games = await user.slash("games")
    assert games.response is not None and games.response.ephemeral
    assert games.response.content == "You have no unfinished matches outside servers."
