"""A process's metrics for its host: Prometheus's text on ``/metrics`` and a health check on
``/healthz``, served by aiohttp on the process's own event loop (docs/operations.md).

Off unless a port is set. Each process keeps its metrics in a ``CollectorRegistry`` of its own,
built by the composition root (never the library's global one), so that tests can run several.
Nothing here knows Discord or the database: what to read is passed in.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram
from prometheus_client.exposition import generate_latest

log = logging.getLogger(__name__)

INTERACTION_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0)
"""Seconds to answer an interaction: Discord drops one not acknowledged within 3 s, and the bot
defers at 1.5 s."""
TRANSACTION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
HEALTH_TIMEOUT = 2.0
"""Seconds the health check waits for the database before it counts it as not answering; a
scrape waits as long for the gauges it reads, then serves those it has."""
HEALTH_KEPT = 1.0
"""Seconds a health check's answer is kept: a supervisor polling hard costs one query a second."""


@dataclass(frozen=True)
class ShardReading:
    """One gateway shard as the process sees it."""

    connected: bool
    latency: float
    """Seconds between the last heartbeat and its acknowledgement (``inf``: none yet)."""
    heartbeat_age: float
    """Seconds since the last acknowledged heartbeat was seen."""


class Metrics:
    """The bot process's counters and histograms; ``registry`` is where they are kept."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry
        self.interactions = Counter(
            "parlor_interactions",
            "Members' interactions handled, by kind (command, button, form) and outcome.",
            ["kind", "outcome"],
            registry=registry,
        )
        self.interaction_seconds = Histogram(
            "parlor_interaction_seconds",
            "Seconds from taking an interaction to its answer delivered, by kind.",
            ["kind"],
            buckets=INTERACTION_BUCKETS,
            registry=registry,
        )
        self.transaction_seconds = Histogram(
            "parlor_db_transaction_seconds",
            "Seconds a use case's database transaction took, by kind and outcome.",
            ["kind", "outcome"],
            buckets=TRANSACTION_BUCKETS,
            registry=registry,
        )
        self.discord_errors = Counter(
            "parlor_discord_client_errors",
            "Discord's 4xx answers to the bot's requests (429: rate limited), by status.",
            ["status"],
            registry=registry,
        )

    def interaction(self, kind: str, outcome: str, seconds: float) -> None:
        self.interactions.labels(kind, outcome).inc()
        self.interaction_seconds.labels(kind).observe(seconds)

    def transaction(self, kind: str, outcome: str, seconds: float) -> None:
        self.transaction_seconds.labels(kind, outcome).observe(seconds)

    def discord_status(self, status: int) -> None:
        """A response from Discord: counted when it is a 4xx."""
        if 400 <= status < 500:
            self.discord_errors.labels(str(status)).inc()


@dataclass(frozen=True)
class Health:
    """Whether the process can serve, and each check's word."""

    ok: bool
    checks: dict[str, str]


class HealthCheck:
    """The process is healthy when the database answers and, for the bot, the gateway is
    connected. Answers are kept ``HEALTH_KEPT`` seconds."""

    def __init__(
        self,
        database: Callable[[], Awaitable[None]],
        *,
        gateway: Callable[[], bool] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.database = database
        self.gateway = gateway
        self.monotonic = monotonic
        self._lock = asyncio.Lock()
        self._kept: tuple[float, Health] | None = None

    async def check(self) -> Health:
        async with self._lock:
            if self._kept is not None and self.monotonic() - self._kept[0] < HEALTH_KEPT:
                return self._kept[1]
            health = await self._check()
            self._kept = (self.monotonic(), health)
            return health

    async def _check(self) -> Health:
        checks = {}
        if self.gateway is not None:
            checks["gateway"] = "connected" if self.gateway() else "disconnected"
        try:
            async with asyncio.timeout(HEALTH_TIMEOUT):
                await self.database()
            checks["database"] = "ok"
        except TimeoutError:
            checks["database"] = "timeout"
        except Exception as error:  # the check says it failed; the log says why
            log.warning("health check: the database did not answer (%s)", type(error).__name__)
            checks["database"] = "error"
        ok = checks["database"] == "ok" and checks.get("gateway", "connected") == "connected"
        return Health(ok, checks)


async def _nothing() -> None:
    return None


class MetricsServer:
    """``/metrics`` and ``/healthz`` on an address of their own, apart from any public site.

    ``refresh`` runs before each scrape (gauges read from the database, bounded by their own
    cache).
    """

    def __init__(
        self,
        registry: CollectorRegistry,
        health: HealthCheck,
        *,
        refresh: Callable[[], Awaitable[None]] = _nothing,
    ) -> None:
        self.registry = registry
        self.health = health
        self.refresh = refresh
        self._runner: web.AppRunner | None = None

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        return app

    async def start(self, host: str, port: int) -> bool:
        """Listen on ``host``:``port``; whether it could (if not, the process runs on without
        metrics, saying why)."""
        runner = web.AppRunner(self.app(), access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, host, port).start()
        except OSError as error:
            await runner.cleanup()
            log.error(
                "Metrics: could not listen on %s:%d (%s); running without metrics",
                host,
                port,
                error.strerror or type(error).__name__,
            )
            return False
        self._runner = runner
        log.info("Metrics on http://%s:%d/metrics, health on /healthz", host, port)
        return True

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _metrics(self, _request: web.Request) -> web.Response:
        try:
            async with asyncio.timeout(HEALTH_TIMEOUT):
                await self.refresh()
        except Exception as error:  # the counters are still worth serving
            log.warning("metrics: reading the gauges failed (%s)", type(error).__name__)
        body = generate_latest(self.registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _healthz(self, _request: web.Request) -> web.Response:
        health = await self.health.check()
        body = {"status": "ok" if health.ok else "unavailable", **health.checks}
        return web.json_response(body, status=200 if health.ok else 503)
