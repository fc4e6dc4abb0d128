"""How the one board reaches the channel: which token edits it, and when it is re-posted.

A board is edited through the token of the interaction that last answered with it; once that
token has expired (15 minutes), with one bot-token call. A board buried under 5 messages is
re-posted at the bottom on its next update, the old one deleted, and the re-post notifies the
member the match waits for; an edit notifies nobody.
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import TYPE_CHECKING, Any

from bot.chat.components import Verb

from .test_bot_member_errors import database_file

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeMember, FakeMessage, RecordedRequest

pytest_plugins = ("tests.e2e.bot_fixtures",)

BOT_EDIT = "PATCH /channels/{channel_id}/messages/{message_id}"
TOKEN_LIFE = 15 * 60


async def started(table: Table, alice: FakeMember, bob: FakeMember, command: str) -> FakeMessage:
    """Alice challenges Bob, who accepts with the button: the board, match #1."""
    mark = table.checkpoint()
    answered = await table.slash(alice, command, opponent=bob)
    (board,) = answered.messages
    await table.click(bob, board, Verb.ACCEPT)
    assert await table.posted("Coin toss", after=mark) is board
    return board


def largest(table: Table, board: FakeMessage) -> int:
    """The largest number the board offers to claim."""
    return max(int(p.arg) for p in table.presses(board) if p.verb == Verb.PLAY)


def message_body(request: RecordedRequest) -> dict[str, Any]:
    """The message a request sends or edits (an interaction callback carries it in ``data``)."""
    body = request.json
    assert isinstance(body, dict)
    if request.route.endswith("/callback"):
        data = body.get("data")
        assert isinstance(data, dict)
        return data
    return body


def board_writes(table: Table, since: int, board: FakeMessage) -> list[RecordedRequest]:
    """The requests since ``since`` that wrote the board's content (posts and edits)."""
    return [
        r
        for r in table.fake.requests[since:]
        if r.method in ("POST", "PATCH")
        and isinstance(r.json, dict)
        and r.status == 200
        and r.route != "/users/@me/channels"
        and (r.json.get("data") or r.json).get("content") == board.content
        and (r.json.get("data") or r.json).get("embeds")
    ]


def notified(request: RecordedRequest) -> list[int]:
    """The users a message write lets its mentions notify."""
    allowed = message_body(request).get("allowed_mentions")
    assert isinstance(allowed, dict), "every board write names whom it notifies"
    assert "users" not in allowed.get("parse", []) and "everyone" not in allowed.get("parse", [])
    return [int(user) for user in allowed.get("users", [])]


async def claim_by_command(table: Table, who: FakeMember, board: FakeMessage) -> None:
    number = largest(table, board)
    mark = table.checkpoint()
    answered = await table.slash(who, "claim pick", number=number)
    assert answered.messages and all(m.ephemeral for m in answered.messages)
    assert "Played: " in table.answer(answered)
    assert await table.posted(f"<@{who.id}> claims {number} at", after=mark) is board


async def claim_by_button(table: Table, who: FakeMember, board: FakeMessage) -> None:
    number = largest(table, board)
    mark = table.checkpoint()
    await table.click(who, board, Verb.PLAY, str(number))
    assert await table.posted(f"<@{who.id}> claims {number} at", after=mark) is board


# ---------------------------------------------------------------------- tokens


