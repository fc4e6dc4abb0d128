"""A member whose DMs are closed plays all the same on SimCord: the bot asks in the channel,
with a button that collects the answer privately (an ephemeral message, or a form)."""

from __future__ import annotations

from .table import (
    Member,
    Table,
    ephemeral_messages,
    labels,
    last_event,
    private_answer,
    start,
)


def dm_attempts(table: Table, member: Member) -> int:
    """How many messages the bot tried to send to the member's DMs."""
    path = f"/channels/{member.actor.user.dm_channel.id}/messages"
    return sum(
        request.method == "POST" and request.path == path for request in table.env.http_requests
    )


async def test_a_crown_secret_and_hint_are_chosen_in_the_channel(
    table: Table, alice: Member, carol: Member
) -> None:
    board = await start(table, alice, carol, "crown")
    refused = table.latest("could not send you a DM")
    assert refused.content.startswith(carol.mention)
    assert labels(refused) == ["Choose my secret"]
    assert not carol.dms()
    await alice.press(alice.latest_dm("Choose your secret"), "1,1")

    opened = await carol.press(refused, "Choose my secret")
    (picker,) = ephemeral_messages(opened)
    assert "Choose your secret" in picker.content
    assert len(labels(picker)) == 9
    chosen = await carol.press(picker, "3,3")
    # The picker itself turns into what came of it, with no buttons left.
    assert chosen.response is not None and chosen.response.id == picker.id
    assert "Your Crown is at (3,3)." in private_answer(chosen)
    assert not labels(chosen.response)
    assert "(3,3)" not in table.public_text()
    board = table.now(board)
    assert "Both Crowns are placed" in last_event(board)
    # Pressing the channel button again says so, privately.
    again = await carol.press(refused, "Choose my secret")
    assert "the other player is to act" in private_answer(again)

    # The hint after a miss goes the same way.
    await alice.press(board, "2,2")
    refused = table.latest("choose the hint you give here")
    assert labels(refused) == ["Choose my hint"]
    assert table.now(board).content.startswith(f"{carol.mention}, choose the hint you give")
    opened = await carol.press(refused, "Choose my hint")
    (picker,) = ephemeral_messages(opened)
    assert sorted(labels(picker)) == ["Column is greater than 2", "Row is greater than 2"]
    await carol.press(picker, "Column is greater than 2")
    board = table.now(board)
    assert "column is greater than 2" in last_event(board)
    assert board.content == f"{carol.mention}, your move."

    # One DM attempt per prompt: a refused DM is never retried.
    assert dm_attempts(table, carol) == 2


async def test_a_safe_code_is_set_with_a_form_in_the_channel(
    table: Table, alice: Member, carol: Member
) -> None:
    board = await start(table, carol, alice, "safe")
    refused = table.latest("could not send you a DM")
    assert "Your code is 3-2-1." in await alice.type_dm("321")
    form = await carol.open_form(refused, "Choose my secret")
    assert "Your code is 1-1-2." in private_answer(
        await carol.submit(form, "Your code (only you see it)", "112")
    )
    assert "1-1-2" not in table.public_text()
    board = table.now(board)
    assert "Both codes are set" in last_event(board)
    assert labels(board) == ["Guess"]
    assert dm_attempts(table, carol) == 1


async def test_a_flag_trap_picker_comes_in_the_channel(
    table: Table, alice: Member, carol: Member
) -> None:
    board = await start(table, carol, alice, "flag")
    told = await carol.command("flag trap")
    (picker,) = ephemeral_messages(told)
    assert "I cannot DM you (your DMs are closed), so pick the cell here." in picker.content
    chosen = await carol.press(picker, "3,3")
    assert chosen.response is not None and chosen.response.id == picker.id
    assert "Trap placed at (3,3)." in private_answer(chosen)
    assert last_event(table.now(board)) == f"{carol.mention} placed a trap (1 left)."
    assert "(3,3)" not in table.public_text()
