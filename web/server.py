"""``parlor web``: the site as a process of its own, reading the bot's database and never writing.

It never upgrades the schema either: that is the bot's (or ``parlor db upgrade``'s) to do, so a
database the bot has not upgraded yet is refused in one line that says what to run.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

from aiohttp import web
from prometheus_client import CollectorRegistry
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.metrics import HealthCheck, MetricsServer
from bot.service.member_history import series
from bot.settings import Settings
from db.engine import DEFAULT_URL, create_engine, session_factory
from db.gauges import answers
from db.migrate import is_current
from web.app import make_app
from web.metrics import counting

log = logging.getLogger(__name__)

NOT_UPGRADED = (
    "parlor web: the database is not up to date for this version of Parlor; run "
    "`parlor db upgrade` (or start the bot, which upgrades it), then `parlor web` again."
)


def read_only_engine(url: str | None) -> AsyncEngine:
    """An engine whose connections refuse to write: SQLite's ``query_only``, PostgreSQL's
    read-only transactions."""
    engine = create_engine(url)
    dialect = engine.dialect.name

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        try:
            if dialect == "sqlite":
                cursor.execute("PRAGMA query_only = ON")
            elif dialect == "postgresql":
                cursor.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
        finally:
            cursor.close()

    event.listen(engine.sync_engine, "connect", on_connect)
    return engine


def missing_sqlite_file(url: str | None) -> bool:
    """A SQLite URL whose file does not exist: opening it would create an empty one."""
    parsed = make_url(url or DEFAULT_URL)
    name = parsed.database
    return parsed.get_backend_name() == "sqlite" and name is not None and not Path(name).exists()


def chart_folder(settings: Settings) -> Path:
    if settings.web_chart_dir:
        return Path(settings.web_chart_dir)
    return Path(tempfile.gettempdir()) / "parlor-web-charts"


async def serve(settings: Settings) -> int:
    """Check the database, then serve until cancelled; the exit status."""
    if missing_sqlite_file(settings.database_url):
        print(NOT_UPGRADED, file=sys.stderr)
        return 2
    engine = read_only_engine(settings.database_url)
    try:
        if not await is_current(engine):
            print(NOT_UPGRADED, file=sys.stderr)
            return 2
        app = make_app(
            session_factory(engine),
            chart_folder=chart_folder(settings),
            requests_per_minute=settings.web_requests_per_minute,
            trusted_proxies=settings.web_trusted_proxies,
            history=series,
        )
        metrics = await serve_metrics(settings, engine, app)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, settings.web_host, settings.web_port).start()
            print(
                f"Parlor's web pages on http://{settings.web_host}:{settings.web_port}/ "
                f"(links: {settings.web_link_base()}/s/...); Ctrl+C stops.",
                flush=True,
            )
            stop = asyncio.Event()
            for signal_number in (signal.SIGINT, signal.SIGTERM):
                asyncio.get_running_loop().add_signal_handler(signal_number, stop.set)
            await stop.wait()
        finally:
            await runner.cleanup()
            if metrics is not None:
                await metrics.stop()
    finally:
        await engine.dispose()
    return 0


async def serve_metrics(
    settings: Settings, engine: AsyncEngine, app: web.Application
) -> MetricsServer | None:
    """With ``WEB_METRICS_PORT`` set: count ``app``'s requests, and serve ``/metrics`` and
    ``/healthz`` (the database answers) on ``METRICS_HOST`` at that port, apart from the site,
    whose visitors need not see them. ``app`` must not be started yet."""
    if settings.web_metrics_port is None:
        return None
    registry = CollectorRegistry()
    app.middlewares.insert(0, counting(registry))

    async def database_answers() -> None:
        async with engine.connect() as connection:
            await answers(connection)

    server = MetricsServer(registry, HealthCheck(database_answers))
    await server.start(settings.metrics_host, settings.web_metrics_port)
    return server


def main() -> int:
    """Serve the site with the settings from the environment and ``.env``."""
    settings = Settings()
    logging.basicConfig(
        level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    return asyncio.run(serve(settings))
