"""What can go wrong around a match: restarts, closed DMs, double clicks, strangers, wrong turns,
bad input, and deadlines (driven by the injected clock, acted on by the running sweeper)."""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING

import pytest

from bot.chat.components import Verb

from .fake_discord import InvalidInvocation

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeMember, FakeMessage

pytest_plugins = ("tests.e2e.bot_fixtures",)

NOT_YOUR_MATCH = "This is not your match"


async def start(table: Table, challenger: FakeMember, opponent: FakeMember, game: str) -> None:
    mark = table.checkpoint()
    await table.slash(challenger, f"{game} challenge", opponent=opponent)
    challenge = await table.posted("challenges you", after=mark)
    await table.click(opponent, challenge, Verb.ACCEPT)
    await table.posted("Coin toss", after=mark)


async def crystal_move(table: Table, who: FakeMember, crystal: int) -> FakeMessage:
    """Take a crystal with the board's button; the board, edited in place."""
    mark = table.checkpoint()
    board = table.board()
    await table.click(who, board, Verb.PLAY, str(crystal))
    assert await table.posted(f"captures crystal {crystal}:", after=mark) is board
    return board


async def test_a_button_sent_before_a_restart_works_after_it(
    idle_table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    async with idle_table.running():
        await start(idle_table, alice, bob, "crystal")
        before = await crystal_move(idle_table, alice, 9)
    syncs = [r for r in idle_table.fake.requests if r.method == "PUT" and "/commands" in r.path]
    assert len(syncs) == 1

    async with idle_table.running():
        mark = idle_table.checkpoint()
        await idle_table.click(bob, before, Verb.PLAY, "2")
        after = await idle_table.posted("captures crystal 2: 2 points", after=mark)
        assert after is before and idle_table.board_of(1) is after
        assert f"<@{alice.id}>, your move." in after.content
        # The new process knows no interaction token from before the restart: a command's move
        # edits the board through the press it has answered since, with no bot-token call.
        requests = idle_table.request_mark()
        mark = idle_table.checkpoint()
        await idle_table.slash(alice, "crystal take", crystal=3)
        assert await idle_table.posted("captures crystal 3:", after=mark) is before
        assert not idle_table.bot_calls(requests).board
    # The command tree did not change, so the second start did not sync it again.
    syncs = [r for r in idle_table.fake.requests if r.method == "PUT" and "/commands" in r.path]
    assert len(syncs) == 1


async def test_closed_dms_fall_back_to_ephemeral_pickers_in_the_channel(
    table: Table, alice: FakeMember, carol: FakeMember
) -> None:
    mark = table.checkpoint()
    await start(table, alice, carol, "crown")
    refused = await table.posted("could not send you a DM", after=mark)
    assert refused.content.startswith(f"<@{carol.id}>")
    alice_prompt = await table.posted("Choose your secret", after=mark, where=alice)
    await table.click(alice, alice_prompt, Verb.SECRET, "1 1")

    opened = await table.click(carol, refused, Verb.ASK)
    await table.fake.wait_for_response(opened)
    (picker,) = opened.ephemeral_messages
    assert "Choose your secret" in picker.content
    chosen = await table.click(carol, picker, Verb.SECRET, "3 3")
    await table.fake.wait_for_response(chosen)
    # The answer is the ephemeral picker itself, its buttons gone and the secret added.
    assert not chosen.messages and chosen.original is picker
    assert picker.ephemeral and picker.content.endswith("Match #1: Your Crown is at (3,3).")
    await table.closed(picker)
    placed = await table.posted("Both Crowns are placed", after=mark)
    assert placed is table.board_of(1)
    assert "(3,3)" not in table.public_text() and "(1,1)" not in table.public_text()
    # Pressing the channel button again says so, privately.
    again = await table.refused(carol, refused, Verb.ASK)
    assert "other player is to act" in again

    # The hint after a miss goes the same way.
    mark = table.checkpoint()
    await table.click(alice, placed, Verb.PLAY, "2 2")
    refused = await table.posted("choose the hint you give here", after=mark)
    opened = await table.click(carol, refused, Verb.ASK)
    await table.fake.wait_for_response(opened)
    (picker,) = opened.ephemeral_messages
    assert {b["label"] for b in picker.buttons} == {
        "Row is greater than 2",
        "Column is greater than 2",
    }
    await table.click(carol, picker, Verb.PLAY, "column")
    assert await table.posted("the Crown's column is greater than 2", after=mark) is placed
    await table.closed(picker)

    # One DM attempt per prompt: a refused DM is never retried.
    dm_channel = table.fake.dm_channel(carol)
    attempts = [
        r
        for r in table.fake.requests
        if r.method == "POST" and r.path == f"/channels/{dm_channel.id}/messages"
    ]
    assert len(attempts) == 2
    assert all(r.status == 403 for r in attempts)


async def test_a_double_click_plays_once(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    await start(table, alice, bob, "crystal")
    board = table.board()
    mark = table.checkpoint()
    custom_id = next(c for c in board.custom_ids if c.endswith(":play:9"))
    # Alice double-clicks while Carol, a stranger, clicks the same button.
    first, second, stranger = await asyncio.gather(
        table.fake.click(alice, board, custom_id),
        table.fake.click(alice, board, custom_id),
        table.fake.click(carol, board, custom_id),
    )
    await table.posted("captures crystal 9", after=mark)
    # Both presses are answered with the board (the later one brings it up to date), and the
    # later one is also told privately that it came too late.
    await table.fake.wait_until(
        lambda: first.answered and second.answered and (first.messages or second.messages),
        what="both answers",
    )
    played, refusal = sorted((first, second), key=lambda i: bool(i.messages))
    assert played.original is board and not played.messages
    assert "already played" in table.answer(refusal)
    assert all(m.ephemeral for m in refusal.messages)
    # Whether her press came before or after Alice's move, Carol hears the same.
    await table.fake.wait_until(lambda: stranger.messages, what="Carol's answer")
    assert NOT_YOUR_MATCH in table.answer(stranger)
    assert all(m.ephemeral for m in stranger.messages)
    assert table.board_of(1) is board
    boards = [m for m in table.fake.messages(table.channel) if "captures crystal" in m.text]
    assert boards == [board]
    # Played once: Alice has 9 points and Bob is to move.
    assert f"<@{bob.id}>, your move." in board.content
    assert board.text.count("captures crystal") == 1


async def test_strangers_and_wrong_turns_are_told_privately(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    mark = table.checkpoint()
    await table.slash(alice, "crystal challenge", opponent=bob)
    challenge = await table.posted("challenges you", after=mark)
    assert f"Only <@{bob.id}> can accept" in await table.refused(carol, challenge, Verb.ACCEPT)
    assert f"Only <@{alice.id}> can withdraw" in await table.refused(bob, challenge, Verb.WITHDRAW)
    await table.click(bob, challenge, Verb.ACCEPT)
    board = await table.posted("Coin toss", after=mark)

    assert NOT_YOUR_MATCH in await table.refused(carol, board, Verb.PLAY, "5")
    wrong_turn = f"It is not your turn: it is <@{alice.id}>'s turn to move."
    assert wrong_turn in await table.refused(bob, board, Verb.PLAY, "5")
    told = await table.slash(bob, "crystal take", crystal=5)
    assert wrong_turn in table.answer(told)
    assert "no Crystal Capture match in this channel" in table.answer(
        await table.slash(carol, "crystal take", crystal=5)
    )

    assert not [m for m in table.fake.messages(table.channel) if "captures crystal" in m.text]
    assert table.board_of(1) is board and f"<@{alice.id}>, your move." in board.content


async def test_bad_input_is_refused_with_what_is_valid(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    mark = table.checkpoint()
    await start(table, alice, bob, "safe")
    await table.dm(alice, "123")
    await table.dm(bob, "321")
    await table.posted("Both codes are set", after=mark)
    told = table.answer(await table.slash(alice, "safe guess", code="12"))
    assert "'12' has 2 digits: a code is 3 digits, each 1-3, e.g. '213'." in told
    told = table.answer(await table.slash(alice, "safe guess", code="345"))
    assert "has the digit 4" in told
    # A guess is a public move, made in the channel: a typed DM is not read as one.
    board = table.board_of(1)
    before = board.text
    reply = await table.dm(alice, "111")
    assert "nothing was played" in reply.content
    assert "or </safe guess:" in reply.content  # the command's mention
    assert board.text == before and table.board_of(1) is board
    # Registered ranges: Discord's client does not even send these.
    with pytest.raises(InvalidInvocation):
        await table.fake.slash(alice, table.channel, "crown attack", row=4, col=1)
    with pytest.raises(InvalidInvocation):
        await table.fake.slash(alice, table.channel, "safe challenge", opponent=bob, digits=10)
    told = table.answer(await table.slash(alice, "claim pick", row=1))
    assert "Give either `number`" in told
    told = table.answer(await table.slash(alice, "crown challenge", opponent=alice))
    assert "You cannot challenge yourself" in told


async def test_an_unanswered_challenge_expires(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    mark = table.checkpoint()
    await table.slash(alice, "flag challenge", opponent=bob)
    challenge = await table.posted("challenges you", after=mark)
    table.clock.advance(minutes=5, seconds=1)
    await table.fake.wait_until(lambda: "expired" in challenge.content, what="the expiry")
    assert not challenge.custom_ids
    assert "expired without an answer" in challenge.content
    assert table.board_of(1) is challenge


async def test_the_player_who_runs_out_of_time_loses(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    await start(table, alice, bob, "crown")
    mark = table.checkpoint()
    for who, cell in ((alice, "1 1"), (bob, "3 3")):
        prompt = await table.posted("Choose your secret", after=mark, where=who)
        await table.click(who, prompt, Verb.SECRET, cell)
    board = await table.posted("Both Crowns are placed", after=mark)

    # A hint not chosen in time is given for the defender: the one leaving most cells open.
    mark = table.checkpoint()
    await table.click(alice, board, Verb.PLAY, "2 2")
    await table.posted("choose the hint", after=mark)
    table.clock.advance(minutes=2, seconds=1)
    hinted = await table.posted("did not answer in time, so I chose for them", after=mark)
    assert hinted is board
    assert "the Crown's row is greater than 2" in hinted.text
    assert f"<@{bob.id}>, your move." in hinted.content

    mark = table.checkpoint()
    table.clock.advance(minutes=10, seconds=1)
    end = await table.posted("ran out of time", after=mark)
    assert end is board and table.board_of(1) is end
    assert f"<@{alice.id}> wins: <@{bob.id}> ran out of time." in end.text
    assert "Crown was at (1,1)" in end.text and "Crown was at (3,3)" in end.text
    assert [p.verb for p in table.presses(end)] == [Verb.REMATCH, Verb.REVIEW]
    stats = table.answer(await table.slash(alice, "stats", game="crown", user=alice))
    assert re.search(r"1 W · 0 L · 0 D", stats)


async def test_a_typed_dm_with_no_match_waiting_says_so(table: Table, alice: FakeMember) -> None:
    reply = await table.dm(alice, "2 3")
    assert "None of your matches is waiting for an answer from you" in reply.content


async def test_typed_dm_answers_name_their_match_when_several_wait(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    # Two prompts and two replies: Discord allows five posts in a DM channel in 5 s, and
    # discord.py holds the fifth one's sender until the window ends.
    for opponent in (bob, carol):
        mark = table.checkpoint()
        await start(table, alice, opponent, "crown")
        await table.posted("Choose your secret", after=mark, where=alice)
    reply = await table.dm(alice, "2 3")
    assert "Several matches wait for you (#2 Capture the Crown; #1 Capture the Crown)" in (
        reply.content
    )
    reply = await table.dm(alice, "#1 2 3")
    assert reply.content == "Match #1: Your Crown is at (2,3)."


async def test_a_typed_dm_goes_to_the_one_match_still_waiting(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    prompts = []
    for opponent in (bob, carol):
        mark = table.checkpoint()
        await start(table, alice, opponent, "crown")
        prompts.append(await table.posted("Choose your secret", after=mark, where=alice))
    await table.click(alice, prompts[0], Verb.SECRET, "2 3")
    await table.closed(prompts[0])
    reply = await table.dm(alice, "3 3")  # only match #2 still waits for her
    assert reply.content == "Match #2: Your Crown is at (3,3)."
