"""bot.batches: requests that arrive together run as one batch, one per key, in order."""

from __future__ import annotations

import asyncio

import pytest

from bot.batches import Batches, Request


class Recorder:
    """A runner that answers every job with itself and remembers each batch's jobs."""

    def __init__(self, fail_on: str | None = None, suspends: bool = True) -> None:
        self.batches: list[list[str]] = []
        self.fail_on = fail_on
        self.suspends = suspends
        """Whether a batch lets the event loop run other tasks (a SQLite batch may not)."""

    async def __call__(self, batch: list[Request[str, str]]) -> None:
        self.batches.append([request.job for request in batch])
        if self.suspends:
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

    assert list(answers) == ["A", "B", "C"]
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


class SlowRecorder(Recorder):
    """Holds each batch until told to go on, noting how many run at once."""

    def __init__(self) -> None:
        super().__init__()
        self.running = 0
        self.most_at_once = 0
        self.go_on = asyncio.Event()

    async def __call__(self, batch: list[Request[str, str]]) -> None:
        self.running += 1
        self.most_at_once = max(self.most_at_once, self.running)
        try:
            await self.go_on.wait()
            await super().__call__(batch)
        finally:
            self.running -= 1


async def test_batches_in_flight_run_at_once_and_hold_back_their_keys() -> None:
    runner = SlowRecorder()
    batches: Batches[str, str] = Batches(runner, gather=0, in_flight=2)

    first = asyncio.ensure_future(batches.submit(1, "a"))
    await asyncio.sleep(0.01)  # "a" is in flight, its batch waiting
    later = [
        asyncio.ensure_future(batches.submit(key, job))
        for key, job in [(2, "b"), (1, "c"), (3, "d")]
    ]
    await asyncio.sleep(0.01)
    assert runner.running == 2  # "b" and "d" went at once; "c" waits for "a", its key's
    runner.go_on.set()

    assert await asyncio.gather(first, *later) == ["A", "B", "C", "D"]
    assert runner.most_at_once == 2
    assert runner.batches[:2] == [["a"], ["b", "d"]]
    assert runner.batches[2:] == [["c"]]


async def test_one_batch_in_flight_by_default() -> None:
    runner = SlowRecorder()
    batches: Batches[str, str] = Batches(runner, gather=0)
    waiting = [asyncio.ensure_future(batches.submit(key, str(key))) for key in range(3)]
    await asyncio.sleep(0.01)
    waiting.append(asyncio.ensure_future(batches.submit(9, "9")))
    await asyncio.sleep(0.01)
    assert runner.running == 1
    runner.go_on.set()

    assert await asyncio.gather(*waiting) == ["0", "1", "2", "9"]
    assert runner.most_at_once == 1 and runner.batches == [["0", "1", "2"], ["9"]]


@pytest.mark.parametrize("in_flight", [1, 2])
@pytest.mark.parametrize("suspends", [True, False])
async def test_a_request_right_after_a_batch_ends_is_run(in_flight: int, suspends: bool) -> None:
    """Its drainer may have ended a moment ago without having left the count yet."""
    runner = Recorder(suspends=suspends)
    batches: Batches[str, str] = Batches(runner, gather=0, in_flight=in_flight)

    async def one_after_another() -> list[str]:
        return [await batches.submit(1, str(number)) for number in range(20)]

    answers = await asyncio.wait_for(one_after_another(), timeout=5)
    assert answers == [str(number) for number in range(20)]
