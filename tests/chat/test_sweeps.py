"""Shut-down stops the sweep loops only at a safe point: never inside a heartbeat's query, whose
database connection would be left checked out for the garbage collector to find."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from bot.chat.sweeps import Sweeps
from bot.service.notices import Report


class _Client:
    async def wait_until_ready(self) -> None:
        return None


class _Deadlines:
    """A heartbeat that takes as long as the test says: a query under way."""

    def __init__(self) -> None:
        self.beating = asyncio.Event()
        self.release = asyncio.Event()
        self.finished = 0
        self.cancelled = 0

    async def heartbeat(self) -> list[Report]:
        self.beating.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        self.finished += 1
        return []


async def _nothing() -> None:
    return None


async def _beating(deadlines: _Deadlines) -> Sweeps:
    """The sweep loops with their heartbeat under way (the sweep itself never runs)."""
    sweeps = Sweeps(
        cast(Any, _Client()),
        cast(Any, None),
        cast(Any, deadlines),
        cast(Any, None),
        cast(Any, None),
        cast(Any, None),
        _nothing,
        interval=60.0,
    )
    sweeps.heartbeats.start()
    await deadlines.beating.wait()
    return sweeps


async def test_shut_down_lets_a_heartbeat_in_progress_finish() -> None:
    deadlines = _Deadlines()
    sweeps = await _beating(deadlines)
    loop = asyncio.get_running_loop()
    stopping = asyncio.create_task(sweeps.stop(loop.time() + 5.0))
    await asyncio.sleep(0.05)
    assert not stopping.done()  # waiting for the heartbeat, not cancelling it
    deadlines.release.set()
    await stopping
    assert (deadlines.finished, deadlines.cancelled) == (1, 0)
    await asyncio.sleep(0)
    assert not sweeps.heartbeats.is_running()


async def test_a_heartbeat_that_outlasts_the_deadline_is_left_to_finish() -> None:
    deadlines = _Deadlines()
    sweeps = await _beating(deadlines)
    loop = asyncio.get_running_loop()
    await sweeps.stop(loop.time() + 0.05)
    assert deadlines.cancelled == 0
    deadlines.release.set()
    await asyncio.sleep(0.01)
    assert deadlines.finished == 1
