"""bot.batches: requests that arrive together run as one batch, one per key, in order."""

from __future__ import annotations

import asyncio

import pytest

from bot.batches import Batches, Request


class Recorder:
    """A runner that answers every job with itself and remembers each batch's jobs."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.batches: list[list[str]] = []
        self.fail_on = fail_on

    async def __call__(self, batch: list[Request[str, str]]) -> None:
        self.batches.append([request.job for request in batch])
        await asyncio.sleep(0)
        if self.fail_on in self.batches[-1]:
            raise RuntimeError(f"cannot run {self.fail_on}")
        for request in batch:
            request.settle(request.job.upper())


async def test_requests_that_arrive_together_share_a_batch_one_per_key() -> None:
    runner = Recorder()
    batches: Batches[str, str] = Batches(runner, gather=0)

    answers = await asyncio.gather(
        batches.submit(1, "a"), batches.submit(2, "b"), batches.submit(1, "c")
    )

    assert answers == ["A", "B", "C"]
    assert runner.batches == [["a", "b"], ["c"]]  # "c" waits for "a", its key's earlier request


async def test_a_batch_holds_at_most_its_limit() -> None:
    runner = Recorder()
    batches: Batches[str, str] = Batches(runner, limit=2, gather=0)

    await asyncio.gather(*(batches.submit(key, str(key)) for key in range(5)))

    assert runner.batches == [["0", "1"], ["2", "3"], ["4"]]


async def test_a_failed_batch_fails_its_own_requests_only() -> None:
    runner = Recorder(fail_on="b")
    batches: Batches[str, str] = Batches(runner, limit=2, gather=0)

    answers = await asyncio.gather(
        batches.submit(1, "a"),
        batches.submit(2, "b"),
        batches.submit(3, "c"),
        return_exceptions=True,
    )

    assert [str(a) for a in answers] == ["cannot run b", "cannot run b", "C"]


async def test_a_request_nobody_waits_for_is_dropped() -> None:
    runner = Recorder()
    batches: Batches[str, str] = Batches(runner, gather=0)
    first = asyncio.ensure_future(batches.submit(1, "a"))
    dropped = asyncio.ensure_future(batches.submit(1, "b"))  # waits for "a": same key
    await asyncio.sleep(0)
    dropped.cancel()

    assert await first == "A"
    with pytest.raises(asyncio.CancelledError):
        await dropped
    await asyncio.sleep(0.01)
    assert runner.batches == [["a"]]


async def test_a_busy_writer_gathers_before_the_next_batch() -> None:
    runner = Recorder()
    batches: Batches[str, str] = Batches(runner, gather=0.05)
    await asyncio.gather(batches.submit(1, "a"), batches.submit(2, "b"))  # busy: 2 at once

    late = [asyncio.ensure_future(batches.submit(3, "c"))]
    await asyncio.sleep(0.01)  # "c" waits for more to gather
    late.append(asyncio.ensure_future(batches.submit(4, "d")))
    assert await asyncio.gather(*late) == ["C", "D"]

    assert runner.batches == [["a", "b"], ["c", "d"]]


async def test_a_lone_request_goes_at_once() -> None:
    runner = Recorder()
    batches: Batches[str, str] = Batches(runner, gather=10.0)

    assert await asyncio.wait_for(batches.submit(1, "a"), timeout=1) == "A"
    assert await asyncio.wait_for(batches.submit(1, "b"), timeout=1) == "B"
