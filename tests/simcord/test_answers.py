"""A DM, a button or a form answers exactly what it was made for: a secret sent again after the
match has moved on is refused privately and never becomes a public move."""

from __future__ import annotations

from .table import Member, Table, last_event, private_answer, start


async def test_a_crown_typed_again_during_play_is_refused_in_private(
    table: Table, alice: Member, bob: Member
) -> None:
    board = await start(table, alice, bob, "crown")
    assert "Your Crown is at (1,1)." in await alice.type_dm("1 1")
    assert "Your Crown is at (3,3)." in await bob.type_dm("3 3")
    before = last_event(table.now(board))

    # Alice saw no answer, so she types it again: it is her turn to attack, and nothing is played.
    again = await alice.type_dm("1 1")
    assert "nothing was played" in again and "(1,1)" not in again
    assert last_event(table.now(board)) == before
    assert "attacks (1,1)" not in table.public_text()


async def test_the_crown_picker_pressed_during_play_plays_nothing(
    table: Table, alice: Member, bob: Member
) -> None:
    board = await start(table, alice, bob, "crown")
    picker = alice.latest_dm("Choose your secret")
    assert "Your Crown is at (2,2)." in await alice.type_dm("2 2")
    assert "Your Crown is at (3,3)." in await bob.type_dm("3 3")

    pressed = await alice.press(picker, "1,1")
    assert "nothing was played" in private_answer(pressed)
    assert "attacks (1,1)" not in table.public_text()
    assert table.now(board).content == f"{alice.mention}, your move."


async def test_the_code_form_submitted_after_setup_is_refused_and_opens_no_guess(
    table: Table, alice: Member, bob: Member
) -> None:
    board = await start(table, alice, bob, "safe")
    form = await alice.open_form(alice.latest_dm("Choose your secret"), "Set my code")
    assert "Your code is 2-1-3." in await alice.type_dm("213")
    assert "Your code is 3-1-2." in await bob.type_dm("312")

    submitted = await alice.submit(form, "Your code (only you see it)", "213")
    assert "nothing was played" in private_answer(submitted)
    assert "guesses 2-1-3" not in table.public_text()
    assert table.now(board).content == f"{alice.mention}, your move."


async def test_a_code_form_opened_before_a_restart_is_answered_after_it(
    table: Table, alice: Member, bob: Member
) -> None:
    board = await start(table, alice, bob, "safe")
    form = await alice.open_form(alice.latest_dm("Choose your secret"), "Set my code")
    await table.restart()
    set_ = await alice.submit(form, "Your code (only you see it)", "213")
    assert "Your code is 2-1-3." in private_answer(set_)
    assert "has set their code" in last_event(table.now(board))


async def test_a_board_update_discord_failed_is_delivered_from_the_outbox(
    table: Table, alice: Member, bob: Member
) -> None:
    """The secret is saved, but Discord fails every attempt to show it on the board: the
    outbox's deliverer shows it a little later."""
    board = await start(table, alice, bob, "crown")
    table.env.inject_error("PATCH", "/webhooks/*", status=500, times=1)
    table.env.inject_error("PATCH", "/channels/*/messages/*", status=500, times=1)
    assert "Your Crown is at (1,1)." in await alice.type_dm("1 1")
    assert "placed their Crown" not in last_event(table.now(board))
    await table.let_time_pass(seconds=30)
    assert last_event(table.now(board)) == f"{alice.mention} has placed their Crown."
