"""The deadline sweeper's rounds, and the time they give back when the bot was away.

Deadlines are absolute, so a turn that came due while the bot was down (a deploy, a crash, a
database outage) would time out the moment it is back, though nobody could play meanwhile.
The sweeper records a heartbeat in the database every round. At start, a heartbeat older than
``away_after`` means the bot was away since then; while running, a round that comes that much
later than the one before (the database was unreachable, the process was suspended) means the
same. Either way every deadline that fell due in the gap starts again (``Deadlines
.extend_missed``) before the round acts on what is due.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta

from bot.service.deadlines import Deadlines
from bot.service.notices import Report

AWAY_MARGIN = timedelta(seconds=10)
"""Beyond two sweep intervals, how late a heartbeat may be before the bot counts as away."""


def away_after(sweep_interval: float) -> timedelta:
    """How long without a sweep means the bot was away: two missed rounds and a margin."""
    return 2 * timedelta(seconds=sweep_interval) + AWAY_MARGIN


class Sweeper:
    """Runs the rounds of one process's deadline sweeper.

    ``monotonic`` measures the time between rounds; the service's clock says which deadlines
    fell in a gap.
    """

    def __init__(
        self,
        service: Deadlines,
        sweep_interval: float,
        *,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.service = service
        self.away_after = away_after(sweep_interval)
        self.monotonic = monotonic
        self._last: tuple[float, datetime] | None = None
        """When the last round that succeeded began: monotonic time, and the service's."""

    async def start(self) -> list[Report]:
        """At start: give back the time of deadlines passed since the last heartbeat."""
        began = self._now()
        reports = await self.service.resume(self.away_after)
        self._last = began
        return reports

    async def round(self) -> list[Report]:
        """One round: give back time if this process was away, then act on what is due."""
        began = self._now()
        reports: list[Report] = []
        last = self._last
        if last is not None and began[0] - last[0] > self.away_after.total_seconds():
            reports += await self.service.extend_missed(last[1])
        await self.service.beat()
        reports += await self.service.sweep()
        self._last = began
        return reports

    def _now(self) -> tuple[float, datetime]:
        return self.monotonic(), self.service.clock()
