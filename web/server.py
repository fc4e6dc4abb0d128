"""``parlor web``: the site as a process of its own, reading the bot's database and never writing.

It never upgrades the schema either: that is the bot's (or ``parlor db upgrade``'s) to do, so a
database the bot has not upgraded yet is refused in one line that says what to run. Every
other reason it cannot start is one line too, naming the setting but not its value: exit
status 2 for a setting to change (an invalid one, a host it cannot listen on, a chart folder
that is not its own), 1 when the address is in use by another program (start again later).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from aiohttp import web
from prometheus_client import CollectorRegistry
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.metrics import HealthCheck, MetricsServer
from bot.service.member_history import series
from bot.settings import Settings, read_settings
from bot.single_process import sqlite_file
from db.engine import DEFAULT_URL, create_engine, session_factory
from db.gauges import answers
from db.migrate import is_current
from web.app import make_app
from web.chart_folder import FolderRefused
from web.metrics import counting
from web.security import BadProxies, trusted_networks

EXIT_SETTING = 2
"""A setting to change: invalid, a host this machine has not, a folder that is not ours, a
database not upgraded."""
EXIT_IN_USE = 1
"""The address is another program's: nothing to change here, start again once it is free."""
CHART_FOLDER = "parlor-web-charts"
"""The chart folder's name beside the database when ``WEB_CHART_DIR`` is unset."""

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
    """``WEB_CHART_DIR``, or ``parlor-web-charts`` in the data folder: beside the SQLite file,
    or in the working directory (where ``parlor.db`` would be) for another database."""
    if settings.web_chart_dir:
        return Path(settings.web_chart_dir)
    database = sqlite_file(settings.database_url)
    return (Path.cwd() if database is None else database.parent) / CHART_FOLDER


def refused(text: str) -> int:
    print(f"parlor web: {text}", file=sys.stderr)
    return EXIT_SETTING


def bind_problem(error: OSError) -> tuple[int, str]:
    """The exit status and the line for an address ``parlor web`` could not listen on."""
    if error.errno == errno.EADDRINUSE:
        return EXIT_IN_USE, (
            "WEB_PORT is in use on WEB_HOST by another program: stop it, or set WEB_PORT to "
            "a free port."
        )
    if isinstance(error, socket.gaierror) or error.errno == errno.EADDRNOTAVAIL:
        return EXIT_SETTING, (
            "invalid setting WEB_HOST: it is no address of this machine (e.g. 127.0.0.1, "
            "0.0.0.0 for every address, or ::)."
        )
    if error.errno == errno.EACCES:
        return EXIT_SETTING, (
            "WEB_PORT needs privileges this user has not (ports below 1024): set WEB_PORT to "
            "1024 or above and forward to it."
        )
    # The system's words, not the error's text: that holds the address.
    reason = os.strerror(error.errno) if error.errno else type(error).__name__
    return EXIT_IN_USE, f"cannot listen on WEB_HOST and WEB_PORT ({reason})."


async def serve(settings: Settings) -> int:
    """Check the settings and the database, then serve until cancelled; the exit status."""
    try:
        trusted_networks(settings.web_trusted_proxies)
    except BadProxies as error:
        return refused(f"invalid setting WEB_TRUSTED_PROXIES: {error}.")
    if missing_sqlite_file(settings.database_url):
        print(NOT_UPGRADED, file=sys.stderr)
        return EXIT_SETTING
    engine = read_only_engine(settings.database_url)
    try:
        if not await is_current(engine):
            print(NOT_UPGRADED, file=sys.stderr)
            return EXIT_SETTING
        try:
            app = make_app(
                session_factory(engine),
                chart_folder=chart_folder(settings),
                requests_per_minute=settings.web_requests_per_minute,
                trusted_proxies=settings.web_trusted_proxies,
                history=series,
            )
        except FolderRefused as error:
            return refused(
                "the chart folder (WEB_CHART_DIR, unset: parlor-web-charts beside the "
                f"database) is refused: {error}."
            )
        metrics = await serve_metrics(settings, engine, app)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        try:
            try:
                await web.TCPSite(runner, settings.web_host, settings.web_port).start()
            except OSError as error:
                status, line = bind_problem(error)
                print(f"parlor web: {line}", file=sys.stderr)
                return status
            stop = asyncio.Event()
            for signal_number in (signal.SIGINT, signal.SIGTERM):
                asyncio.get_running_loop().add_signal_handler(signal_number, stop.set)
            print(  # once a stop is heard: a signal right after this line stops it cleanly
                f"Parlor's web pages on http://{settings.web_host}:{settings.web_port}/ "
                f"(links: {settings.web_link_base()}/s/...); Ctrl+C stops.",
                flush=True,
            )
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
    settings = read_settings()
    logging.basicConfig(
        level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # Reading the schema's revision, Alembic logs how it talks to the database: nothing a
    # host of the pages needs, every start.
    logging.getLogger("alembic").setLevel(max(logging.WARNING, logging.getLogger().level))
    return asyncio.run(serve(settings))
