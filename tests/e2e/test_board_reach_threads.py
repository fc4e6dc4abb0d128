"""A match in a thread a moderator locks, or archives and locks (so that a post cannot revive
it): its deadlines wait instead of the match being called off at once, and it goes on when the
thread is opened again (THREAD_UPDATE)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import pytest

from bot.chat.components import Verb
from bot.chat.invalid_requests import BUDGET

from .test_board_reach import told_off

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeMember

pytest_plugins = ("tests.e2e.bot_fixtures",)


@pytest.fixture
def channel(fake_discord: FakeDiscord, guild: FakeGuild) -> FakeChannel:
    """The table is a public thread of a text channel."""
    parent = fake_discord.add_text_channel(guild, "duels")
    return fake_discord.add_thread(parent, "the duel")


@pytest.mark.parametrize("state", ["locked", "archived-and-locked"])
async def test_a_thread_locked_or_archived_holds_its_match_until_it_is_opened(
    table: Table, alice: FakeMember, bob: FakeMember, state: str
) -> None:
    fake, thread = table.fake, table.channel
    mark = table.checkpoint()
    await table.slash(alice, "crown challenge", opponent=bob)
    challenge = await table.posted("challenges you", after=mark)
    await table.click(bob, challenge, Verb.ACCEPT)
    await table.posted("Coin toss", after=mark)

    # A moderator closes the thread; the board's interaction token has expired, so Alice's
    # secret, typed by DM, is shown with the bot's token: refused (160005, or 50083 for the
    # post that would revive an archived thread, since it is locked too).
    fake.set_thread_state(thread, archived=state != "locked", locked=True)
    fake.advance_clock(16 * 60)
    await table.dm(alice, "1 1")
    assert table.app is not None
    app = table.app
    await fake.wait_until(lambda: app.channel_reach.holds(thread.id), what="the thread held")

    table.clock.advance(minutes=5, seconds=1)  # Bob's secret is due: held
    await asyncio.sleep(0.5)
    assert [m.status for m in await app.matches.lookups.unfinished(bob.id)] == ["setup"]
    assert not told_off(table, alice) and not told_off(table, bob)

    fake.set_thread_state(thread, archived=False, locked=False)
    await table.posted("I could not post here for 5 minutes", after=mark)
    prompt = await table.posted("Choose your secret", after=mark, where=bob)
    await table.click(bob, prompt, Verb.SECRET, "3 3")
    await table.posted("Both Crowns are placed", after=mark)


class _Monotonic:
    """The retries' own clock, wound by the test."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_a_thread_left_archived_and_locked_is_tried_with_backoff_within_the_budget(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    fake, thread = table.fake, table.channel
    assert table.app is not None
    app = table.app
    tick = _Monotonic()
    app.retries.monotonic = tick
    mark = table.checkpoint()
    await table.slash(alice, "crown challenge", opponent=bob)
    challenge = await table.posted("challenges you", after=mark)
    await table.click(bob, challenge, Verb.ACCEPT)
    await table.posted("Coin toss", after=mark)
    fake.set_thread_state(thread, archived=True, locked=True)
    fake.advance_clock(16 * 60)
    await table.dm(alice, "1 1")
    await fake.wait_until(lambda: app.channel_reach.holds(thread.id), what="the thread held")

    def tries(since: int) -> int:
        return table.bot_calls(since).board["GET /channels/{channel_id}"]

    async def after_sweeps(seconds: float) -> None:
        tick.now += seconds
        await asyncio.sleep(0.4)  # a few sweeps

    # Discord drops an archived thread from the gateway's cache: each try fetches it (one
    # request), finds it archived, and waits twice as long as before (30 s, 60 s, 120 s...).
    await after_sweeps(0)  # the first sweep that sees the hold sets the first try
    requests = table.request_mark()
    await after_sweeps(29)
    assert tries(requests) == 0
    for wait, expected in ((2, 1), (29, 1), (2, 2), (59, 2), (2, 3)):
        await after_sweeps(wait)
        assert tries(requests) == expected
    assert app.channel_reach.holds(thread.id)
    assert not told_off(table, alice) and not told_off(table, bob)

    # With this process's share of invalid requests spent, nothing is tried at all.
    for _unused in range(BUDGET):
        app.invalid.count()
    requests = table.request_mark()
    await after_sweeps(1000)
    await after_sweeps(1000)
    assert tries(requests) == 0 and app.channel_reach.holds(thread.id)
