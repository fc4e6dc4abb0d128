"""The daily puzzle on the database: one per server and UTC day whatever asks and how often, the
same puzzle for any process, posted once and edited while behind, its counts taken from the
day's answers only."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.daily_puzzles import DailyPuzzles, pick
from bot.service.puzzles import FIRST_SOLVERS, Puzzles
from tests.puzzle_values import crystal_puzzle
from tests.service.conftest import CHANNEL, GUILD, Clock

OTHER_GUILD = GUILD + 1


@pytest.fixture
def puzzles(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> Puzzles:
    return Puzzles(sessions, clock=clock)


@pytest.fixture
def daily(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> DailyPuzzles:
    return DailyPuzzles(sessions, clock=clock)


async def test_one_post_a_day_chosen_alike_posted_once_and_edited_while_behind(
    puzzles: Puzzles, daily: DailyPuzzles, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    await puzzles.store(GUILD, None, [crystal_puzzle(seed) for seed in range(1, 6)])
    assert await daily.plan() == 0  # no channel set: no daily puzzle
    await daily.set_channel(GUILD, CHANNEL)
    assert await daily.channel(GUILD) == CHANNEL

    assert await daily.plan() == 1
    assert await daily.plan() == 0  # a second round, or another process: the same day's row
    assert await DailyPuzzles(sessions, clock=clock).plan() == 0
    (post,) = await daily.behind()
    assert post.shown.id == pick(GUILD, "2026-01-01", [1, 2, 3, 4, 5])
    assert post.message_id is None and post.yesterday is None

    await daily.shown(GUILD, post.day, post.version, message_id=555)
    assert await daily.behind() == []  # posted: nothing to do until it changes

    # Six right answers and a wrong one: counted, the first five named.
    chosen = post.shown.id
    for member in range(100, 106):
        await puzzles.answer(GUILD, member, chosen, "1")
    await puzzles.answer(GUILD, 200, chosen, "2")
    await puzzles.answer(GUILD, 200, chosen, "1")  # a second press counts for nothing
    (edited,) = await daily.behind()
    assert edited.message_id == 555
    assert (edited.tries, edited.solves) == (7, 6)
    assert edited.first_solvers == tuple(range(100, 100 + FIRST_SOLVERS))
    await daily.shown(GUILD, edited.day, edited.version)
    assert await daily.behind() == []

    # The next day: a new post telling the day before's puzzle; answers of that puzzle now
    # count on no post.
    clock.advance(days=1)
    assert await daily.plan() == 1
    (following,) = await daily.behind()
    assert following.day == "2026-01-02" and following.message_id is None
    assert following.yesterday is not None and following.yesterday.id == chosen
    other = next(i for i in range(1, 6) if i not in (chosen, following.shown.id))
    await puzzles.answer(GUILD, 300, other, "1")
    (still,) = await daily.behind()
    assert (still.tries, still.solves) == (0, 0)


async def test_no_channel_no_post_and_a_cleared_channel_stops_the_next_day(
    puzzles: Puzzles, daily: DailyPuzzles, clock: Clock
) -> None:
    await puzzles.store(GUILD, None, [crystal_puzzle()])
    await daily.set_channel(GUILD, CHANNEL)
    assert await daily.plan(runs=lambda guild_id: guild_id != GUILD) == 0  # another shard's
    assert await daily.plan() == 1
    await daily.set_channel(GUILD, None)
    clock.advance(days=1)
    assert await daily.plan() == 0
    assert await daily.channel(GUILD) is None


async def test_a_server_with_no_puzzle_gets_no_post(daily: DailyPuzzles) -> None:
    await daily.set_channel(OTHER_GUILD, CHANNEL)
    assert await daily.plan() == 0
    assert await daily.behind() == []
