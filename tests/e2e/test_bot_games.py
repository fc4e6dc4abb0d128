"""A whole match of every game, from ``/<game> challenge`` to the result, as the members see it.

Secrets go in every way the bot takes them: DM buttons, typed DMs, forms, ephemeral pickers. Until
the last move no public message, no button id and no log line holds a secret. The match lives on
one board message, edited in place; a private picker, once used, says what came of it.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

import pytest

from bot.chat.components import Verb

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeMember, FakeMessage

pytest_plugins = ("tests.e2e.bot_fixtures",)


async def start(
    table: Table, challenger: FakeMember, opponent: FakeMember, command: str, **options: object
) -> FakeMessage:
    """Challenge and accept: the challenge, the command's public answer, becomes the board."""
    mark = table.checkpoint()
    answered = await table.slash(challenger, command, opponent=opponent, **options)
    (challenge,) = answered.messages
    assert not challenge.ephemeral and "challenges you" in challenge.content
    assert challenge.content.startswith(f"<@{opponent.id}>")
    assert {p.verb for p in table.presses(challenge)} == {Verb.ACCEPT, Verb.DECLINE, Verb.WITHDRAW}
    await table.click(opponent, challenge, Verb.ACCEPT)
    board = await table.posted("Coin toss", after=mark)
    assert board.id == challenge.id and "accepted" in board.text
    return board


def assert_no_secret_leaked(
    table: Table, caplog: pytest.LogCaptureFixture, *secrets: str, typed: tuple[str, ...] = ()
) -> None:
    """No secret in public messages or logs; nor, in logs, as the member typed it."""
    public = table.public_text()
    logged = "\n".join(record.getMessage() for record in caplog.records)
    for secret in secrets:
        assert secret not in public, f"{secret!r} is public before the end"
    for secret in (*secrets, *typed):
        # Not inside a longer number: logs carry Discord ids, whose digits may contain "312".
        pattern = rf"(?<!\d){re.escape(secret)}(?!\d)"
        assert not re.search(pattern, logged), f"{secret!r} was logged"


