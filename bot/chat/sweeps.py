"""The sweep loop of one bot process: passed deadlines and ended seasons, the outbox's overdue
deliveries, the tournaments with something left to do and the podiums of ended seasons, every
``sweep_interval`` seconds once the bot is ready; about once a minute, the memory kept of
matches no longer in play is let go (``upkeep``).

Before each round the process checks it still holds its shards (``bot.fleet``); when another
process took them while this one was cut off, the bot stops itself. The heartbeat that says this
process's shards are up runs on a timer of its own: a long sweep round is never taken for
downtime.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable

from discord.ext import tasks

from bot.chat.app import Parlor, within
from bot.chat.boards.delivery import Delivery
from bot.chat.boards.redelivery import Redelivery
from bot.chat.matches.hold_retries import ReachRetries
from bot.fleet import Fleet, FleetRefused
from bot.service.failures import log_failure
from bot.service.sweeper import Sweeper

log = logging.getLogger(__name__)

UPKEEP_EVERY = 60.0
"""Seconds between two upkeeps: forgetting what is kept in memory of ended matches."""


async def _nothing() -> None:
    return None


class Sweeps:
    """Runs the sweep rounds; ``tournaments`` moves on every tournament with something to do."""

    def __init__(
        self,
        client: Parlor,
        fleet: Fleet,
        deadlines: Sweeper,
        delivery: Delivery,
        redelivery: Redelivery,
        retries: ReachRetries,
        tournaments: Callable[[], Awaitable[None]],
        interval: float,
        *,
        upkeep: Callable[[], Awaitable[None]] = _nothing,
        podiums: Callable[[], Awaitable[None]] = _nothing,
    ) -> None:
        self.client = client
        self.fleet = fleet
        self.deadlines = deadlines
        self.delivery = delivery
        self.redelivery = redelivery
        self.retries = retries
        self.tournaments = tournaments
        self.upkeep = upkeep
        self.podiums = podiums
        """Posts the podiums of the seasons that ended (the deadlines' round closes them)."""
        self._upkeep_every = max(1, math.ceil(UPKEEP_EVERY / interval))
        """Rounds between two upkeeps (counted in rounds: the loop's own clock)."""
        self._rounds = 0
        self.loop = tasks.loop(seconds=interval)(self._sweep)
        self.loop.before_loop(client.wait_until_ready)
        self.heartbeats = tasks.loop(seconds=interval)(self._heartbeat)
        self.heartbeats.before_loop(client.wait_until_ready)
        self._sweeping = asyncio.Lock()
        self._beating = asyncio.Lock()

    async def resume(self) -> None:
        """At start: deadlines that passed while the bot was down start again, and are told."""
        for report in await self.deadlines.start():
            await self.delivery.deliver(report)

    def start(self) -> None:
        self.heartbeats.start()
        self.loop.start()

    async def stop(self, deadline: float) -> None:
        """Stop the loops, letting a round or a heartbeat in progress finish by ``deadline``.

        A loop is cancelled only at a safe point, asleep or waiting for its lock: cancelled in
        the middle of a query, its database connection would be left checked out (and found by
        the garbage collector later).
        """
        if await within(deadline, self._beating.acquire()):
            self.heartbeats.cancel()
            self._beating.release()
        else:
            self.heartbeats.stop()
        if await within(deadline, self._sweeping.acquire()):
            self.loop.cancel()  # now asleep or waiting for the lock: a safe point
            self._sweeping.release()
        else:
            self.loop.stop()
            log.warning("Shutting down during a deadline sweep: it did not finish in time")

    async def once(self) -> int:
        """Act on every passed deadline and post what happened, try again the channels out of
        reach (calling off what stayed so for a whole turn), deliver what the outbox holds that
        nobody confirmed, move on the tournaments with something left to do, and post the
        podiums of seasons that ended; how many matches it touched."""
        reports = await self.deadlines.round()
        for report in reports:
            await self.delivery.deliver(report)
        await self.retries.sweep()
        await self.redelivery.sweep()
        await self.tournaments()
        await self.podiums()
        self._rounds += 1
        if self._rounds % self._upkeep_every == 0:
            try:
                await self.upkeep()
            except Exception:
                log_failure(log, "forgetting what is kept of ended matches failed")
        return len(reports)

    async def _heartbeat(self) -> None:
        async with self._beating:
            try:
                reports = await self.deadlines.heartbeat()
            except Exception:
                log_failure(log, "recording the heartbeat failed")  # the next one tries again
                return
            for report in reports:
                await self.delivery.deliver(report)

    async def _sweep(self) -> None:
        try:
            await self.fleet.hold()
        except FleetRefused as refused:
            log.error("%s Stopping.", refused)
            self.client.stop_refused(refused)  # which ends this loop too
            return
        except Exception:
            log_failure(log, "checking this process's shards failed")  # the next sweep tries again
            return
        try:
            async with self._sweeping:
                count = await self.once()
        except Exception:
            # One bad sweep must not stop the loop: the next one tries again.
            log_failure(log, "deadline sweep failed")
            return
        if count:
            log.info("Deadline sweep: %d matches", count)
