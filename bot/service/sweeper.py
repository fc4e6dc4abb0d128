"""The deadline sweeper's rounds, and the time they give back when the bot was away.

Deadlines are absolute, so a turn that came due while the bot was down (a deploy, a crash, a
database outage) would time out the moment it is back, though nobody could play meanwhile.
Each process records a heartbeat per shard it runs, on a timer of its own: downtime is only ever
heartbeats that did not happen, never a round that took long (posting many boards, say). At
start, a shard's heartbeat older than ``away_after`` means it was away since then; while running,
a heartbeat that comes that much later than the one before (the database was unreachable, the
process was suspended) means the same. Either way every deadline of that shard's servers that
fell due in the gap starts again (``Deadlines.extend_missed``), before the heartbeat is recorded.
A round holds each deadline of another shard's servers until that shard's process was heard at
or after it: another process never forfeits the matches of servers nobody could hear, be their
process down, restarting, or just back and still giving back the time it was away.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from bot.service.deadlines import Deadlines
from bot.service.failures import log_failure
from bot.service.notices import Report
from bot.service.reach import Reach
from bot.service.seasons import Seasons

log = logging.getLogger(__name__)

AWAY_MARGIN = timedelta(seconds=10)
"""Beyond two heartbeat intervals, how late a heartbeat may be before a shard counts as away."""


def away_after(sweep_interval: float) -> timedelta:
    """How long without a heartbeat means a shard was away: two missed beats and a margin."""
    return 2 * timedelta(seconds=sweep_interval) + AWAY_MARGIN


class Sweeper:
    """Runs one process's heartbeat and the rounds of its deadline sweeper.

    ``monotonic`` measures the time between heartbeats; the service's clock says which
    deadlines fell in a gap.
    """

    def __init__(
        self,
        service: Deadlines,
        sweep_interval: float,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        reach: Reach | None = None,
        seasons: Seasons | None = None,
    ) -> None:
        self.service = service
        self.seasons = seasons
        """The seasons whose end has passed are closed by each round."""
        self.reach = reach
        """The channels out of the bot's reach, whose deadlines wait."""
        self.away_after = away_after(sweep_interval)
        self.monotonic = monotonic
        self._last: tuple[float, datetime] | None = None
        """When the last heartbeat was recorded: monotonic time, and the service's."""

    async def start(self) -> list[Report]:
        """At start: give back the time of deadlines passed since each shard's heartbeat."""
        began = self._now()
        reports = await self.service.resume(self.away_after)
        self._last = began
        return reports

    async def heartbeat(self) -> list[Report]:
        """Record the heartbeat; when the last one is ``away_after`` old (this process was
        stalled or cut off), give back the time of what fell due meanwhile."""
        began = self._now()
        reports: list[Report] = []
        last = self._last
        if last is not None and began[0] - last[0] > self.away_after.total_seconds():
            reports += await self.service.extend_missed(last[1])
        await self.service.beat()
        self._last = began
        return reports

    async def round(self) -> list[Report]:
        """Act on what is due, holding the deadlines of shards not heard since they passed and
        of channels out of the bot's reach; close the seasons whose end has passed."""
        if self.seasons is not None:
            try:
                await self.seasons.close_due()
            except Exception:  # the deadlines go on; the next round tries again
                log_failure(log, "closing the seasons that ended failed")
        heard = await self.service.heard()
        unreachable = set(await self.reach.held()) if self.reach is not None else set()
        return await self.service.sweep(heard=heard, unreachable=unreachable)

    def _now(self) -> tuple[float, datetime]:
        return self.monotonic(), self.service.runner.clock()
