"""Logging in to Discord's gateway without spending more logins than Discord allows.

Discord lets a bot start ``max_concurrency`` sessions (IDENTIFYs) per 5 seconds, one in each
bucket (``shard_id % max_concurrency``), and about 1,000 a day (``session_start_limit`` of
``GET /gateway/bot``); an IDENTIFY too soon in its bucket is refused (op 9, Invalid Session), and
a bot that runs out of the day's logins has its token reset. The processes of a fleet take
turns per bucket through ``bot_meta`` (``identify:<bucket>``: when its last IDENTIFY was sent),
claimed with a compare-and-set that holds on SQLite and PostgreSQL alike, so two processes
started at once never IDENTIFY in the same window.

A process that keeps restarting without running steadily (``starts:<shards>`` in ``bot_meta``)
waits longer before each login, doubling up to ``MAX_PAUSE``; and a process that would leave
fewer than ``LOGINS_KEPT`` of the day's logins waits for Discord to renew them. Each wait is
said in one log line.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.bot_meta import add_meta, get_meta, set_meta, swap_meta
from db.connection import session_transaction

log = logging.getLogger(__name__)

IDENTIFY_WINDOW = 5.0
"""Discord's window: one IDENTIFY per bucket in any 5 seconds."""
MARGIN = 0.5
"""Seconds added to the window: an IDENTIFY reaches Discord a moment after its turn is taken."""
LOGINS_KEPT = 10
"""Logins of the day a starting process leaves for the others (reconnects after an outage)."""
FREE_STARTS = 10
"""Starts in a row without running steadily that log in at once: a deploy, or a few crashes a
service manager restarts, cost a few of the day's logins; a crash loop is paced after them."""
FIRST_PAUSE = 15.0
"""Seconds the next start waits; each further one doubles it, up to ``MAX_PAUSE``."""
MAX_PAUSE = 900.0
STEADY = 600.0
"""Seconds logged in after which a process counts as running steadily (as a clean stop does)."""
FORGOTTEN = 86400.0
"""A start this long after the last one is counted afresh."""

Pause = Callable[[float], Awaitable[bool]]
"""Wait so many seconds: ``True``, or ``False`` as soon as the process begins to stop."""


@dataclass(frozen=True)
class StartLimit:
    """``GET /gateway/bot``'s ``session_start_limit``."""

    total: int
    remaining: int
    reset_after: float
    """Seconds until ``remaining`` is back to ``total``."""
    max_concurrency: int


def pause_after(starts: int) -> float:
    """Seconds to wait before logging in, at the ``starts``-th start in a row without running
    steadily: none for the first ``FREE_STARTS``, then doubling from ``FIRST_PAUSE``."""
    if starts <= FREE_STARTS:
        return 0.0
    return min(FIRST_PAUSE * 2.0 ** (starts - FREE_STARTS - 1), MAX_PAUSE)


class Logins:
    """This process's logins: ``who`` names it among the fleet's processes (its shards),
    ``shards`` is how many sessions it starts. ``now`` is the wall clock (shared by every
    process), and ``pause`` waits, giving up when the process stops."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        who: str,
        shards: int,
        pause: Pause,
        *,
        window: float = IDENTIFY_WINDOW + MARGIN,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.sessions = sessions
        self.who = who
        self.shards = shards
        self.pause = pause
        self.window = window
        self.now = now
        self.max_concurrency = 1

    # -- restarts --------------------------------------------------------------------------

    async def pace(self) -> bool:
        """Count this start, and wait as long as the starts before it ask: whether to go on
        (``False``: the process began to stop meanwhile)."""
        starts = await self.count_start()
        wait = pause_after(starts)
        if not wait:
            return True
        log.warning(
            "This process started %d times in a row without running %d minutes; waiting %d s "
            "before logging in to Discord, to spare the day's logins",
            starts,
            STEADY // 60,
            wait,
        )
        return await self.pause(wait)

    async def count_start(self) -> int:
        """Record a start: how many in a row there have been without running steadily."""
        now = self.now()
        async with session_transaction(self.sessions) as session:
            record = _starts(await get_meta(session, self._starts_key))
            starts = 1
            if record is not None and now - record[1] < FORGOTTEN:
                starts = record[0] + 1
            value = json.dumps({"starts": starts, "at": now})
            await set_meta(session, self._starts_key, value, _stamp(now))
        return starts

    async def settle(self) -> None:
        """This process ran steadily, or stopped cleanly: the next start logs in at once."""
        now = self.now()
        async with session_transaction(self.sessions) as session:
            value = json.dumps({"starts": 0, "at": now})
            await set_meta(session, self._starts_key, value, _stamp(now))

    @property
    def _starts_key(self) -> str:
        return f"starts:{self.who}"

    # -- the day's logins ------------------------------------------------------------------

    async def within(self, limit: StartLimit) -> bool:
        """Take Discord's limits in; wait for the day's logins to be renewed when this
        process would leave fewer than ``LOGINS_KEPT``: whether to go on."""
        self.max_concurrency = max(limit.max_concurrency, 1)
        if limit.remaining - self.shards >= LOGINS_KEPT:
            return True
        renewed = datetime.fromtimestamp(self.now() + limit.reset_after, UTC)
        log.warning(
            "Discord allows %d more logins of %d until %s UTC, and this process needs %d and "
            "leaves %d for the others: waiting until then",
            limit.remaining,
            limit.total,
            renewed.strftime("%H:%M"),
            self.shards,
            LOGINS_KEPT,
        )
        return await self.pause(limit.reset_after)

    # -- one IDENTIFY ----------------------------------------------------------------------

    async def before_identify(self, shard_id: int) -> None:
        """Wait for ``shard_id``'s bucket to be free, and take it (returns early when the
        process stops)."""
        bucket = shard_id % self.max_concurrency
        while (wait := await self.claim(bucket)) > 0:
            log.info("Shard %d waits %.1f s for its turn to log in", shard_id, wait)
            if not await self.pause(wait):
                return

    async def claim(self, bucket: int) -> float:
        """Take ``bucket``'s turn to IDENTIFY now: ``0``, or the seconds until it is free."""
        key = f"identify:{bucket}"
        async with session_transaction(self.sessions) as session:
            seen = await get_meta(session, key)
            now = self.now()
            value = repr(now)
            if seen is None:
                return 0.0 if await add_meta(session, key, value, _stamp(now)) else 0.05
            last = _seconds(seen)
            free_at = last + self.window
            if now < free_at and last <= now + self.window:  # a later time: a wrong clock
                return free_at - now
            return 0.0 if await swap_meta(session, key, seen, value, _stamp(now)) else 0.05


def _stamp(now: float) -> datetime:
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=now)


def _seconds(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        return 0.0


def _starts(value: str | None) -> tuple[int, float] | None:
    """A stored start record: starts in a row, and when the last was."""
    if value is None:
        return None
    try:
        record = json.loads(value)
        return int(record["starts"]), float(record["at"])
    except (ValueError, KeyError, TypeError):
        return None
