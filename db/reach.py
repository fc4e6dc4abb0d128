"""Whether the database answers, asked before anything else uses it.

The bot asks before it logs in to Discord, and ``parlor db upgrade`` before it upgrades: a
database that is down or out of reach is told in one line instead of a traceback. A failure that
may pass (the connection refused or timed out while the server starts, a name server busy) is
tried again a few times after a short, growing, jittered wait; one that will not (a host name
that does not exist, a password refused, a file that cannot be opened) is told at once. The URL
is shown without its password or query.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import random
import socket

import asyncpg
import sqlalchemy
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from db.engine import DEFAULT_URL, create_engine

log = logging.getLogger(__name__)

ATTEMPTS = 4
"""Attempts in all before a passing failure is told."""
FIRST_DELAY = 0.5
"""Seconds before the second attempt; each later delay doubles."""
ATTEMPT_TIMEOUT = 10.0
"""Seconds one attempt may take before it counts as timed out."""

PASSING_ERRNOS = frozenset(
    {
        errno.ECONNREFUSED,
        errno.ECONNRESET,
        errno.ECONNABORTED,
        errno.ETIMEDOUT,
        errno.ENETUNREACH,
        errno.EHOSTUNREACH,
    }
)
"""Connection failures a database starting, restarting or a network coming up gives."""
PASSING_POSTGRES = (asyncpg.CannotConnectNowError, asyncpg.TooManyConnectionsError)

UNREACHABLE = (
    "Could not reach the database at {url} ({reason}). Check DATABASE_URL and that the "
    "database server is running and accepts connections from here; then start again."
)
UNOPENED = (
    "Could not open the SQLite database {url} ({reason}). Check DATABASE_URL: the file's folder "
    "must exist and be writable by this user; then start again."
)


class DatabaseUnreachable(Exception):
    """The database did not answer; the message is one line for the host."""


def shown(url: str | None) -> str:
    """``url`` (``None``: the default file) without its password or query, for a message."""
    parsed = make_url(url or DEFAULT_URL)
    return parsed.set(query={}).render_as_string(hide_password=True)


def diagnosis(error: BaseException, url: str | None) -> tuple[str, bool]:
    """What went wrong connecting, in a few words, and whether trying again may mend it."""
    if isinstance(error, DBAPIError):  # SQLAlchemy's wrapping of the driver's error
        inner = error.orig.__cause__ if error.orig is not None else None
        if isinstance(inner, OSError | asyncpg.PostgresError):
            return diagnosis(inner, url)
        if error.orig is not None and error.orig.args:  # SQLite's own words, without the path
            return str(error.orig.args[0]), False
        return type(error.orig or error).__name__, False
    host = make_url(url or DEFAULT_URL).host
    if isinstance(error, socket.gaierror):
        if error.errno == socket.EAI_AGAIN:
            return f"the host name {host} could not be looked up for now (DNS)", True
        if error.errno == socket.EAI_NONAME:
            return f"the host name {host} was not found (DNS)", False
        return f"the host name {host} could not be looked up (DNS: {error.strerror})", False
    if isinstance(error, TimeoutError):
        return f"no answer within {ATTEMPT_TIMEOUT:g} s", True
    if isinstance(error, OSError) and error.errno is not None:
        return os.strerror(error.errno), error.errno in PASSING_ERRNOS
    if isinstance(error, asyncpg.InvalidPasswordError):
        return "the server refused the user name or password", False
    if isinstance(error, asyncpg.InvalidCatalogNameError):
        return "the server has no database of that name", False
    if isinstance(error, PASSING_POSTGRES):
        return "the server cannot take a connection now", True
    if isinstance(error, asyncpg.PostgresError):
        return f"the server refused: {type(error).__name__}", False
    return type(error).__name__, False


def delays(rng: random.Random) -> list[float]:
    """The waits between the attempts: doubling from ``FIRST_DELAY``, each between half and all
    of that, so that processes started together do not all come back at once."""
    return [rng.uniform(FIRST_DELAY * 2**n / 2, FIRST_DELAY * 2**n) for n in range(ATTEMPTS - 1)]


async def reach_database(url: str | None, *, rng: random.Random | None = None) -> None:
    """Return once the database at ``url`` answers a query; raise ``DatabaseUnreachable`` if it
    does not after ``ATTEMPTS`` attempts, or at once when trying again cannot help."""
    waits = delays(rng or random.Random())
    for attempt in range(1, ATTEMPTS + 1):
        try:
            await _ask(url)
            return
        except (OSError, DBAPIError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            reason, passing = diagnosis(error, url)
        if not passing or attempt == ATTEMPTS:
            if attempt > 1:
                reason = f"{reason}; tried {attempt} times"
            text = UNOPENED if _is_sqlite(url) else UNREACHABLE
            raise DatabaseUnreachable(text.format(url=shown(url), reason=reason))
        wait = waits[attempt - 1]
        log.warning(
            "Could not reach the database at %s (%s); trying again in %.1f s (attempt %d)",
            shown(url),
            reason,
            wait,
            attempt,
        )
        await asyncio.sleep(wait)


async def _ask(url: str | None) -> None:
    """One attempt: connect and run ``SELECT 1``."""
    if _is_sqlite(url):
        _open_sqlite(url)
        return
    engine = create_engine(url)
    try:
        async with asyncio.timeout(ATTEMPT_TIMEOUT), engine.connect() as connection:
            await connection.exec_driver_sql("SELECT 1")
    finally:
        await engine.dispose()


def _is_sqlite(url: str | None) -> bool:
    return make_url(url or DEFAULT_URL).get_backend_name() == "sqlite"


def _open_sqlite(url: str | None) -> None:
    """Open the SQLite database of ``url`` with the standard driver, as the bot's will.

    Not through aiosqlite: a connection it failed to open leaves its thread to report to an event
    loop that may be closed by then, with a traceback.
    """
    engine = sqlalchemy.create_engine(make_url(url or DEFAULT_URL).set(drivername="sqlite"))
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("SELECT 1")
    finally:
        engine.dispose()