async def test_capture_the_crown(
    table: Table, alice: FakeMember, bob: FakeMember, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    mark = table.checkpoint()
    board = await start(table, alice, bob, "crown challenge")

    # Both are asked by DM, with the match, the opponent and the server named.
    alice_prompt = await table.posted("Choose your secret", after=mark, where=alice)
    bob_prompt = await table.posted("Choose your secret", after=mark, where=bob)
    assert f"<@{bob.id}>" in alice_prompt.content and "Parlor test" in alice_prompt.content
    assert f"<@{alice.id}>" in bob_prompt.content and "match #1" in bob_prompt.content

    # Alice picks her cell with a DM button; Bob types his.
    # The press's answer is the prompt itself: its buttons gone, what came of it added.
    chosen = await table.click(alice, alice_prompt, Verb.SECRET, "3 1")
    await table.fake.wait_for_response(chosen)
    assert not chosen.messages and chosen.original is alice_prompt
    assert alice_prompt.content.endswith("Match #1: Your Crown is at (3,1).")
    assert not alice_prompt.custom_ids
    reply = await table.dm(bob, "2 3")
    assert "Your Crown is at (2,3)." in reply.content
    placed = await table.posted("Both Crowns are placed", after=mark)
    assert placed.id == board.id
    assert f"<@{alice.id}>, your move." in placed.content

    # Alice misses; Bob chooses the hint with a DM button.
    mark = table.checkpoint()
    await table.click(alice, placed, Verb.PLAY, "2 2")
    missed = await table.posted("attacks (2,2): Miss", after=mark)
    assert f"<@{bob.id}>, choose the hint" in missed.content
    assert not table.presses(missed)
    hint_prompt = await table.posted("missed", after=mark, where=bob)
    labels = {b["label"] for b in hint_prompt.buttons}
    assert labels == {"Row is equal to 2", "Column is greater than 2"}
    await table.click(bob, hint_prompt, Verb.PLAY, "row")
    hinted = await table.posted("the Crown's row is equal to 2", after=mark)
    assert f"<@{bob.id}>, your move." in hinted.content
    await table.closed(hint_prompt)
    assert hinted.id == board.id and table.board_of(1) is hinted

    # Bob attacks by command and misses; Alice types her hint in her DMs.
    mark = table.checkpoint()
    done = await table.slash(bob, "crown attack", row=1, col=1)
    assert done.messages and all(m.ephemeral for m in done.messages)
    assert table.answer(done).endswith(f"/{table.channel.id}/{board.id}")
    await table.posted("attacks (1,1): Miss", after=mark)
    await table.posted("missed", after=mark, where=alice)
    await table.dm(alice, "column")
    hinted = await table.posted("the Crown's column is equal to 1", after=mark)
    assert {p.arg for p in table.presses(hinted)} == {
        f"{r} {c}" for r in (1, 2, 3) for c in (1, 2, 3)
    } - {"2 2"}
    assert_no_secret_leaked(table, caplog, "(3,1)", "(2,3)", typed=("3 1", "2 3"))

    # Alice captures the Crown: the end shows both secrets and offers a rematch.
    mark = table.checkpoint()
    await table.click(alice, hinted, Verb.PLAY, "2 3")
    end = await table.posted("Hit", after=mark)
    assert end.id == board.id and end.content == ""
    assert "Crown was at (3,1)" in end.text and "Crown was at (2,3)" in end.text
    assert [p.verb for p in table.presses(end)] == [Verb.REMATCH, Verb.REVIEW]


async def test_number_claim_with_hidden_numbers(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    first = await start(table, alice, bob, "claim challenge", hidden=True)
    assert {b["label"] for b in first.buttons} == {"?"}
    # Nine claims: by button, and every third one by command.
    for turn in range(9):
        player = (alice, bob)[turn % 2]
        current = table.board()
        cell = next(p.arg for p in table.presses(current) if p.verb == Verb.PLAY)
        if turn == 8:
            assert "The grid was" not in table.public_text()
        mark = table.checkpoint()
        if turn % 3 == 2:
            row, col = cell.split()
            await table.slash(player, "claim pick", row=int(row), col=int(col))
        else:
            await table.click(player, current, Verb.PLAY, cell)
        await table.posted(f"claims ({cell.replace(' ', ',')})", after=mark)
        assert table.board_of(1) is first
    end = table.board()
    assert end is first
    assert "wins" in end.text and "The grid was" in end.text
    assert [p.verb for p in table.presses(end)] == [Verb.REMATCH, Verb.REVIEW]


async def test_crystal_capture(table: Table, alice: FakeMember, bob: FakeMember) -> None:
    board = await start(table, alice, bob, "crystal challenge")
    await play_crystal(table, alice, bob)
    assert table.board_of(1) is board


async def play_crystal(table: Table, alice: FakeMember, bob: FakeMember) -> None:
    """A Crystal Capture match just started, played to Alice's win with buttons and a command."""
    mark = table.checkpoint()
    await table.click(alice, table.board(), Verb.PLAY, "9")
    took = await table.posted("captures crystal 9: 9 points", after=mark)
    assert f"<@{bob.id}>, your move." in took.content
    mark = table.checkpoint()
    await table.slash(bob, "crystal take", crystal=1)
    took = await table.posted("captures crystal 1: 1 point.", after=mark)
    # Alice, on 9, may take 2-6 only: 1 and 9 are gone, 7 and 8 would pass 15.
    assert {p.arg for p in table.presses(took)} == {"2", "3", "4", "5", "6"}
    mark = table.checkpoint()
    await table.click(alice, took, Verb.PLAY, "6")
    end = await table.posted("wins with exactly 15 points", after=mark)
    assert end is took
    assert [p.verb for p in table.presses(end)] == [Verb.REMATCH, Verb.REVIEW]


async def test_flag_chase_with_traps_set_three_ways(
    table: Table, alice: FakeMember, bob: FakeMember, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    started = await start(table, alice, bob, "flag challenge")

    # Alice: the board's Trap button opens her own cell picker, privately.
    mark = table.checkpoint()
    opened = await table.click(alice, started, Verb.TRAP)
    await table.fake.wait_for_response(opened)
    (picker,) = opened.ephemeral_messages
    assert "pick the cell for a trap (2 left)" in picker.content
    chosen = await table.click(alice, picker, Verb.PLAY, "TRAP 4 4")
    await table.fake.wait_for_response(chosen)
    assert picker.ephemeral and picker.content.endswith("Match #1: Trap placed at (4,4).")
    await table.closed(picker)
    placed = await table.posted(f"<@{alice.id}> placed a trap (1 left)", after=mark)
    assert placed is started

    # Bob: /flag trap sends the picker by DM.
    mark = table.checkpoint()
    asked = await table.slash(bob, "flag trap")
    assert "by DM" in table.answer(asked)
    picker = await table.posted("pick the cell for a trap", after=mark, where=bob)
    await table.click(bob, picker, Verb.PLAY, "TRAP 2 2")
    await table.posted(f"<@{bob.id}> placed a trap (1 left)", after=mark)
    await table.closed(picker)
    assert "Match #1: Trap placed at (2,2)." in picker.content

    # Alice: a typed DM.
    mark = table.checkpoint()
    reply = await table.dm(alice, "TRAP 3 4")
    assert "Trap placed at (3,4)." in reply.content
    board = await table.posted("placed a trap (0 left)", after=mark)
    assert board is started
    assert_no_secret_leaked(table, caplog, "(4,4)", "(2,2)", "(3,4)", typed=("3 4",))

    # Each steps on the other's trap: revealed, and the agent goes home.
    moves = [
        (bob, "MOVE 4 4", "Trap triggered at (4,4)!"),
        (alice, "MOVE 2 2", "Trap triggered at (2,2)!"),
        (bob, "MOVE 4 5", "moves to (4,5)"),
        (alice, "MOVE 2 2", "moves to (2,2)"),
        (bob, "MOVE 3 5", "moves to (3,5)"),
        (alice, "MOVE 3 3", "moves to (3,3)"),
        (bob, "MOVE 2 5", "moves to (2,5)"),
        (alice, "MOVE 4 4", "moves to (4,4)"),
        (bob, "MOVE 1 5", "moves to (1,5)"),
    ]
    for player, move, seen in moves:
        mark = table.checkpoint()
        await table.click(player, board, Verb.PLAY, move)
        board = await table.posted(seen, after=mark)
    assert_no_secret_leaked(table, caplog, "(3,4)", typed=("3 4",))
    mark = table.checkpoint()
    await table.slash(alice, "flag move", row=5, col=5)
    end = await table.posted("captures the flag at (5,5) and wins", after=mark)
    assert end is started and table.board_of(1) is end
    assert "hidden traps: (3,4)" in end.text
    assert "🪤" in end.text  # the hidden trap, drawn on the board once the match is over


async def test_safe_cracker_with_forms_and_typed_codes(
    table: Table, alice: FakeMember, bob: FakeMember, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    mark = table.checkpoint()
    board = await start(table, alice, bob, "safe challenge")
    await table.posted("Choose your secret", after=mark, where=alice)
    bob_prompt = await table.posted("Choose your secret", after=mark, where=bob)
    assert "3 digits, each 1-3" in bob_prompt.content

    reply = await table.dm(alice, "213")
    assert "Your code is 2-1-3." in reply.content
    # Bob sets his with the DM's button, which opens a form.
    opened = await table.click(bob, bob_prompt, Verb.CODE)
    await table.fake.wait_for_response(opened)
    (field,) = opened.modal_text_inputs
    assert opened.modal is not None
    submitted = await table.fake.submit_modal(
        bob, opened, opened.modal["custom_id"], {field["custom_id"]: "312"}
    )
    await table.fake.wait_for_response(submitted)
    assert not submitted.messages  # the form's answer is the DM prompt, edited
    assert bob_prompt.content.endswith("Match #1: Your code is 3-1-2.")
    assert not bob_prompt.custom_ids
    set_ = await table.posted("Both codes are set", after=mark)
    assert set_ is board
    assert [p.verb for p in table.presses(set_)] == [Verb.GUESS]

    mark = table.checkpoint()
    await table.slash(alice, "safe guess", code="111")
    guessed = await table.posted("guesses 1-1-1: 1 exact match", after=mark)
    assert_no_secret_leaked(table, caplog, "2-1-3", "3-1-2", typed=("213", "312"))
    mark = table.checkpoint()
    opened = await table.click(bob, guessed, Verb.GUESS)
    await table.fake.wait_for_response(opened)
    (field,) = opened.modal_text_inputs
    assert opened.modal is not None
    await table.fake.submit_modal(
        bob, opened, opened.modal["custom_id"], {field["custom_id"]: "213"}
    )
    end = await table.posted("The safe is cracked!", after=mark)
    assert end is board and table.board_of(1) is end
    assert "code was 2-1-3" in end.text and "code was 3-1-2" in end.text
    # Both codes, drawn on the board under the guesses.
    assert f"<@{alice.id}>'s code: 2-1-3\n<@{bob.id}>'s code: 3-1-2" in end.text
