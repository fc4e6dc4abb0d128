"""Members around a match on SimCord: strangers, wrong turns, double clicks, resigning."""

from __future__ import annotations

import discord
import pytest
from simcord import InteractionResult, SetupError

from .table import (
    Member,
    Table,
    challenge,
    embed_text,
    labels,
    last_event,
    private_answer,
    start,
    text_of,
)

NOT_YOUR_MATCH = "This is not your match: only its two players can act in it."


async def test_strangers_and_wrong_turns_are_told_privately(
    table: Table, alice: Member, bob: Member, carol: Member
) -> None:
    offer = await challenge(table, alice, bob, "crystal")
    refused = await carol.press(offer, "Accept")
    assert private_answer(refused) == f"Only {bob.mention} can accept or decline this challenge."
    refused = await bob.press(offer, "Withdraw")
    assert private_answer(refused) == f"Only {alice.mention} can withdraw this challenge."
    assert table.now(offer).content == offer.content
    assert labels(table.now(offer)) == ["Accept", "Decline", "Withdraw"]
    await bob.press(offer, "Accept")
    board = table.now(offer)
    shown = text_of(board)

    assert private_answer(await carol.press(board, "5")) == NOT_YOUR_MATCH
    wrong_turn = f"It is not your turn: it is {alice.mention}'s turn to move."
    assert private_answer(await bob.press(board, "5")) == wrong_turn
    assert wrong_turn in await bob.ask("crystal take", crystal=5)
    told = await carol.ask("crystal take", crystal=5)
    assert "You have no Crystal Capture match in this channel" in told

    # Nothing was played: the board is the same message, showing the same, with all its buttons.
    assert [message.id for message in table.messages()] == [board.id]
    assert text_of(table.now(board)) == shown
    assert labels(table.now(board)) == [str(crystal) for crystal in range(1, 10)]

    # A finished match's Rematch button is the players' only.
    await alice.press(board, "9")
    await bob.press(table.now(board), "1")
    await alice.press(table.now(board), "6")
    end = table.now(board)
    assert "wins with exactly 15 points" in last_event(end)
    refused = await carol.press(end, "Rematch")
    assert "Only the two players of this match can ask for a rematch." in private_answer(refused)


async def double_click(table: Table, alice: Member, board: discord.Message) -> InteractionResult:
    """Alice presses crystal 9 twice on ``board``, the first press's answer (its edit of the
    board) and the bot's repair of the board both failing once with a Discord server error, so
    the board still offers crystal 9; the second press's result."""
    table.env.inject_error("POST", "/interactions/*/callback", status=500, times=1)
    table.env.inject_error("PATCH", "/channels/*/messages/*", status=500, times=1)
    first = await alice.press(board, "9")
    assert first.acknowledged and not private_answer(first)  # the board says it all
    assert "9" in labels(table.now(board))
    return await alice.press(board, "9")


async def test_a_double_click_plays_once(table: Table, alice: Member, bob: Member) -> None:
    """The second press of a double click, arriving once the first one is played, plays nothing.

    On Discord the second press can reach the bot before the played board is edited. SimCord
    runs one member action at a time, so the board keeps its buttons here the way it would if
    the bot's edit were late: the first press's answer, which edits the board, fails once with
    a Discord server error.
    """
    board = await start(table, alice, bob, "crystal")
    second = await double_click(table, alice, board)
    assert second.acknowledged
    assert "already played" in private_answer(second)
    # The stale board the second press was on is brought up to date in its answer.
    assert table.now(board).content == f"{bob.mention}, your move."
    # Crystal 9 was captured once, by Alice: Bob moves next, and the board shows it all.
    assert (await bob.play("crystal take", crystal=2)).id == board.id
    board = table.now(board)
    assert last_event(board) == f"{bob.mention} captures crystal 2: 2 points."
    assert f"· {alice.mention} captures crystal 9: 9 points." in embed_text(board)
    assert board.content == f"{alice.mention}, your move."
    assert labels(board) == ["1", "3", "4", "5", "6"]


async def test_a_board_whose_update_failed_in_the_press_answer_is_repaired(
    table: Table, alice: Member, bob: Member
) -> None:
    """The press's own answer fails: the bot edits the board with its token instead."""
    board = await start(table, alice, bob, "crystal")
    table.env.inject_error("POST", "/interactions/*/callback", status=500, times=1)
    await alice.press(board, "9")
    board = table.now(board)
    assert board.content == f"{bob.mention}, your move.", "the board still waits for Alice"
    assert "9" not in labels(board)


