"""Group commit: requests that arrive together run as one batch, one transaction for all.

SQLite lets one writer in at a time, and most of a move's cost is the Python around each
statement and commit, not the work inside SQLite. A batch pays for one read, one write and one
commit however many matches it holds. There is no waiting to fill a batch: while one runs, the
next collects whatever arrives, so batches grow with the load and a lone request goes at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

J = TypeVar("J")
R = TypeVar("R")

BATCH_LIMIT = 200
"""The most requests in one batch: bounds how long the one after waits."""
GATHER = 0.001
"""While busy, how long (seconds) a batch waits for more requests before it starts.

Each batch has a fixed cost (a transaction, its first statements, a commit), so under
load a millisecond spent gathering buys larger batches and more moves per second, as
PostgreSQL's ``commit_delay`` does. A writer that is idle, or serves one request at a time,
answers at once."""


def _new_future() -> asyncio.Future[Any]:
    return asyncio.get_running_loop().create_future()


@dataclass(eq=False)
class Request(Generic[J, R]):
    """One caller's ``job``: ``key`` is what it writes (at most one per key in a batch)."""

    key: Hashable
    job: J
    future: asyncio.Future[R] = field(default_factory=_new_future)

    def settle(self, result: R | BaseException) -> None:
        """Answer the caller, unless it has stopped waiting."""
        if self.future.done():
            return
        if isinstance(result, BaseException):
            self.future.set_exception(result)
        else:
            self.future.set_result(result)


Runner = Callable[[list["Request[J, R]"]], Awaitable[None]]
"""Runs a batch and settles every request in it."""


class Batches(Generic[J, R]):
    """Queues requests and runs them in batches, in arrival order, up to ``in_flight`` at once.

    Two requests with the same key never share a batch, nor run in two batches at once: the
    later one goes in a batch that starts after the earlier one's has ended, so it sees what
    that one wrote. A request whose caller stopped waiting before its batch began (a cancelled
    interaction) is dropped.
    """

    def __init__(
        self,
        run: Runner[J, R],
        limit: int = BATCH_LIMIT,
        gather: float = GATHER,
        in_flight: int = 1,
    ) -> None:
        self._run = run
        self._limit = limit
        self._gather = gather
        self._in_flight = in_flight
        self._last_end = -float("inf")
        """When the last batch ended (event loop time)."""
        self._last_size = 0
        self._pending: list[Request[J, R]] = []
        self._flying: set[Hashable] = set()
        """The keys of the batches running now."""
        self._drainers: set[asyncio.Task[None]] = set()

    async def submit(self, key: Hashable, job: J) -> R:
        """Queue ``job`` and wait for its answer (a result, or the exception it raised)."""
        request: Request[J, R] = Request(key, job)
        self._pending.append(request)
        # A drainer that has just ended is still in the set until its callback runs.
        if sum(not drainer.done() for drainer in self._drainers) < self._in_flight:
            drainer = asyncio.ensure_future(self._drain())
            self._drainers.add(drainer)
            drainer.add_done_callback(self._drainers.discard)
        return await request.future

    def _take(self) -> list[Request[J, R]]:
        batch: list[Request[J, R]] = []
        keys: set[Hashable] = set()
        waiting: list[Request[J, R]] = []
        for request in self._pending:
            if request.future.done():
                continue
            key = request.key
            if key in keys or key in self._flying or len(batch) >= self._limit:
                waiting.append(request)
            else:
                keys.add(key)
                batch.append(request)
        self._pending = waiting
        return batch

    async def _drain(self) -> None:
        """Run batches until nothing is left that another batch in flight does not hold up,
        then stop (no task idles between bursts)."""
        loop = asyncio.get_running_loop()
        while self._pending:
            # Busy: the last batch held several requests and has just ended.
            busy = self._last_size > 1 and loop.time() - self._last_end < self._gather
            if busy and len(self._pending) < self._limit:
                await asyncio.sleep(self._gather)
            batch = self._take()
            if not batch:
                # Everything waiting is held up by batches in flight; their drainers go on.
                if self._flying:
                    return
                continue
            keys = [request.key for request in batch]
            self._flying.update(keys)
            try:
                await self._run(batch)
            except asyncio.CancelledError:
                for request in [*batch, *self._pending]:
                    request.future.cancel()
                self._pending.clear()
                raise
            except Exception as error:  # the runner failed as a whole: every caller hears it
                for request in batch:
                    request.settle(error)
            finally:
                self._flying.difference_update(keys)
            for request in batch:
                request.settle(RuntimeError("the batch ended without answering this request"))
            self._last_end, self._last_size = loop.time(), len(batch)
