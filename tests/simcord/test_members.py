"""Members around a match on SimCord: strangers, wrong turns, double clicks, resigning."""

from __future__ import annotations

import pytest
from simcord import SetupError

from .table import Member, Table, embed_text, labels, private_answer, start

NOT_YOUR_MATCH = "This is not your match: only its two players can act in it."


async def test_strangers_and_wrong_turns_are_told_privately(
    table: Table, alice: Member, bob: Member, carol: Member
) -> None:
    await alice.ask("crystal challenge", opponent=bob)
    challenge = table.latest("challenges you")
    refused = await carol.press(challenge, "Accept")
    assert private_answer(refused) == f"Only {bob.mention} can accept or decline this challenge."
    refused = await bob.press(challenge, "Withdraw")
    assert private_answer(refused) == f"Only {alice.mention} can withdraw this challenge."
    assert labels(table.now(challenge)) == ["Accept", "Decline", "Withdraw"]
    await bob.press(challenge, "Accept")
    board = table.board()

    assert private_answer(await carol.press(board, "5")) == NOT_YOUR_MATCH
    wrong_turn = f"It is not your turn: it is {alice.mention}'s turn to move."
    assert private_answer(await bob.press(board, "5")) == wrong_turn
    assert wrong_turn in await bob.ask("crystal take", crystal=5)
    told = await carol.ask("crystal take", crystal=5)
    assert "You have no Crystal Capture match in this channel" in told

    # Nothing was played: the board is the same, with all its buttons.
    assert table.board().id == board.id
    assert labels(table.now(board)) == [str(crystal) for crystal in range(1, 10)]
    assert table.count("captures crystal") == 0

    # A finished match's Rematch button is the players' only.
    await alice.press(board, "9")
    await bob.press(table.board(), "1")
    await alice.press(table.board(), "6")
    end = table.latest("wins with exactly 15 points")
    refused = await carol.press(end, "Rematch")
    assert "Only the two players of this match can ask for a rematch." in private_answer(refused)


async def test_a_double_click_plays_once(table: Table, alice: Member, bob: Member) -> None:
    """The second press of a double click, arriving once the first one is played, plays nothing.

    On Discord the second press can reach the bot before the played board loses its buttons.
    SimCord runs one member action at a time, so the board keeps its buttons here the way it
    would if the bot's edit were late: that edit fails once with a Discord server error.
    """
    await start(table, alice, bob, "crystal")
    board = table.board()
    table.env.inject_error(
        "PATCH", f"/channels/{table.channel.id}/messages/{board.id}", status=500, times=1
    )
    first = await alice.press(board, "9")
    assert first.acknowledged and not private_answer(first)  # the new board says it all
    assert "9" in labels(table.now(board))

    second = await alice.press(board, "9")
    assert second.acknowledged
    assert "already played" in private_answer(second)
    assert table.count("captures crystal 9") == 1
    assert f"{bob.mention}, your move." in table.board().content


async def test_a_played_board_cannot_be_pressed_again(
    table: Table, alice: Member, bob: Member
) -> None:
    """Without a failure, the played board loses its buttons before any second press."""
    await start(table, alice, bob, "crystal")
    board = table.board()
    await alice.press(board, "9")
    assert not labels(table.now(board))
    with pytest.raises(SetupError, match="a real user could not interact with it"):
        await alice.press(board, "9")
    assert table.count("captures crystal 9") == 1


async def test_resigning_loses_the_match_once_it_is_on(
    table: Table, alice: Member, bob: Member
) -> None:
    await start(table, alice, bob, "crystal")
    board = table.board()
    await alice.press(board, "9")
    assert "Done" in await bob.ask("resign")
    end = table.latest(f"{alice.mention} wins: {bob.mention} resigned.")
    assert f"{alice.mention} wins" in end.content
    assert labels(end) == ["Rematch"]
    assert not labels(table.now(table.latest("captures crystal 9")))
    assert "You have no Crystal Capture match" in await alice.ask("crystal take", crystal=1)
    assert "You have no unfinished match in this channel." in await bob.ask("resign")

    assert "1 W · 0 L · 0 D" in await alice.stats(game="crystal", user=alice)
    assert "0 W · 1 L · 0 D" in await bob.stats(game="crystal", user=bob)


async def test_resigning_before_the_start_calls_the_match_off(
    table: Table, alice: Member, bob: Member
) -> None:
    await start(table, alice, bob, "crown")
    prompt = alice.latest_dm("Choose your secret")
    assert "Done" in await alice.ask("resign", game="crown")
    assert "called the match off before it started. No result." in table.board().content
    refused = await alice.press(prompt, "1,1")
    assert "over" in private_answer(refused)
    assert "No finished matches yet." in await alice.stats(user=alice)


async def test_a_rematch_is_a_new_challenge_with_the_same_options(
    table: Table, alice: Member, bob: Member
) -> None:
    await start(table, alice, bob, "safe", digits=4, length=3)
    assert "Your code is 1-2-3." in await alice.type_dm("123")
    assert "Your code is 4-3-2." in await bob.type_dm("432")
    assert "Done" in await bob.ask("resign")  # on Alice's turn: Bob may resign any time
    end = table.latest(f"{alice.mention} wins: {bob.mention} resigned.")

    await bob.press(end, "Rematch")
    offer = table.latest("challenges you")
    assert offer.content.startswith(f"{alice.mention}, {bob.mention} challenges you")
    assert "digits: 4, length: 3" in offer.content
    assert "Rematch" in labels(table.now(end))  # Alice may offer one too
    await alice.press(offer, "Accept")
    assert "match #2" in embed_text(table.board())
    assert "3 digits, each 1-4" in alice.latest_dm("Choose your secret").content


async def test_a_declined_or_withdrawn_challenge_is_closed(
    table: Table, alice: Member, bob: Member
) -> None:
    await alice.ask("claim challenge", opponent=bob)
    challenge = table.latest("challenges you")
    await bob.press(challenge, "Decline")
    assert f"{bob.mention} declined the challenge." in table.now(challenge).content
    assert not labels(table.now(challenge))

    await alice.ask("claim challenge", opponent=bob, size=4)
    challenge = table.latest("challenges you")
    await alice.press(challenge, "Withdraw")
    assert f"{alice.mention} withdrew the challenge." in table.now(challenge).content
    assert not labels(table.now(challenge))
    assert "You have no unfinished matches in this server." in await alice.ask("games")
