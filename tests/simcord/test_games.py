"""A whole match of every game on SimCord, from ``/<game> challenge`` to ``/stats``.

Secrets go in every way the bot takes them (DM buttons, typed DMs, forms, private pickers) and
moves go both by the board's buttons and by slash commands. Until the end, no secret is in the
channel or in a log line; afterwards ``/stats`` has the result.
"""

from __future__ import annotations

import logging
import re

import discord
import pytest

from .table import (
    Member,
    Table,
    buttons,
    embed_text,
    ephemeral_messages,
    labels,
    last_event,
    private_answer,
    start,
)


def assert_no_secret_leaked(
    table: Table, caplog: pytest.LogCaptureFixture, *secrets: str, typed: tuple[str, ...] = ()
) -> None:
    """No secret in the channel or the logs; nor, in the logs, as the member typed it."""
    public = table.public_text()
    logged = "\n".join(record.getMessage() for record in caplog.records)
    for secret in secrets:
        assert secret not in public, f"{secret!r} is public before the end"
    for secret in (*secrets, *typed):
        # Not inside a longer number: logs carry Discord ids.
        pattern = rf"(?<!\d){re.escape(secret)}(?!\d)"
        assert not re.search(pattern, logged), f"{secret!r} was logged"


async def assert_result(game: str, winner: Member, loser: Member) -> None:
    """``/stats`` has the match: the winner's record, the loser's, the game's leaderboard."""
    assert "1 W · 0 L · 0 D" in await winner.stats(game=game, user=winner)
    assert "0 W · 1 L · 0 D" in await loser.stats(game=game, user=loser)
    board = await loser.stats(game=game)
    first, second = board.index(winner.mention), board.index(loser.mention)
    assert first < second, board
    assert "1 W 0 L 0 D" in board and "0 W 1 L 0 D" in board