async def test_once_the_token_has_expired_a_command_edits_the_board_with_one_bot_call(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    board = await started(table, alice, bob, "claim challenge")

    # While the Accept press's token is valid, a command's move edits the board through it.
    requests = table.request_mark()
    await claim_by_command(table, alice, board)
    assert not table.bot_calls(requests).board

    # 16 minutes on, that token is refused: the board is edited with the bot's token, once.
    table.fake.advance_clock(16 * 60)
    requests = table.request_mark()
    await claim_by_command(table, bob, board)
    calls = table.bot_calls(requests)
    assert calls.board == {BOT_EDIT: 1} and not calls.other and not calls.dms
    refused = [r for r in table.fake.requests[requests:] if r.status == 401]
    assert [r.route_key for r in refused] == [
        "PATCH /webhooks/{application_id}/{token}/messages/{message_id}"
    ]

    # The expired token is not tried again: the next command's move is one bot-token edit.
    requests = table.request_mark()
    await claim_by_command(table, alice, board)
    calls = table.bot_calls(requests)
    assert calls.board == {BOT_EDIT: 1}
    assert not [r for r in table.fake.requests[requests:] if r.status != 200]

    # A press answers with the board, so its token edits the board for the commands after it.
    requests = table.request_mark()
    await claim_by_button(table, bob, board)
    await claim_by_command(table, alice, board)
    assert not table.bot_calls(requests).board
    assert table.board_of(1) is board and not table.fake.rate_limit_hits


async def test_a_private_pick_edits_the_board_through_the_boards_token(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    """A DM press answers the DM; the board is edited with the stored token, or one bot call."""
    mark = table.checkpoint()
    board = await started(table, alice, bob, "crown challenge")
    alice_prompt = await table.posted("Choose your secret", after=mark, where=alice)
    bob_prompt = await table.posted("Choose your secret", after=mark, where=bob)

    requests = table.request_mark()
    picked = table.checkpoint()
    await table.click(alice, alice_prompt, Verb.SECRET, "1 1")
    assert await table.posted(f"<@{alice.id}> has placed their Crown", after=picked) is board
    assert not table.bot_calls(requests).board

    table.fake.advance_clock(TOKEN_LIFE + 60)
    requests = table.request_mark()
    picked = table.checkpoint()
    await table.click(bob, bob_prompt, Verb.SECRET, "3 3")
    placed = await table.posted("Both Crowns are placed", after=picked)
    assert placed is board and f"<@{alice.id}>, your move." in placed.content
    assert table.bot_calls(requests).board == {BOT_EDIT: 1}
    await table.closed(bob_prompt)


# ---------------------------------------------------------------------- buried boards


async def bury(table: Table, board: FakeMessage, *members: FakeMember) -> None:
    """Members chat in the channel until five messages lie below the board."""
    for index in range(5):
        await table.fake.send(members[index % len(members)], table.channel, f"chat {index}")
    below = [m for m in table.fake.messages(table.channel) if m.id > board.id]
    assert len(below) == 5


async def reposted(table: Table, old: FakeMessage, shows: str, mark: int) -> FakeMessage:
    """The board re-posted at the bottom showing ``shows``, once the old one is gone."""
    new = await table.posted(lambda m: shows in m.text and m.id > old.id, after=mark)
    await table.fake.wait_until(lambda: old.deleted, what="the buried board to be deleted")
    assert table.board_of(1) is new
    assert table.fake.messages(table.channel)[-1] is new
    return new


async def test_a_buried_board_comes_back_below_and_notifies_the_player_to_act(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    board = await started(table, alice, bob, "crystal challenge")
    await bury(table, board, carol, alice)

    # Alice's press on the buried board: the board is re-posted as the press's response.
    requests = table.request_mark()
    mark = table.checkpoint()
    await table.click(alice, board, Verb.PLAY, "9")
    new = await reposted(table, board, f"<@{alice.id}> captures crystal 9", mark)
    assert new.content == f"<@{bob.id}>, your move."
    (post,) = board_writes(table, requests, new)
    assert post.route.endswith("/callback") and message_body(post)["content"] == new.content
    assert notified(post) == [bob.id]
    assert bob.user in new.mentions
    assert not table.bot_calls(requests).board  # the old board went with its own token

    # Bob's command on the board, not buried: an edit, which notifies nobody.
    requests = table.request_mark()
    mark = table.checkpoint()
    await table.slash(bob, "crystal take", crystal=1)
    assert await table.posted(f"<@{bob.id}> captures crystal 1", after=mark) is new
    (edit,) = board_writes(table, requests, new)
    assert edit.method == "PATCH" and notified(edit) == []

    # Buried again, a command's move re-posts the board as the command's public response.
    await bury(table, new, carol)
    requests = table.request_mark()
    mark = table.checkpoint()
    answered = await table.slash(alice, "crystal take", crystal=6)
    end = await reposted(table, new, f"<@{alice.id}> wins with exactly 15 points", mark)
    assert end.content == ""
    assert answered.original is end and not end.ephemeral
    (post,) = board_writes(table, requests, end)
    assert notified(post) == []  # the match is over: nobody to call
    assert [p.verb for p in table.presses(end)] == [Verb.REMATCH, Verb.REVIEW]


async def test_a_board_buried_at_every_move_is_re_posted_every_other_move(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    """As in a busy channel: a re-post costs a call more than an edit (the old board's
    delete), so the update after a re-post edits the board in place, buried or not."""
    board = await started(table, alice, bob, "crystal challenge")
    await bury(table, board, carol)
    mark = table.checkpoint()
    await table.click(alice, board, Verb.PLAY, "9")
    board = await reposted(table, board, f"<@{alice.id}> captures crystal 9", mark)

    # Buried again at once: Bob's press edits it where it is, in the press's response alone.
    await bury(table, board, carol)
    requests = table.request_mark()
    mark = table.checkpoint()
    await table.click(bob, board, Verb.PLAY, "1")
    assert await table.posted(f"<@{bob.id}> captures crystal 1", after=mark) is board
    assert not board.deleted
    (edit,) = board_writes(table, requests, board)
    assert edit.route.endswith("/callback")
    assert [r.route for r in table.fake.requests[requests:]] == [edit.route]

    # Still buried, the next move brings it back below.
    mark = table.checkpoint()
    await table.click(alice, board, Verb.PLAY, "6")
    await reposted(table, board, f"<@{alice.id}> wins with exactly 15 points", mark)


async def test_a_deadline_re_posts_a_buried_board_with_the_bots_token(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    mark = table.checkpoint()
    board = await started(table, alice, bob, "crown challenge")
    for who, cell in ((alice, "1 1"), (bob, "3 3")):
        prompt = await table.posted("Choose your secret", after=mark, where=who)
        await table.click(who, prompt, Verb.SECRET, cell)
    await table.posted("Both Crowns are placed", after=mark)
    mark = table.checkpoint()
    await table.click(alice, board, Verb.PLAY, "2 2")
    assert await table.posted("choose the hint you give", after=mark) is board
    await bury(table, board, carol)

    # Bob lets his hint time out: the sweeper chooses it, and with no interaction to answer,
    # the board comes back below with one bot-token post, notifying Bob, whose move it is.
    requests = table.request_mark()
    mark = table.checkpoint()
    table.clock.advance(minutes=2, seconds=1)
    new = await reposted(table, board, "did not answer in time, so I chose for them", mark)
    assert new.content == f"<@{bob.id}>, your move."
    calls = table.bot_calls(requests)
    assert calls.board["POST /channels/{channel_id}/messages"] == 1
    (post,) = board_writes(table, requests, new)
    assert post.bot_token and notified(post) == [bob.id]
    assert "(1,1)" not in table.public_text() and "(3,3)" not in table.public_text()


async def test_commands_are_answered_in_time_while_board_edits_wait_on_rate_limits(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    """With the token expired, each command's board edit takes a bot-token call, and the
    channel allows 5 edits per 5 seconds: the commands are answered first, within Discord's 3
    seconds, and the board catches up."""
    board = await started(table, alice, bob, "claim challenge")
    table.fake.advance_clock(TOKEN_LIFE + 60)
    for turn in range(7):
        who = (alice, bob)[turn % 2]
        number = largest(table, table.board_of(1))
        answered = await table.slash(who, "claim pick", number=number)
        assert "Played:" in table.answer(answered), table.answer(answered)
        await table.posted(f"claims {number}", after=0)
    assert table.board_of(1) is board


async def test_a_slow_command_move_is_answered_once_it_is_played(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    """A move that waits on the database past a second is deferred ("thinking"), and the
    deferred answer then says it was played, instead of thinking for ever."""
    await started(table, alice, bob, "crystal challenge")
    database = sqlite3.connect(
        database_file(table.settings), isolation_level=None, check_same_thread=False
    )
    try:
        await asyncio.to_thread(database.execute, "BEGIN IMMEDIATE")
        slow = await table.fake.slash(alice, table.channel, "crystal take", crystal=5)
        await table.fake.wait_until(lambda: slow.acknowledged, what="the deferral")
        assert slow.original is not None and slow.original.loading
    finally:
        await asyncio.to_thread(database.rollback)
        database.close()
    await table.fake.wait_until(
        lambda: slow.original is not None and "Played:" in slow.original.content,
        what="the deferred answer to say the move was played",
    )
    assert slow.original.ephemeral
    assert await table.posted("captures crystal 5", after=0) is table.board_of(1)
