"""Logins paced through the database: each bucket's turn taken by one process at a time, starts
in a row without running steadily backed off, and the day's last logins kept.

Each ``Logins`` here has an engine of its own on the test's database, as a process has; their
clock is a hand-wound one, and their waits are recorded instead of slept.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.logins import (
    FIRST_PAUSE,
    FREE_STARTS,
    LOGINS_KEPT,
    MAX_PAUSE,
    Logins,
    StartLimit,
    pause_after,
)
from db.engine import create_engine, session_factory

WINDOW = 5.5


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def pause(self, seconds: float) -> bool:
        """Wait by moving the clock on (and let the other processes run)."""
        self.waits.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)
        return True


Process = Callable[..., Logins]


@pytest.fixture
async def processes(database_url: str) -> AsyncIterator[Process]:
    """Builds the logins of a process, each on an engine of its own."""
    engines: list[AsyncEngine] = []

    def process(clock: Clock, who: str = "0", shards: int = 1) -> Logins:
        engine = create_engine(database_url)
        engines.append(engine)
        sessions = session_factory(engine)
        return Logins(sessions, who, shards, clock.pause, window=WINDOW, now=clock)

    yield process
    for engine in engines:
        await engine.dispose()


async def test_of_processes_claiming_a_bucket_at_once_exactly_one_identifies(
    processes: Process,
) -> None:
    clock = Clock()
    fleet = [processes(clock, str(shard)) for shard in range(4)]
    waits = await asyncio.gather(*(logins.claim(0) for logins in fleet))
    assert sorted(waits)[0] == 0 and all(wait > 0 for wait in sorted(waits)[1:])


async def test_the_next_identify_in_a_bucket_waits_for_the_window_other_buckets_do_not(
    processes: Process,
) -> None:
    clock = Clock()
    first, second = processes(clock, "0"), processes(clock, "1")
    first.max_concurrency = second.max_concurrency = 2
    assert await first.claim(0) == 0
    assert await second.claim(1) == 0  # the other bucket
    clock.now += 2
    assert await second.claim(0) == pytest.approx(WINDOW - 2)
    await second.before_identify(2)  # bucket 0: waits out the window, then takes it
    assert clock.waits == [pytest.approx(WINDOW - 2)]
    assert await first.claim(0) == pytest.approx(WINDOW)


async def test_starts_in_a_row_wait_longer_each_time_until_one_runs_steadily(
    processes: Process,
) -> None:
    clock = Clock()
    logins = processes(clock, "all")
    for _ in range(FREE_STARTS):
        assert await logins.pace()
    assert clock.waits == []
    await logins.pace()
    await logins.pace()
    assert clock.waits == [FIRST_PAUSE, 2 * FIRST_PAUSE]
    restarted = processes(clock, "all")  # the next process reads the count from the database
    assert await restarted.count_start() == FREE_STARTS + 3

    await restarted.settle()
    clock.waits.clear()
    assert await processes(clock, "all").pace()
    assert clock.waits == []


def test_the_pause_doubles_up_to_a_ceiling() -> None:
    pauses = [pause_after(starts) for starts in range(1, 20)]
    assert pauses[:FREE_STARTS] == [0] * FREE_STARTS
    assert pauses[FREE_STARTS : FREE_STARTS + 3] == [FIRST_PAUSE, 2 * FIRST_PAUSE, 4 * FIRST_PAUSE]
    assert max(pauses) == pauses[-1] == MAX_PAUSE


async def test_a_process_waits_for_the_days_logins_when_few_are_left(
    processes: Process, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    logins = processes(clock, "0,1", 2)
    assert await logins.within(StartLimit(1000, LOGINS_KEPT + 2, 3600.0, 1))
    assert clock.waits == []
    assert await logins.within(StartLimit(1000, LOGINS_KEPT + 1, 3600.0, 16))
    assert clock.waits == [3600.0]
    assert logins.max_concurrency == 16
    [line] = [r.getMessage() for r in caplog.records if "more logins" in r.getMessage()]
    assert "allows 11 more logins of 1000" in line and "needs 2" in line
