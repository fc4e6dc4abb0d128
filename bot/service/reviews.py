"""Each finished match's review computed once at a time, off the event loop, and kept.

A review is judged without words of any language (its texts are phrases, worded by the reader),
so one computation serves every reader. ``Reviewer`` keeps the latest finished reviews in
memory (``kept``), lets concurrent requests for one match await the same computation, and runs
it in the executor the composition root gives (a process pool: the judging is pure Python and
would hold the interpreter lock a thread shares with the event loop). ``FairUse`` bounds the
computations one member may start in a minute; a review kept or being computed costs nothing.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.connection
import os
import threading
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from datetime import datetime, timedelta

from bot.service.errors import ReviewsTooOften
from bot.service.match_state import Clock
from bot.service.review_work import Judged, Judging, judge
from db.models import utcnow
from games.review import Review

__all__ = [
    "REVIEWS_KEPT",
    "REVIEWS_PER_MINUTE",
    "FairUse",
    "Reviewer",
    "review_pool",
]

REVIEWS_KEPT = 512
"""Finished reviews a process keeps in memory, the latest used (a few kilobytes each)."""
REVIEWS_PER_MINUTE = 6
"""Review computations a member may start in a minute."""
WINDOW = timedelta(minutes=1)


def review_pool(workers: int | None = None) -> ProcessPoolExecutor:
    """The process pool reviews are computed in: ``workers`` processes, or one per CPU.

    Its workers are spawned, not forked: the bot's process runs threads (the database driver's)
    that a fork would copy mid-step. Each worker ends when the bot's process does, however it
    ended (``end_with_parent``)."""
    count = workers or os.cpu_count() or 1
    return ProcessPoolExecutor(
        max_workers=count,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=end_with_parent,
    )


def end_with_parent() -> None:
    """In a pool worker: exit as soon as the process that started it is gone.

    A pool's workers wait for work on a pipe that a killed parent (``kill -9``, the OOM killer)
    never closes for them, so they would otherwise outlive it, holding its stdout and stderr
    open for whatever supervises the bot."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    sentinel = parent.sentinel

    def watch() -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


class FairUse:
    """At most ``most`` review computations per member in a sliding minute."""

    def __init__(self, most: int = REVIEWS_PER_MINUTE, *, clock: Clock = utcnow) -> None:
        self.most = most
        self.clock = clock
        self.started: dict[int, deque[datetime]] = {}

    def take(self, member_id: int) -> None:
        """Count one computation for ``member_id``; refused (and nothing counted) when their
        minute is full, saying when they may ask again."""
        now = self.clock()
        self._forget(now)
        stamps = self.started.setdefault(member_id, deque())
        if len(stamps) >= self.most:
            raise ReviewsTooOften(self.most, stamps[0] + WINDOW)
        stamps.append(now)

    def give_back(self, member_id: int) -> None:
        """Undo the last ``take``: the review needed no computation after all."""
        stamps = self.started.get(member_id)
        if stamps:
            stamps.pop()

    def _forget(self, now: datetime) -> None:
        for member_id, stamps in list(self.started.items()):
            while stamps and stamps[0] + WINDOW <= now:
                stamps.popleft()
            if not stamps:
                del self.started[member_id]


class Reviewer:
    """Reviews by match: kept, computed once at a time, in ``executor``.

    With no executor a review is computed in a worker thread (tools and tests that run no
    pool); the bot's composition root gives a process pool. ``computed`` counts the
    computations and ``pids`` the processes the latest ran in.
    """

    def __init__(self, executor: Executor | None = None, *, kept: int = REVIEWS_KEPT) -> None:
        self.executor = executor
        self.kept = kept
        self.reviews: OrderedDict[int, Review] = OrderedDict()
        self.flights: dict[int, asyncio.Future[Review]] = {}
        self.computed = 0
        self.pids: deque[int] = deque(maxlen=64)

    def ready(self, match_id: int) -> Review | None:
        """The match's review if it is kept here, or ``None``."""
        review = self.reviews.get(match_id)
        if review is not None:
            self.reviews.move_to_end(match_id)
        return review

    def keep(self, match_id: int, review: Review) -> None:
        self.reviews[match_id] = review
        self.reviews.move_to_end(match_id)
        while len(self.reviews) > self.kept:
            self.reviews.popitem(last=False)

    def in_flight(self, match_id: int) -> asyncio.Future[Review] | None:
        return self.flights.get(match_id)

    def fly(self, match_id: int, making: Callable[[], Awaitable[Review]]) -> asyncio.Future[Review]:
        """Start ``making`` the match's review, which every request for it awaits until it is
        kept; a failure reaches each of them and keeps nothing."""
        flight: asyncio.Future[Review] = asyncio.ensure_future(self._made(match_id, making))
        flight.add_done_callback(_retrieved)  # every requester may have given up on it
        self.flights[match_id] = flight
        return flight

    async def _made(self, match_id: int, making: Callable[[], Awaitable[Review]]) -> Review:
        try:
            review = await making()
            self.keep(match_id, review)
            return review
        finally:
            del self.flights[match_id]

    async def compute(self, judging: Judging) -> Review:
        """The review of ``judging``'s match, computed now off the event loop."""
        loop = asyncio.get_running_loop()
        done: Judged
        if self.executor is None:
            done = await asyncio.to_thread(judge, judging)
        else:
            done = await loop.run_in_executor(self.executor, judge, judging)
        self.computed += 1
        self.pids.append(done.pid)
        return done.review


def _retrieved(flight: asyncio.Future[Review]) -> None:
    """Mark a flight's failure as seen: each requester still waiting is told it anyway."""
    if not flight.cancelled():
        flight.exception()
