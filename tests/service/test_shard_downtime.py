"""Two processes, one shard each, sharing the database: while one restarts, the other's sweeper
forfeits nothing in its servers (``docs/scaling.md``'s promise), whether the restart is short or
long, and also at the moment the restarted process comes back (hand-wound clock and stopwatch).

A deadline of a server on another shard fires only once that shard's process was heard at or
after it: then somebody could answer there until the deadline. A shard's heartbeat merely being
recent (not yet "away") says nothing about the seconds after it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.deadlines import Deadlines
from bot.service.match_parts import MatchParts, match_parts
from bot.service.notices import Report
from bot.service.sweeper import Sweeper
from bot.service.timeouts import Timeouts
from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock

INTERVAL = 5.0
"""Seconds between two heartbeats and two rounds of each process."""
TURN = 60
"""Seconds a member has for a turn."""
HERE = GUILD << 22
"""A server on shard 0."""
THERE = (GUILD << 22) | (1 << 22)
"""A server on shard 1."""


class Stopwatch:
    """A process's monotonic clock, moved with the hand-wound clock."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.started = clock.now

    def __call__(self) -> float:
        return (self.clock.now - self.started).total_seconds()


TIMEOUTS = Timeouts(turn=TURN)


def mention(user_id: int) -> str:
    return f"@{user_id}"


@pytest.fixture
def service(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> MatchParts:
    return match_parts(sessions, clock=clock, seeds=lambda: 1, mention=mention, timeouts=TIMEOUTS)


def process(
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
    shard: int,
    cls: type[Deadlines] = Deadlines,
) -> Sweeper:
    """The sweeper of a process that runs ``shard`` of two."""
    parts = match_parts(sessions, clock=clock, seeds=lambda: 1, mention=mention, timeouts=TIMEOUTS)
    service = cls(parts.runner, parts.steps, shards=(shard,), shard_count=2)
    return Sweeper(service, INTERVAL, monotonic=Stopwatch(clock))


async def crystal(service: MatchParts, guild: int) -> int:
    """A started Crystal Capture match in ``guild``: Alice to move, within a minute."""
    report = await service.challenges.challenge(
        guild_id=guild, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB, game="crystal"
    )
    started = await service.challenges.accept(report.match.id, BOB)
    assert started.match.deadline_kind == "turn"
    return report.match.id


async def tick(clock: Clock, *sweepers: Sweeper, seconds: float = INTERVAL) -> list[Report]:
    """Time passes; each running process beats and sweeps once. What the rounds fired."""
    clock.advance(seconds=seconds)
    fired: list[Report] = []
    for sweeper in sweepers:
        await sweeper.heartbeat()
        fired += await sweeper.round()
    return fired


async def test_a_deadline_passing_during_a_restart_waits_for_its_shard(
    service: MatchParts, clock: Clock, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """Shard 1's process dies a few seconds before a turn in its server runs out. Shard 0's
    process, which hears shard 1 was up a moment ago, leaves that turn alone: nobody could
    answer it. Shard 1's process comes back 15 minutes later and gives the time back."""
    first, second = process(sessions, clock, 0), process(sessions, clock, 1)
    await first.start()
    await second.start()
    ours, theirs = await crystal(service, HERE), await crystal(service, THERE)
    deadline = (await service.lookups.snapshot(theirs)).deadline
    assert deadline is not None
    while clock.now + timedelta(seconds=INTERVAL) < deadline:
        assert await tick(clock, first, second) == []
    # Shard 1's process is killed here, its heartbeat fresh: it is not "away" for a while.
    fired = []
    for _ in range(2):
        fired += await tick(clock, first)
    assert [report.match.id for report in fired] == [ours]  # its own server's turn only
    assert (await service.lookups.snapshot(theirs)).status == "active"
    assert await tick(clock, first, seconds=15 * 60) == []  # away now, as before

    restarted = process(sessions, clock, 1)
    [back] = await restarted.start()
    assert back.match.id == theirs and back.match.status == "active"
    assert back.match.deadline == clock.now + timedelta(minutes=2)  # at least two minutes
    assert await tick(clock, first, restarted) == []


async def test_a_process_coming_back_gives_the_time_back_before_it_is_heard(
    service: MatchParts, clock: Clock, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """Shard 1's process comes back after 15 minutes, and shard 0's round comes just as it
    starts giving back the time of the turns that ran out meanwhile: that round must not take
    shard 1's new heartbeat for a sign that those turns could have been answered."""
    first, second = process(sessions, clock, 0), process(sessions, clock, 1)
    await first.start()
    await second.start()
    theirs = await crystal(service, THERE)
    clock.advance(minutes=15)  # shard 1's process is down meanwhile
    raced: list[Report] = []

    class Racing(Deadlines):
        """Shard 1's process, with shard 0's round coming in as it gives time back."""

        async def extend_missed(
            self, since: datetime, shards: set[int] | None = None
        ) -> list[Report]:
            await first.heartbeat()
            raced.extend(await first.round())
            return await super().extend_missed(since, shards)

    restarted = process(sessions, clock, 1, Racing)
    reports = await restarted.start()
    assert raced == []
    [back] = reports
    assert back.match.id == theirs and back.match.status == "active"


async def test_a_live_shard_s_deadline_may_be_fired_by_another_process(
    service: MatchParts, clock: Clock, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """Holding waits only for the owner to be heard: once shard 1's process beat after the
    deadline, shard 0's round may fire it (the sweeps share the work)."""
    first, second = process(sessions, clock, 0), process(sessions, clock, 1)
    await first.start()
    await second.start()
    theirs = await crystal(service, THERE)
    deadline = (await service.lookups.snapshot(theirs)).deadline
    assert deadline is not None
    while clock.now <= deadline:  # both beat; neither sweeps
        clock.advance(seconds=INTERVAL)
        await first.heartbeat()
        if clock.now < deadline:
            await second.heartbeat()
    assert await first.round() == []  # shard 1 was last heard before the deadline
    await second.heartbeat()
    [report] = await first.round()
    assert report.match.id == theirs and report.match.winner_id == BOB
