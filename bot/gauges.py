"""The bot's gauges, read when Prometheus scrapes: from the database (outbox, matches in play,
queues), kept ``READ_KEPT`` seconds so that scrapes however frequent cost a few cheap queries at
most that often, and from the process itself (held channels, shards, invalid requests)."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from datetime import datetime

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from bot.metrics import ShardReading
from db.gauges import Counts

READ_KEPT = 5.0
"""Seconds the database's counts are kept between two scrapes."""


class BotGauges(Collector):
    """Gauges of one bot process, for its registry."""

    def __init__(
        self,
        read: Callable[[], Awaitable[Counts]],
        *,
        now: Callable[[], datetime],
        held: Callable[[], int],
        shards: Callable[[], Mapping[int, ShardReading]],
        invalid: Callable[[], int],
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.read = read
        self.now = now
        self.held = held
        self.shards = shards
        self.invalid = invalid
        self.monotonic = monotonic
        self._lock = asyncio.Lock()
        self._counts: Counts | None = None
        self._read_at = -math.inf

    async def refresh(self) -> None:
        """Read the database's counts, unless read within ``READ_KEPT`` seconds; scrapes at
        once share one read."""
        async with self._lock:
            if self.monotonic() - self._read_at < READ_KEPT:
                return
            self._read_at = self.monotonic()  # a failed read is not tried again at once either
            self._counts = await self.read()

    def collect(self) -> Iterator[Metric]:
        yield from self._database()
        yield _gauge(
            "parlor_held_channels",
            "Channels out of the bot's reach, whose matches' deadlines are held.",
            self.held(),
        )
        yield _gauge(
            "parlor_discord_invalid_requests_window",
            "Discord's invalid answers (401, 403, 429) in the last 10 minutes; Discord bans an "
            "address past 10,000.",
            self.invalid(),
        )
        yield from self._shards()

    def _database(self) -> Iterator[Metric]:
        counts = self._counts
        if counts is None:
            return
        yield _gauge(
            "parlor_db_gauges_age_seconds",
            "Seconds since the database's counts below were read.",
            self.monotonic() - self._read_at,
        )
        yield _gauge("parlor_outbox_entries", "Outbox entries not shown yet.", counts.outbox)
        overdue = 0.0
        if counts.outbox_first_due is not None:
            overdue = max(0.0, (self.now() - counts.outbox_first_due).total_seconds())
        yield _gauge(
            "parlor_outbox_oldest_overdue_seconds",
            "Seconds the outbox entry longest due has waited past its due time (0: none due).",
            overdue,
        )
        matches = GaugeMetricFamily(
            "parlor_matches_in_play", "Matches not over, by status.", labels=["status"]
        )
        for status, count in sorted(counts.matches.items()):
            matches.add_metric([status], count)
        yield matches
        queues = GaugeMetricFamily(
            "parlor_queue_members",
            "Members waiting in the quick-pair queues, by game.",
            labels=["game"],
        )
        for game, count in sorted(counts.queues.items()):
            queues.add_metric([game], count)
        yield queues

    def _shards(self) -> Iterator[Metric]:
        connected = GaugeMetricFamily(
            "parlor_shard_connected", "1 when the shard's gateway is connected.", labels=["shard"]
        )
        latency = GaugeMetricFamily(
            "parlor_shard_latency_seconds",
            "Seconds between the shard's last heartbeat and its acknowledgement.",
            labels=["shard"],
        )
        age = GaugeMetricFamily(
            "parlor_shard_heartbeat_age_seconds",
            "Seconds since the shard's last heartbeat acknowledgement was seen.",
            labels=["shard"],
        )
        for shard, reading in sorted(self.shards().items()):
            connected.add_metric([str(shard)], 1.0 if reading.connected else 0.0)
            latency.add_metric([str(shard)], reading.latency)
            age.add_metric([str(shard)], reading.heartbeat_age)
        yield from (connected, latency, age)


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)
