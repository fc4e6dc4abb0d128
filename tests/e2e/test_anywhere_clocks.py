"""Clocks of a match outside servers: a turn that runs out in a group DM is settled by the
sweeper as anywhere; its result reaches the match's message at once while a token of the match
is fresh, else at the next press on it; ``/games`` and ``/history`` show it at once; and a
deadline that fell due while the bot was down starts again, as in a server. Nobody is told a
result that did not happen."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import TYPE_CHECKING

import pytest

from bot.chat.components import Verb
from db.gauges import read_counts

from .anywhere import assert_no_bot_token_call, assert_no_secret_leaked, button, challenge, choose

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeChannel, FakeUser

pytest_plugins = ("tests.e2e.bot_fixtures", "tests.e2e.anywhere_fixtures")


RESET = "I was away for 15 minutes, so the clock was reset"
CHOSE_FOR = "did not answer in time, so I chose for them."


async def tried_by_the_redelivery(group: Table) -> None:
    """Wait until the redelivery has tried the message's update, as an operator's gauges see
    it: nothing in the outbox left due (forgotten, or kept for the next press)."""
    assert group.app is not None
    sessions = group.app.outbox.sessions
    for _ in range(250):
        async with sessions() as session:
            counts = await read_counts(session)
        due = counts.outbox_first_due
        if due is None or due > group.clock.now + timedelta(days=1):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the redelivery did not try the update: {counts}")


async def listed(group: Table, who: FakeUser, command: str) -> str:
    """What ``who`` is told privately by ``/<command>`` in the DM with the bot."""
    asked = await group.fake.slash(who, group.fake.dm_channel(who), command)
    answered = await group.fake.wait_for_response(asked)
    assert all(m.ephemeral for m in answered.messages)
    return group.answer(answered)


async def test_a_turn_run_out_with_a_fresh_token_shows_everywhere_at_once(
    group: Table, dora: FakeUser, eli: FakeUser
) -> None:
    requests = group.request_mark()
    board = await challenge(group, dora, eli, "crystal")
    assert "waiting for the other player" in await listed(group, eli, "games")
    mark = group.checkpoint()
    group.clock.advance(minutes=11)  # Dora's 10 minutes run out; Accept's token is fresh
    end = await group.posted("ran out of time", after=mark)
    assert end is board and f"<@{eli.id}> wins" in end.text
    assert await listed(group, eli, "games") == "You have no unfinished matches outside servers."
    history = await listed(group, eli, "history")
    assert f"**#1** Crystal Capture vs <@{dora.id}>: won (out of time)" in history
    assert_no_bot_token_call(group, requests)


async def test_a_turn_run_out_after_every_token_expired_shows_in_the_lists_at_once(
    group: Table, dora: FakeUser, eli: FakeUser
) -> None:
    requests = group.request_mark()
    board = await challenge(group, dora, eli, "crystal")
    shown = board.text
    group.fake.advance_clock(16 * 60)  # every token of the match has expired
    group.clock.advance(minutes=16)
    await group.fake.wait_until(
        lambda: any(r.status == 401 for r in group.fake.requests[requests:]),
        what="the expired token to be tried",
    )
    # The sweeper settled it: the lists say so at once, for both players ...
    assert await listed(group, dora, "games") == "You have no unfinished matches outside servers."
    history = await listed(group, dora, "history")
    assert f"**#1** Crystal Capture vs <@{eli.id}>: lost (out of time)" in history
    assert "won (out of time)" in await listed(group, eli, "history")
    # ... while the message, which nothing but a press can reach now, still shows the match
    # as it was: no result, no half-result, on it.
    assert board.text == shown and "ran out of time" not in group.public_text()
    # Dora presses a crystal left on it: her press is refused and brings it up to date.
    mark = group.checkpoint()
    pressed = await group.fake.click(dora, board, button(board, Verb.PLAY, "9"))
    end = await group.posted("ran out of time", after=mark)
    (told,) = await group.fake.wait_until(lambda: pressed.followups, what="her private answer")
    assert told.ephemeral and "already" in told.content
    assert end is board and "captures crystal 9" not in group.public_text()
    assert_no_bot_token_call(group, requests)


async def test_a_deadline_due_while_the_bot_was_down_starts_again_in_a_group_dm(
    idle_table: Table,
    group_dm: FakeChannel,
    dora: FakeUser,
    eli: FakeUser,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.service.deadlines")
    group = idle_table
    group.channel = group_dm
    requests = group.request_mark()
    async with group.running():
        board = await challenge(group, dora, eli, "crystal")

    # A long deploy: Dora's 10 minutes ran out meanwhile, and every token expired.
    group.clock.advance(minutes=15)
    group.fake.advance_clock(16 * 60)
    async with group.running():
        await group.fake.wait_until(
            lambda: "gave 1 matches fresh time" in caplog.text, what="the time given back"
        )
        # Her turn starts again with its full time, not forfeited: nothing says otherwise.
        assert "your move" in await listed(group, dora, "games")
        assert "ran out of time" not in group.public_text()
        group.clock.advance(minutes=9)  # within the fresh 10 minutes
        mark = group.checkpoint()
        await group.click(dora, board, Verb.PLAY, "9")
        moved = await group.posted("captures crystal 9", after=mark)
        assert moved is board and moved.content == f"<@{eli.id}>, your move."
        assert "ran out of time" not in group.public_text()
    assert_no_bot_token_call(group, requests)


async def test_a_restart_with_downtime_is_said_on_the_message_at_the_next_press_once(
    idle_table: Table,
    group_dm: FakeChannel,
    dora: FakeUser,
    eli: FakeUser,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.service.deadlines")
    group = idle_table
    group.channel = group_dm
    requests = group.request_mark()
    async with group.running():
        board = await challenge(group, dora, eli, "crystal")

    # A long deploy: Dora's 10 minutes ran out meanwhile, and every token expired.
    group.clock.advance(minutes=15)
    group.fake.advance_clock(16 * 60)
    async with group.running():
        await group.fake.wait_until(
            lambda: "gave 1 matches fresh time" in caplog.text, what="the time given back"
        )
        group.clock.advance(minutes=1)  # the redelivery tries the message: no token is fresh
        await tried_by_the_redelivery(group)
        assert RESET not in group.public_text()
        # Dora's press is the first to reach the message: it says why her turn goes on, as
        # a server's board said at once, before her move.
        mark = group.checkpoint()
        await group.click(dora, board, Verb.PLAY, "9")
        moved = await group.posted("captures crystal 9", after=mark)
        assert moved is board and moved.content == f"<@{eli.id}>, your move."
        assert f"**Last:** {RESET}: <@{dora.id}> has 10 minutes to move." in moved.text
        assert moved.text.count(RESET) == 1
        # Said once: Eli's move shows what happened since, and nothing of the restart.
        mark = group.checkpoint()
        crystal = next(p.arg for p in group.presses(moved) if p.verb == Verb.PLAY)
        await group.click(eli, moved, Verb.PLAY, crystal)
        again = await group.posted(lambda m: m.content == f"<@{dora.id}>, your move.", after=mark)
        assert again is board and f"captures crystal {crystal}" in again.text
        assert RESET not in again.text and "ran out of time" not in group.public_text()
    assert_no_bot_token_call(group, requests)


async def test_a_hint_run_out_after_every_token_expired_shows_at_the_press_on_choose_my_hint(
    group: Table, dora: FakeUser, eli: FakeUser, caplog: pytest.LogCaptureFixture
) -> None:
    requests = group.request_mark()
    board = await challenge(group, dora, eli, "crown")
    mark = group.checkpoint()
    await choose(group, dora, board, Verb.SECRET, "3 1")
    await choose(group, eli, board, Verb.SECRET, "2 3")
    await group.posted("Both Crowns are placed", after=mark)
    mark = group.checkpoint()
    await group.click(dora, board, Verb.PLAY, "1 1")
    missed = await group.posted("attacks (1,1): Miss", after=mark)
    assert [b["label"] for b in missed.buttons] == ["Choose my hint"]
    group.fake.advance_clock(16 * 60)  # every token of the match has expired
    group.clock.advance(minutes=3)  # Eli's 2 minutes for his hint ran out: I chose it
    await group.fake.wait_until(
        lambda: any(r.status == 401 for r in group.fake.requests[requests:]),
        what="the expired token to be tried",
    )
    group.clock.advance(minutes=1)  # the redelivery tries the message: no token is fresh
    await tried_by_the_redelivery(group)
    assert "chose for them" not in group.public_text()
    # Eli presses the button left on the message: the message shows that he did not answer
    # in time, the hint given for him and his turn to attack, as a server's board would
    # have; he is told privately it is his move.
    mark = group.checkpoint()
    pressed = await group.fake.click(eli, board, button(board, Verb.ASK, ""))
    shown = await group.posted(lambda m: m.content == f"<@{eli.id}>, your move.", after=mark)
    assert shown is board and "hint: the Crown's row is greater than 1" in shown.text
    assert f"**Last:** <@{eli.id}> {CHOSE_FOR}" in shown.text
    assert [p.verb for p in group.presses(shown)] == [Verb.PLAY] * 9
    (told,) = await group.fake.wait_until(
        lambda: pressed.ephemeral_messages, what="his private answer"
    )
    assert "Your move in Capture the Crown" in told.content
    # Said once: his attack shows what it did, and no more that he was late.
    mark = group.checkpoint()
    await group.click(eli, shown, Verb.PLAY, "1 1")
    attacked = await group.posted(f"<@{eli.id}> attacks (1,1)", after=mark)
    assert attacked is board
    assert CHOSE_FOR not in attacked.text
    assert_no_secret_leaked(group, caplog, "(3,1)", "(2,3)", typed=("3 1", "2 3"))
    assert_no_bot_token_call(group, requests)


async def test_a_setup_run_out_after_every_token_expired_shows_at_the_next_press(
    group: Table, dora: FakeUser, eli: FakeUser
) -> None:
    requests = group.request_mark()
    board = await challenge(group, dora, eli, "crown")
    mark = group.checkpoint()
    await choose(group, dora, board, Verb.SECRET, "3 1")
    await group.posted(f"<@{dora.id}> has placed their Crown", after=mark)
    group.fake.advance_clock(16 * 60)  # every token of the match has expired
    group.clock.advance(minutes=6)  # Eli's 5 minutes to choose ran out: called off
    await group.fake.wait_until(
        lambda: any(r.status == 401 for r in group.fake.requests[requests:]),
        what="the expired token to be tried",
    )
    assert await listed(group, eli, "games") == "You have no unfinished matches outside servers."
    assert "No result" not in group.public_text()
    # Eli presses the one button left on it: refused, and the message shows what happened,
    # which is no result (never a draw).
    mark = group.checkpoint()
    pressed = await group.fake.click(eli, board, button(board, Verb.ASK, ""))
    shown = await group.posted("No result: the secrets were not all chosen in time", after=mark)
    assert shown is board and "Crown was at (3,1)" in shown.text  # revealed once it is over
    assert (
        f"**Last:** Setup timed out: <@{eli.id}> did not choose a secret in time. The match is "
        "called off; no result." in shown.text
    )
    assert "Draw" not in shown.text and [p.verb for p in group.presses(shown)] == [Verb.REMATCH]
    (told,) = await group.fake.wait_until(
        lambda: pressed.ephemeral_messages, what="his private answer"
    )
    assert told.content == "This match is over."
    assert_no_bot_token_call(group, requests)
