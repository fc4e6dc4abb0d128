"""One live board per match on SimCord: the challenge message is the board from the challenge to
the result, edited in place through the interactions that change it."""

from __future__ import annotations

from typing import Any

import pytest

from bot.settings import Settings

from .table import Member, Table, labels, last_event, start, text_of


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """A turn long enough for an interaction's token to expire while a player thinks."""
    return settings.model_copy(update={"turn_timeout": 30 * 60})


def bot_token_calls(table: Table) -> list[str]:
    """The bot-token requests on the channel's messages (posts, edits, deletions)."""
    prefix = f"/channels/{table.channel.id}/messages"
    return [
        f"{request.method} {request.path}"
        for request in table.env.http_requests
        if request.path.startswith(prefix)
    ]


def mentions_allowed(request_json: Any) -> list[str] | None:
    """Whom a request's message may notify (``allowed_mentions.users``), if it says."""
    if not isinstance(request_json, dict):
        return None
    body = request_json.get("data", request_json)
    allowed = body.get("allowed_mentions") if isinstance(body, dict) else None
    return None if allowed is None else [str(user) for user in allowed.get("users", [])]


def edits(table: Table) -> list[list[str] | None]:
    """Whom each edit of a message might notify, edit by edit: the answers that updated the
    message pressed (``UPDATE_MESSAGE``) and the edits through an interaction's token."""
    found = []
    for request in table.env.http_requests:
        body = request.json if isinstance(request.json, dict) else {}
        updated = request.path.endswith("/callback") and body.get("type") == 7
        patched = request.method == "PATCH" and request.path.startswith("/webhooks/")
        if updated or patched:
            found.append(mentions_allowed(body))
    return found


async def test_a_whole_match_keeps_one_board_message(
    table: Table, alice: Member, bob: Member
) -> None:
    """Every way a Crown match moves on edits the one board: the accept, DM buttons, a typed DM,
    the board's buttons, a slash command, a deadline. No update needs the bot's own token."""
    board = await start(table, alice, bob, "crown")

    def one_board(waits_for: str, last: str) -> None:
        assert [message.id for message in table.messages()] == [board.id], table.transcript()
        now = table.now(board)
        assert now.content == waits_for
        assert last in last_event(now)

    one_board(
        f"Waiting for {alice.mention} and {bob.mention} to choose a secret (by DM).", "Coin toss"
    )
    await alice.press(alice.latest_dm("Choose your secret"), "3,1")
    one_board(f"Waiting for {bob.mention} to choose a secret (by DM).", "placed their Crown")
    await bob.type_dm("2 3")
    one_board(f"{alice.mention}, your move.", "Both Crowns are placed")
    await alice.press(table.now(board), "2,2")
    one_board(f"{bob.mention}, choose the hint you give (by DM).", "attacks (2,2): Miss")
    await bob.press(bob.latest_dm("missed"), "Row is equal to 2")
    one_board(f"{bob.mention}, your move.", "row is equal to 2")
    assert (await bob.play("crown attack", row=1, col=1)).id == board.id
    one_board(f"{alice.mention}, choose the hint you give (by DM).", "attacks (1,1): Miss")
    await table.let_time_pass(minutes=2)  # Alice lets her hint fall due: the bot gives it
    one_board(f"{alice.mention}, your move.", "did not answer in time, so I chose for them")
    assert (await alice.play("crown attack", row=2, col=3)).id == board.id
    one_board("", f"{alice.mention} wins")
    assert labels(table.now(board)) == ["Rematch", "Review"]

    # Every update rode on an interaction, and no edit notified anyone.
    assert bot_token_calls(table) == []
    notified = edits(table)
    assert len(notified) >= 8
    assert all(users == [] for users in notified), notified


async def test_after_fifteen_minutes_the_board_is_edited_with_the_bot_token(
    table: Table, alice: Member, bob: Member
) -> None:
    """An interaction's token lasts 15 minutes on SimCord's clock: past that, a move by command
    edits the board with one bot-token call, and the next press edits it in its answer again."""
    board = await start(table, alice, bob, "crystal")
    await alice.press(board, "9")
    await table.let_time_pass(minutes=15)
    assert (await bob.play("crystal take", crystal=1)).id == board.id
    assert last_event(table.now(board)) == f"{bob.mention} captures crystal 1: 1 point."
    assert bot_token_calls(table) == [f"PATCH /channels/{table.channel.id}/messages/{board.id}"]
    await alice.press(table.now(board), "2")
    assert last_event(table.now(board)) == f"{alice.mention} captures crystal 2: 11 points."
    assert len(bot_token_calls(table)) == 1


async def test_a_buried_board_is_posted_again_below(
    table: Table, alice: Member, bob: Member
) -> None:
    """Once five messages are posted below the board, its next update posts it again at the
    bottom, notifying whom it waits for, and deletes the old one."""
    board = await start(table, alice, bob, "crystal")
    await alice.press(board, "9")
    for turn in range(5):
        await (alice, bob)[turn % 2].actor.send(table.channel, f"chat {turn}")

    moved = await bob.press(table.now(board), "1")
    assert moved.response is not None and not moved.response.ephemeral
    (chat, [reposted]) = (table.messages()[:-1], table.messages()[-1:])
    assert [message.content for message in chat] == [f"chat {turn}" for turn in range(5)]
    assert reposted.id == moved.response.id != board.id  # the press's answer; the old one is gone
    assert reposted.content == f"{alice.mention}, your move."
    assert last_event(reposted) == f"{bob.mention} captures crystal 1: 1 point."
    assert "Crystal Capture · match #1" in text_of(reposted)
    callback = [r for r in table.env.http_requests if r.path.endswith("/callback")][-1]
    assert mentions_allowed(callback.json) == [str(alice.id)]

    # The board below edits in place again.
    await alice.press(reposted, "2")
    assert [message.id for message in table.messages()][-1] == reposted.id
    assert last_event(table.now(reposted)) == f"{alice.mention} captures crystal 2: 11 points."
