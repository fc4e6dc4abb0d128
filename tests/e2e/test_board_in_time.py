"""Discord's 3 seconds hold whatever a request waits on: here the board of its match, held by a
bot-token edit that waits on the channel's rate limit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.chat.components import Verb

from .test_board_delivery import TOKEN_LIFE, bury, reposted, started

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeMember

pytest_plugins = ("tests.e2e.bot_fixtures",)


async def test_a_command_waiting_behind_rate_limited_board_edits_is_deferred_in_time(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    """With the token expired, six commands' board edits take six bot-token calls, and the
    channel allows five per five seconds: the sixth waits, holding the board. A seventh command,
    whose re-post of the buried board is its own response, waits behind it: it is deferred
    within Discord's 3 seconds, and the board follows its "thinking" answer."""
    board = await started(table, alice, bob, "claim challenge")
    table.fake.advance_clock(TOKEN_LIFE + 60)
    numbers = sorted(int(p.arg) for p in table.presses(board) if p.verb == Verb.PLAY)[::-1]
    for turn in range(6):
        who = (alice, bob)[turn % 2]
        answered = await table.slash(who, "claim pick", number=numbers[turn])
        assert "Played:" in table.answer(answered), table.answer(answered)
    await bury(table, board, carol)
    mark = table.checkpoint()
    requests = table.request_mark()

    late = await table.fake.slash(alice, table.channel, "claim pick", number=numbers[6])
    await table.fake.wait_for_response(late)
    assert late.deferred  # it waited past the deferral's 1.5 seconds
    new = await reposted(table, board, f"claims {numbers[6]}", mark)
    assert late.original is not None and late.original.ephemeral
    assert not [r for r in table.fake.requests[requests:] if r.status == 404]
    assert new.content.startswith(f"<@{bob.id}>")  # the re-post tells Bob it is his move
