"""Each gateway shard's state for the host's metrics and health check, from discord.py's public
``ShardInfo``: whether it is connected, its heartbeat latency, and how long since a heartbeat
was last acknowledged.

discord.py tells a heartbeat's latency, not when it was acknowledged; a new acknowledgement
changes the latency, so a watch samples it every ``EVERY`` seconds and notes when it changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

from discord.ext import commands

from bot.metrics import ShardReading

EVERY = 1.0
"""Seconds between two looks at the shards' latencies: the heartbeat age is this precise."""


class GatewayWatch:
    """Watches ``client``'s shards while it runs."""

    def __init__(
        self,
        client: commands.AutoShardedBot,
        *,
        closing: Callable[[], bool],
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.closing = closing
        self.monotonic = monotonic
        self._seen: dict[int, tuple[float, float]] = {}
        """Each shard's last latency, and when it was first seen."""
        self._task: asyncio.Task[None] | None = None

    def connected(self) -> bool:
        """Ready, not shutting down, and every shard's gateway open."""
        client = self.client
        if self.closing() or client.is_closed() or not client.is_ready():
            return False
        shards = client.shards
        return bool(shards) and not any(shard.is_closed() for shard in shards.values())

    def readings(self) -> dict[int, ShardReading]:
        self.look()
        now = self.monotonic()
        return {
            shard_id: ShardReading(
                connected=not info.is_closed(),
                latency=info.latency,
                heartbeat_age=now - self._seen[shard_id][1],
            )
            for shard_id, info in self.client.shards.items()
        }

    def look(self) -> None:
        """Note every shard whose latency changed since the last look: a new acknowledgement."""
        now = self.monotonic()
        for shard_id, info in self.client.shards.items():
            seen = self._seen.get(shard_id)
            if seen is None or seen[0] != info.latency:
                self._seen[shard_id] = (info.latency, now)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._watch())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _watch(self) -> None:
        while True:
            self.look()
            await asyncio.sleep(EVERY)
