"""Matches outside servers: two friends who share no server with the bot play in their group DM
through a user install. The bot is not in that channel and its token is refused there (50001),
so the match lives on the challenge command's response, edited by each press on it; no request
is ever made to that channel with the bot's token."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import pytest

from bot.chat.components import Verb

from .anywhere import (
    assert_no_bot_token_call,
    assert_no_secret_leaked,
    challenge,
    choose,
    pick_trap,
    submit_form,
)
from .fake_discord import (
    EVERYONE_PERMISSIONS,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeUser,
    InvalidInvocation,
)

if TYPE_CHECKING:
    from .bot_fixtures import Table

pytest_plugins = ("tests.e2e.bot_fixtures", "tests.e2e.anywhere_fixtures")


async def test_a_whole_crystal_capture_match_in_a_group_dm(
    group: Table, dora: FakeUser, eli: FakeUser
) -> None:
    requests = group.request_mark()
    board = await challenge(group, dora, eli, "crystal")
    mark = group.checkpoint()
    await group.click(dora, board, Verb.PLAY, "9")
    took = await group.posted("captures crystal 9: 9 points", after=mark)
    assert took is board and f"<@{eli.id}>, your move." in took.content
    mark = group.checkpoint()
    await group.click(eli, board, Verb.PLAY, "1")
    took = await group.posted("captures crystal 1: 1 point.", after=mark)
    assert {p.arg for p in group.presses(took)} == {"2", "3", "4", "5", "6"}
    mark = group.checkpoint()
    await group.click(dora, board, Verb.PLAY, "6")
    end = await group.posted("wins with exactly 15 points", after=mark)
    assert end is board
    assert [m for m in group.fake.messages(group.channel) if not m.ephemeral] == [board]
    assert_no_bot_token_call(group, requests)

    # The match counts on the ladder outside servers: /stats in a DM is one's own record there.
    dm = group.fake.dm_channel(dora)
    asked = await group.fake.slash(dora, dm, "stats")
    record = group.answer(await group.fake.wait_for_response(asked))
    assert "1 W · 0 L · 0 D" in record
    assert f"Crystal Capture vs <@{eli.id}>: win" in record
    asked = await group.fake.slash(dora, group.channel, "stats", user=eli)
    record = group.answer(await group.fake.wait_for_response(asked))
    assert "0 W · 1 L · 0 D" in record
    # /history and /replay there read the matches played outside servers.
    asked = await group.fake.slash(dora, dm, "history")
    history = group.answer(await group.fake.wait_for_response(asked))
    assert "Crystal Capture" in history and f"<@{eli.id}>" in history
    asked = await group.fake.slash(dora, dm, "replay", match=1)
    assert "Crystal Capture" in group.answer(await group.fake.wait_for_response(asked))


async def test_server_commands_are_not_offered_in_a_group_dm(group: Table, dora: FakeUser) -> None:
    for command in ("settings show", "tournament list", "play queue"):
        with pytest.raises(InvalidInvocation):
            await group.fake.slash(dora, group.channel, command)


async def test_a_whole_crown_match_in_a_group_dm_with_secrets_chosen_privately(
    group: Table, dora: FakeUser, eli: FakeUser, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    requests = group.request_mark()
    board = await challenge(group, dora, eli, "crown")
    assert [b["label"] for b in board.buttons] == ["Choose my secret"]
    # Nobody is sent a DM outside servers: the board names the button that asks them.
    assert board.content == (
        f"Waiting for <@{dora.id}> and <@{eli.id}> to choose a secret with **Choose my secret**."
    )
    assert "choose your secret with **Choose my secret** below" in board.text

    # Each opens their own picker from the match's message; nobody else sees it.
    mark = group.checkpoint()
    await choose(group, dora, board, Verb.SECRET, "3 1")
    await choose(group, eli, board, Verb.SECRET, "2 3")
    placed = await group.posted("Both Crowns are placed", after=mark)
    assert placed is board and f"<@{dora.id}>, your move." in placed.content

    # Dora misses; Eli chooses his hint the same way.
    mark = group.checkpoint()
    await group.click(dora, board, Verb.PLAY, "2 2")
    missed = await group.posted("attacks (2,2): Miss", after=mark)
    assert [b["label"] for b in missed.buttons] == ["Choose my hint"]
    assert missed.content == f"<@{eli.id}>, choose the hint you give with **Choose my hint**."
    await choose(group, eli, board, Verb.PLAY, "row")
    hinted = await group.posted("the Crown's row is equal to 2", after=mark)
    assert f"<@{eli.id}>, your move." in hinted.content

    # Eli misses; Dora gives her hint, then captures the Crown.
    mark = group.checkpoint()
    await group.click(eli, board, Verb.PLAY, "1 1")
    await group.posted("attacks (1,1): Miss", after=mark)
    await choose(group, dora, board, Verb.PLAY, "column")
    await group.posted("the Crown's column is equal to 1", after=mark)
    assert_no_secret_leaked(group, caplog, "(3,1)", "(2,3)", typed=("3 1", "2 3"))
    mark = group.checkpoint()
    await group.click(dora, board, Verb.PLAY, "2 3")
    end = await group.posted("Hit", after=mark)
    assert end is board
    assert "Crown was at (3,1)" in end.text and "Crown was at (2,3)" in end.text

    assert [m for m in group.fake.messages(group.channel) if not m.ephemeral] == [board]
    assert_no_bot_token_call(group, requests)


async def test_a_whole_safe_cracker_match_in_a_group_dm_with_codes_set_in_forms(
    group: Table, dora: FakeUser, eli: FakeUser, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    requests = group.request_mark()
    board = await challenge(group, dora, eli, "safe")
    mark = group.checkpoint()
    # "Choose my secret" opens the code form at once; its answer is the match's message.
    await submit_form(group, dora, board, Verb.ASK, "213")
    await submit_form(group, eli, board, Verb.ASK, "312")
    set_ = await group.posted("Both codes are set", after=mark)
    assert set_ is board and [p.verb for p in group.presses(set_)] == [Verb.GUESS]

    mark = group.checkpoint()
    await submit_form(group, dora, board, Verb.GUESS, "111")
    await group.posted("guesses 1-1-1: 1 exact match", after=mark)
    assert_no_secret_leaked(group, caplog, "2-1-3", "3-1-2", typed=("213", "312"))
    mark = group.checkpoint()
    await submit_form(group, eli, board, Verb.GUESS, "213")
    end = await group.posted("The safe is cracked!", after=mark)
    assert end is board and "code was 2-1-3" in end.text and "code was 3-1-2" in end.text
    assert [m for m in group.fake.messages(group.channel) if not m.ephemeral] == [board]
    assert_no_bot_token_call(group, requests)


async def test_a_whole_number_claim_match_in_a_group_dm(
    group: Table, dora: FakeUser, eli: FakeUser
) -> None:
    requests = group.request_mark()
    board = await challenge(group, dora, eli, "claim")
    for turn in range(9):
        player = (dora, eli)[turn % 2]
        cell = next(p.arg for p in group.presses(board) if p.verb == Verb.PLAY)
        mark = group.checkpoint()
        await group.click(player, board, Verb.PLAY, cell)
        await group.posted(f"claims {cell} at", after=mark)
        if not any(p.verb == Verb.PLAY for p in group.presses(board)):
            break
    assert [p.verb for p in group.presses(board)] == [Verb.REMATCH, Verb.REVIEW]
    assert [m for m in group.fake.messages(group.channel) if not m.ephemeral] == [board]
    assert_no_bot_token_call(group, requests)


async def test_a_whole_flag_chase_match_in_a_group_dm_with_traps_set_privately(
    group: Table, dora: FakeUser, eli: FakeUser, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    requests = group.request_mark()
    board = await challenge(group, dora, eli, "flag")

    # A trap is a turn: Dora and Eli set theirs from the board's Trap button, privately ...
    mark = group.checkpoint()
    await pick_trap(group, dora, board, "TRAP 4 4")
    await group.posted(f"<@{dora.id}> placed a trap (1 left)", after=mark)
    mark = group.checkpoint()
    await pick_trap(group, eli, board, "TRAP 2 2")
    await group.posted(f"<@{eli.id}> placed a trap (1 left)", after=mark)
    # ... and Dora (whose install runs the commands) with /flag trap: its answer is the
    # picker itself, privately (no DM).
    mark = group.checkpoint()
    asked = await group.slash(dora, "flag trap")
    (picker,) = asked.messages
    assert picker.ephemeral and "pick the cell for a trap" in picker.content
    assert "In a DM" not in picker.content
    chosen = await group.click(dora, picker, Verb.PLAY, "TRAP 3 4")
    await group.fake.wait_for_response(chosen)
    await group.posted(f"<@{dora.id}> placed a trap (0 left)", after=mark)
    assert_no_secret_leaked(group, caplog, "(4,4)", "(2,2)", "(3,4)", typed=("3 4",))

    moves = [
        (eli, "MOVE 4 4", "Trap triggered at (4,4)!"),
        (dora, "MOVE 2 2", "Trap triggered at (2,2)!"),
        (eli, "MOVE 4 5", "moves to (4,5)"),
        (dora, "MOVE 2 2", "moves to (2,2)"),
        (eli, "MOVE 3 5", "moves to (3,5)"),
        (dora, "MOVE 3 3", "moves to (3,3)"),
        (eli, "MOVE 2 5", "moves to (2,5)"),
        (dora, "MOVE 4 4", "moves to (4,4)"),
        (eli, "MOVE 1 5", "moves to (1,5)"),
        (dora, "MOVE 5 5", "captures the flag at (5,5) and wins"),
    ]
    for player, move, seen in moves:
        mark = group.checkpoint()
        await group.click(player, board, Verb.PLAY, move)
        assert await group.posted(seen, after=mark) is board
    assert "hidden traps: (3,4)" in board.text
    assert [m for m in group.fake.messages(group.channel) if not m.ephemeral] == [board]
    assert_no_bot_token_call(group, requests)


USE_EXTERNAL_APPS = 1 << 50


@pytest.fixture
def elsewhere(fake_discord: FakeDiscord, dora: FakeUser, eli: FakeUser) -> FakeGuild:
    """A server that never added Parlor, where Dora and Eli are members."""
    server = fake_discord.add_guild("Elsewhere", with_app=False)
    fake_discord.add_member(server, dora)
    fake_discord.add_member(server, eli)
    return server


async def test_a_match_in_a_server_without_the_app_lives_on_its_own_message(
    idle_table: Table,
    fake_discord: FakeDiscord,
    elsewhere: FakeGuild,
    dora: FakeUser,
    eli: FakeUser,
) -> None:
    table = idle_table
    table.channel = fake_discord.add_text_channel(elsewhere, "lobby")
    requests = table.request_mark()
    async with table.running():
        board = await challenge(table, dora, eli, "crystal")
        moves = ((dora, "9", "9 points"), (eli, "1", "1 point."), (dora, "6", "exactly 15"))
        for player, crystal, seen in moves:
            mark = table.checkpoint()
            await table.click(player, board, Verb.PLAY, crystal)
            assert await table.posted(seen, after=mark) is board
    assert_no_bot_token_call(table, requests)


async def test_where_external_apps_may_answer_only_privately_no_match_starts(
    idle_table: Table,
    fake_discord: FakeDiscord,
    elsewhere: FakeGuild,
    dora: FakeUser,
    eli: FakeUser,
) -> None:
    fake_discord.set_role_permissions(elsewhere.everyone, EVERYONE_PERMISSIONS & ~USE_EXTERNAL_APPS)
    idle_table.channel = fake_discord.add_text_channel(elsewhere, "lobby")
    async with idle_table.running():
        answered = await idle_table.slash(dora, "crystal challenge", opponent=eli)
        (refusal,) = answered.messages
        assert refusal.ephemeral and "Use External Apps is off" in refusal.content
        assert idle_table.app is not None
        assert await idle_table.app.matches.lookups.unfinished(dora.id, elsewhere.id) == []


async def test_the_match_message_speaks_the_challengers_language(
    idle_table: Table,
    fake_discord: FakeDiscord,
    group_dm: FakeChannel,
    dora: FakeUser,
    eli: FakeUser,
) -> None:
    fake_discord.set_locale(dora, "de")
    table = idle_table
    table.channel = group_dm
    async with table.running():
        answered = await table.slash(dora, "crystal challenge", opponent=eli)
        (board,) = answered.messages
        assert "fordert dich" in board.content
        mark = table.checkpoint()
        await table.click(eli, board, Verb.ACCEPT)  # Eli's app speaks English
        assert await table.posted("Münzwurf", after=mark) is board


async def test_a_rematch_and_a_review_from_the_finished_message(
    group: Table, dora: FakeUser, eli: FakeUser
) -> None:
    requests = group.request_mark()
    board = await challenge(group, dora, eli, "crystal")
    for player, crystal in ((dora, "9"), (eli, "1"), (dora, "6")):
        mark = group.checkpoint()
        await group.click(player, board, Verb.PLAY, crystal)
        await group.posted(lambda m: m is board, after=mark)
    assert "wins with exactly 15 points" in board.text

    reviewed = await group.click(eli, board, Verb.REVIEW)
    await group.fake.wait_for_response(reviewed)
    assert "Crystal Capture" in group.answer(reviewed)

    # Eli's rematch is a new challenge, the press's own answer, in the group DM.
    mark = group.checkpoint()
    pressed = await group.click(eli, board, Verb.REMATCH)
    await group.fake.wait_for_response(pressed)
    rematch = await group.posted("challenges you", after=mark)
    assert rematch is not board and rematch.content.startswith(f"<@{dora.id}>, <@{eli.id}>")
    await group.click(dora, rematch, Verb.ACCEPT)
    assert await group.posted("Coin toss", after=mark) is rematch
    assert_no_bot_token_call(group, requests)


async def test_an_open_challenge_and_a_move_by_command_in_a_group_dm(
    group: Table, dora: FakeUser, eli: FakeUser
) -> None:
    requests = group.request_mark()
    mark = group.checkpoint()
    answered = await group.slash(dora, "crystal challenge")  # no opponent: anyone here
    (board,) = answered.messages
    await group.click(eli, board, Verb.ACCEPT)
    assert await group.posted("Coin toss", after=mark) is board
    # Dora (whose install runs the commands) moves by command: Accept's token edits the
    # message, and her answer links to it.
    mark = group.checkpoint()
    moved = await group.slash(dora, "crystal take", crystal=9)
    assert all(m.ephemeral for m in moved.messages)
    assert group.answer(moved).endswith(f"/@me/{group.channel.id}/{board.id}")
    assert await group.posted("captures crystal 9", after=mark) is board
    assert_no_bot_token_call(group, requests)


async def test_crown_against_the_bot_in_a_group_dm(
    group: Table, dora: FakeUser, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    requests = group.request_mark()
    mark = group.checkpoint()
    answered = await group.slash(dora, "crown challenge", opponent=group.fake.bot)
    (board,) = answered.messages
    assert not board.ephemeral and "Coin toss" in board.text
    assert [b["label"] for b in board.buttons] == ["Choose my secret"]
    assert f"<@{dora.id}>: choose your secret with **Choose my secret** below" in board.text
    assert "DM" not in board.text
    await choose(group, dora, board, Verb.SECRET, "3 1")
    await group.posted("Both Crowns are placed", after=mark)
    assert_no_secret_leaked(group, caplog, "(3,1)", typed=("3 1",))
    assert_no_bot_token_call(group, requests)


async def test_a_secret_typed_to_the_bot_plays_nothing_in_a_match_outside_servers(
    group: Table, dora: FakeUser, eli: FakeUser, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    board = await challenge(group, dora, eli, "crown")
    shown = board.text
    # Dora types her Crown's cell to the bot, as a server's match would take it by DM: no DM
    # asked for it here (Eli could not be asked by DM at all), so it is refused, and says where.
    for typed in ("3 1", "#1 3 1"):
        mark = group.checkpoint()
        await group.fake.dm(dora, typed)
        reply = await group.fake.wait_for_message(dora, after=mark)
        assert (
            "reads no answer typed to me" in reply.content and "Choose my secret" in reply.content
        )
    assert board.text == shown and "placed their Crown" not in group.public_text()
    assert_no_secret_leaked(group, caplog, "(3,1)", typed=("3 1",))
    # The message's own button still takes it.
    mark = group.checkpoint()
    await choose(group, dora, board, Verb.SECRET, "3 1")
    assert await group.posted(f"<@{dora.id}> has placed their Crown", after=mark) is board