async def test_a_played_board_cannot_be_pressed_again(
    table: Table, alice: Member, bob: Member
) -> None:
    """Without a failure, the board is edited before any second press: the crystal taken is
    disabled, and says so."""
    board = await start(table, alice, bob, "crystal")
    await alice.press(board, "9")
    board = table.now(board)
    assert "9" not in labels(board) and "9 · taken" in text_of(board)
    with pytest.raises(SetupError, match="a real user could not interact with it"):
        await alice.press(board, at=(2, 4))  # the button that was crystal 9
    assert last_event(table.now(board)) == f"{alice.mention} captures crystal 9: 9 points."


async def test_resigning_loses_the_match_once_it_is_on(
    table: Table, alice: Member, bob: Member
) -> None:
    board = await start(table, alice, bob, "crystal")
    await alice.press(board, "9")
    assert (await bob.play("resign")).id == board.id
    end = table.now(board)
    assert last_event(end) == f"{alice.mention} wins: {bob.mention} resigned."
    assert end.content == ""
    assert labels(end) == ["Rematch", "Review"]
    assert [message.id for message in table.messages()] == [board.id]
    assert "You have no Crystal Capture match" in await alice.ask("crystal take", crystal=1)
    assert "You have no unfinished match in this channel." in await bob.ask("resign")

    assert "1 W · 0 L · 0 D" in await alice.stats(game="crystal", user=alice)
    assert "0 W · 1 L · 0 D" in await bob.stats(game="crystal", user=bob)


async def test_resigning_before_the_start_calls_the_match_off(
    table: Table, alice: Member, bob: Member
) -> None:
    board = await start(table, alice, bob, "crown")
    prompt = alice.latest_dm("Choose your secret")
    assert (await alice.play("resign", game="crown")).id == board.id
    assert "called the match off before it started. No result." in last_event(table.now(board))
    assert labels(table.now(board)) == ["Rematch"]
    refused = await alice.press(prompt, "1,1")
    assert "over" in private_answer(refused)
    assert "No finished matches yet." in await alice.stats(user=alice)


async def test_a_rematch_is_a_new_challenge_with_the_same_options(
    table: Table, alice: Member, bob: Member
) -> None:
    board = await start(table, alice, bob, "safe", digits=4, length=4)
    assert "Your code is 1-2-3-4." in await alice.type_dm("1234")
    assert "Your code is 4-3-2-1." in await bob.type_dm("4321")
    assert (await bob.play("resign")).id == board.id  # on Alice's turn: Bob may resign any time
    end = table.now(board)
    assert last_event(end).startswith(f"{alice.mention} wins: {bob.mention} resigned. ")
    assert "code was 1-2-3-4" in last_event(end)  # the secrets are shown at the end

    asked = await bob.press(end, "Rematch")
    assert asked.response is not None and not asked.response.ephemeral
    offer = table.now(asked.response)  # the press's public answer: the new match's challenge
    assert offer.id != end.id
    assert offer.content.startswith(f"{alice.mention}, {bob.mention} challenges you")
    assert "to Safe Cracker (digits: 4, length: 4)." in offer.content
    assert labels(offer) == ["Accept", "Decline", "Withdraw"]
    assert "Rematch" in labels(table.now(end))  # Alice may offer one too
    await alice.press(offer, "Accept")
    assert table.board(match=2).id == offer.id
    assert "match #2" in embed_text(table.now(offer))
    assert "4 digits, each 1-4" in alice.latest_dm("Choose your secret").content


async def test_a_declined_or_withdrawn_challenge_is_closed(
    table: Table, alice: Member, bob: Member
) -> None:
    offer = await challenge(table, alice, bob, "claim")
    await bob.press(offer, "Decline")
    closed = table.now(offer)
    assert f"{bob.mention} declined the challenge." in closed.content
    assert not labels(closed) and not closed.embeds

    offer = await challenge(table, alice, bob, "claim", size=4)
    await alice.press(offer, "Withdraw")
    closed = table.now(offer)
    assert f"{alice.mention} withdrew the challenge." in closed.content
    assert not labels(closed) and not closed.embeds
    assert "You have no unfinished matches in this server." in await alice.ask("games")