async def test_capture_the_crown(
    table: Table, alice: Member, bob: Member, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    board = await start(table, alice, bob, "crown")

    # Both are asked by DM, with the match, the opponent and the server named.
    alice_prompt = alice.latest_dm("Choose your secret")
    bob_prompt = bob.latest_dm("Choose your secret")
    assert bob.mention in alice_prompt.content and "Parlor test" in alice_prompt.content
    assert alice.mention in bob_prompt.content and "match #1" in bob_prompt.content
    assert board.jump_url in alice_prompt.content
    board = table.now(board)
    assert (
        board.content
        == f"Waiting for {alice.mention} and {bob.mention} to choose a secret (by DM)."
    )
    assert "Both players: choose your secret. I have sent you a DM" in last_event(board)

    # Alice picks her cell with a DM button: the DM itself says what came of it.
    chosen = await alice.press(alice_prompt, "3,1")
    assert chosen.response is not None and chosen.response.id == alice_prompt.id
    assert "Your Crown is at (3,1)." in private_answer(chosen)
    assert not labels(alice.now(alice_prompt))  # the picker has done its job
    assert "Your Crown is at (3,1)." in alice.now(alice_prompt).content
    board = table.now(board)
    assert board.content == f"Waiting for {bob.mention} to choose a secret (by DM)."
    assert last_event(board) == f"{alice.mention} has placed their Crown."
    # Bob types his.
    assert "Your Crown is at (2,3)." in await bob.type_dm("2 3")
    board = table.now(board)
    assert "Both Crowns are placed" in last_event(board)
    assert board.content == f"{alice.mention}, your move."

    # Alice misses; Bob chooses the hint with a DM button.
    await alice.press(board, "2,2")
    board = table.now(board)
    assert last_event(board) == f"{alice.mention} attacks (2,2): Miss."
    assert board.content == f"{bob.mention}, choose the hint you give (by DM)."
    drawn = embed_text(board)  # both grids, once; Bob's with Alice's miss
    assert drawn.startswith(f"Capture the Crown · match #1\n{alice.mention}'s Crown:\n")
    assert f"{bob.mention}'s Crown:\n⬜⬜⬜\n⬜❌⬜\n⬜⬜⬜\n❌ miss\n" in drawn
    assert "⏳ The hint is due <t:" in drawn
    assert drawn.count("⬜⬜⬜") == 5
    assert "Player 1" not in drawn and "```" not in drawn
    assert not labels(board)
    hint_prompt = bob.latest_dm("missed")
    assert sorted(labels(hint_prompt)) == ["Column is greater than 2", "Row is equal to 2"]
    hinted = await bob.press(hint_prompt, "Row is equal to 2")
    assert hinted.response is not None and hinted.response.id == hint_prompt.id
    assert not labels(bob.now(hint_prompt))
    board = table.now(board)
    assert last_event(board) == f"{bob.mention}'s hint: the Crown's row is equal to 2."
    assert board.content == f"{bob.mention}, your move."

    # Bob attacks by command and misses; Alice types her hint in her DMs.
    assert (await bob.play("crown attack", row=1, col=1)).id == board.id
    assert last_event(table.now(board)) == f"{bob.mention} attacks (1,1): Miss."
    assert "row" in alice.latest_dm("missed").content
    await alice.type_dm("column")
    board = table.now(board)
    assert "the Crown's column is equal to 1" in last_event(board)
    assert f"· {bob.mention} attacks (1,1): Miss." in embed_text(board)  # the earlier events
    assert labels(board) == [
        f"{row},{col}" for row in (1, 2, 3) for col in (1, 2, 3) if (row, col) != (2, 2)
    ]
    assert "👑" not in embed_text(board)
    assert_no_secret_leaked(table, caplog, "(3,1)", "(2,3)", typed=("3 1", "2 3"))

    # Alice captures the Crown: the end shows both secrets and offers a rematch.
    await alice.press(board, "2,3")
    end = table.now(board)
    assert end.content == ""  # nobody is waited for
    result = last_event(end)
    assert result.startswith(f"{alice.mention} attacks (2,3): Hit.")
    assert "Crown was at (3,1)" in result and "Crown was at (2,3)" in result
    assert labels(end) == ["Rematch", "Review"]
    drawn = embed_text(end)  # both Crowns drawn now: 💥 captured, 👑 never found
    assert f"{alice.mention}'s Crown:\n❌⬜⬜\n⬜⬜⬜\n👑⬜⬜" in drawn
    assert f"{bob.mention}'s Crown:\n⬜⬜⬜\n⬜❌💥\n⬜⬜⬜" in drawn
    assert "⏳" not in drawn
    assert [message.id for message in table.messages()] == [board.id]
    await assert_result("crown", alice, bob)


def drawn_cell(board: discord.Message, row: int, col: int) -> str:
    """The cell at (row, col) of the grid the board draws (its rows' cells a space apart)."""
    description = board.embeds[0].description or ""
    drawing = description.split("\n\n")[0]
    return drawing.splitlines()[row - 1].split(" ")[col - 1]


async def test_number_claim_with_hidden_numbers(table: Table, alice: Member, bob: Member) -> None:
    board = await start(table, alice, bob, "claim", hidden=True)
    assert set(labels(board)) == {"?"}
    assert embed_text(board).endswith("hidden: yes")  # the footer names the option chosen
    # Nine claims, row by row: by the board's buttons, and every third one by command.
    cells = [(row, col) for row in (1, 2, 3) for col in (1, 2, 3)]
    for turn, (row, col) in enumerate(cells):
        player = (alice, bob)[turn % 2]
        if turn == 8:
            assert "The grid was" not in table.public_text()
        if turn % 3 == 2:
            assert (await player.play("claim pick", row=row, col=col)).id == board.id
        else:
            await player.press(table.now(board), at=(row, col))
        board = table.now(board)
        assert f"{player.mention} claims ({row},{col})" in last_event(board)
        # The claimed number stays on the grid, beside its claimer's colour square.
        assert drawn_cell(board, row, col).startswith(("🟦", "🟥")[turn % 2])
    end = table.now(board)
    assert "The grid was" in last_event(end)
    assert labels(end) == ["Rematch", "Review"]
    winner, loser = (alice, bob) if f"{alice.mention} wins" in last_event(end) else (bob, alice)
    assert f"{winner.mention} wins" in last_event(end)
    await assert_result("claim", winner, loser)


def keycap(number: int) -> str:
    """The number as the board draws it: a keycap emoji."""
    return f"{number}\ufe0f\u20e3"


async def test_crystal_capture(table: Table, alice: Member, bob: Member) -> None:
    board = await start(table, alice, bob, "crystal")
    await alice.press(board, "9")
    board = table.now(board)
    assert last_event(board) == f"{alice.mention} captures crystal 9: 9 points."
    assert board.content == f"{bob.mention}, your move."
    assert (await bob.play("crystal take", crystal=1)).id == board.id
    board = table.now(board)
    assert last_event(board) == f"{bob.mention} captures crystal 1: 1 point."
    # Alice, on 9, may take 2-6 only: 1 and 9 are gone, 7 and 8 would pass 15, and say so.
    assert labels(board) == ["2", "3", "4", "5", "6"]
    assert [button.label for button in buttons(board) if button.disabled] == [
        "1 · taken",
        "7 · over 15",
        "8 · over 15",
        "9 · taken",
    ]
    drawn = embed_text(board)
    # The crystals as a keypad, each taken one beside its taker's colour; then the points.
    assert f"🟥{keycap(1)} ⬜{keycap(2)} ⬜{keycap(3)}\n" in drawn
    assert f"⬜{keycap(7)} ⬜{keycap(8)} 🟦{keycap(9)}\n" in drawn
    assert f"{alice.mention}: 9 points\n{bob.mention}: 1 point" in drawn
    await alice.press(board, "6")
    end = table.now(board)
    assert "wins with exactly 15 points" in last_event(end)
    assert labels(end) == ["Rematch", "Review"]
    await assert_result("crystal", alice, bob)


def step(board_labels: list[str], row: int, col: int) -> str:
    """The label of the board's button that moves the agent to (row, col): "↘ 4,4"."""
    (label,) = [label for label in board_labels if label.endswith(f" {row},{col}")]
    return label


async def test_flag_chase_with_traps_set_three_ways(
    table: Table, alice: Member, bob: Member, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    board = await start(table, alice, bob, "flag")

    # Alice: the board's Trap button opens her own cell picker, privately; the cell she picks
    # turns the picker into what came of it.
    opened = await alice.press(board, "Trap (2 left)")
    (picker,) = ephemeral_messages(opened)
    assert "pick the cell for a trap (2 left)" in picker.content
    chosen = await alice.press(picker, "4,4")
    assert chosen.response is not None and chosen.response.id == picker.id
    assert "Trap placed at (4,4)." in private_answer(chosen)
    assert not labels(chosen.response)
    board = table.now(board)
    assert last_event(board) == f"{alice.mention} placed a trap (1 left)."
    assert board.content == f"{bob.mention}, your move."  # a trap takes the turn

    # Bob: /flag trap sends the picker by DM, and the DM says what came of his pick.
    assert "by DM" in await bob.ask("flag trap")
    picker_dm = bob.latest_dm("pick the cell for a trap")
    chosen = await bob.press(picker_dm, "2,2")
    assert "Trap placed at (2,2)." in private_answer(chosen)
    assert not labels(bob.now(picker_dm))
    board = table.now(board)
    assert last_event(board) == f"{bob.mention} placed a trap (1 left)."

    # Alice: a typed DM.
    assert "Trap placed at (3,4)." in await alice.type_dm("TRAP 3 4")
    assert last_event(table.now(board)) == f"{alice.mention} placed a trap (0 left)."
    assert_no_secret_leaked(table, caplog, "(4,4)", "(2,2)", "(3,4)", typed=("3 4",))

    # Each steps on the other's trap: revealed, and the agent goes home.
    moves = [
        (bob, (4, 4), "Trap triggered at (4,4)!"),
        (alice, (2, 2), "Trap triggered at (2,2)!"),
        (bob, (4, 5), "moves to (4,5)"),
        (alice, (2, 2), "moves to (2,2)"),
        (bob, (3, 5), "moves to (3,5)"),
        (alice, (3, 3), "moves to (3,3)"),
        (bob, (2, 5), "moves to (2,5)"),
        (alice, (4, 4), "moves to (4,4)"),
        (bob, (1, 5), "moves to (1,5)"),
    ]
    for player, (row, col), seen in moves:
        board = table.now(board)
        await player.press(board, step(labels(board), row, col))
        assert seen in last_event(table.now(board))
    assert "💥 trap went off" in embed_text(table.now(board))
    assert_no_secret_leaked(table, caplog, "(3,4)", typed=("3 4",))
    assert (await alice.play("flag move", row=5, col=5)).id == board.id
    end = table.now(board)
    assert "captures the flag at (5,5) and wins" in last_event(end)
    assert "hidden traps: (3,4)" in last_event(end)
    assert "🪤 trap" in embed_text(end)
    assert labels(end) == ["Rematch", "Review"]
    await assert_result("flag", alice, bob)


async def test_safe_cracker_with_forms_and_typed_codes(
    table: Table, alice: Member, bob: Member, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    board = await start(table, alice, bob, "safe")
    alice.latest_dm("Choose your secret")
    bob_prompt = bob.latest_dm("Choose your secret")
    assert "3 digits, each 1-3" in bob_prompt.content
    assert labels(bob_prompt) == ["Set my code"]

    assert "Your code is 2-1-3." in await alice.type_dm("213")
    # Bob sets his with the DM's button, which opens a form; its submission turns the DM
    # prompt into what came of it.
    form = await bob.open_form(bob_prompt, "Set my code")
    set_code = await bob.submit(form, "Your code (only you see it)", "312")
    assert set_code.response is not None and set_code.response.id == bob_prompt.id
    assert "Your code is 3-1-2." in private_answer(set_code)
    assert not labels(bob.now(bob_prompt))
    board = table.now(board)
    assert "Both codes are set" in last_event(board)
    assert labels(board) == ["Guess"]

    assert (await alice.play("safe guess", code="111")).id == board.id
    board = table.now(board)
    assert "guesses 1-1-1: 1 exact match" in last_event(board)
    assert f"{alice.mention}'s guesses:\n{keycap(1) * 3} 1 exact match" in embed_text(board)
    assert_no_secret_leaked(table, caplog, "2-1-3", "3-1-2", typed=("213", "312"))
    # Bob guesses with the board's form: its submission edits the board.
    form = await bob.open_form(board, "Guess")
    guessed = await bob.submit(form, "Your guess", "213")
    assert guessed.response is not None and guessed.response.id == board.id
    end = table.now(board)
    assert "The safe is cracked!" in last_event(end)
    assert "code was 2-1-3" in last_event(end) and "code was 3-1-2" in last_event(end)
    drawn = embed_text(end)  # both codes, under the guesses
    assert f"{alice.mention}'s code: 2-1-3\n{bob.mention}'s code: 3-1-2" in drawn
    assert labels(end) == ["Rematch", "Review"]
    await assert_result("safe", bob, alice)


async def test_safe_codes_set_by_both_players_through_forms_open_at_once(
    table: Table, alice: Member, bob: Member
) -> None:
    board = await start(table, alice, bob, "safe")
    alice_form = await alice.open_form(alice.latest_dm("Choose your secret"), "Set my code")
    bob_form = await bob.open_form(bob.latest_dm("Choose your secret"), "Set my code")

    alice_set = await alice.submit(alice_form, "Your code (only you see it)", "213")
    told = private_answer(alice_set)
    assert "Your code is 2-1-3." in told, f"Alice's code was read from another form: {told!r}"
    bob_set = await bob.submit(bob_form, "Your code (only you see it)", "312")
    assert "Your code is 3-1-2." in private_answer(bob_set)
    assert "Both codes are set" in last_event(table.now(board))
