"""The database engine and session factory: SQLite by default, PostgreSQL when a URL says so."""

from __future__ import annotations

from typing import Any

import orjson
from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from db.sqlite_inline import InlineConnection, connect_inline

DEFAULT_URL = "sqlite+aiosqlite:///parlor.db"
"""A ``parlor.db`` file in the working directory."""

SQLITE_PRAGMAS = (
    # Readers never block the writer and the writer never blocks readers.
    "PRAGMA journal_mode=WAL",
    "PRAGMA foreign_keys=ON",
    # Safe with WAL (a power cut may lose the last commits, never corrupt the file).
    "PRAGMA synchronous=NORMAL",
)

POSTGRES_POOL: dict[str, Any] = {
    "pool_size": 10,
    "max_overflow": 10,
    "pool_timeout": 30,
    # Connections idle for long may have been cut by the server or a proxy.
    "pool_pre_ping": True,
    "pool_recycle": 1800,
}


ENGINE_OPTIONS: dict[str, Any] = {
    # Statement parameters stay out of error texts: they hold match states, and so secrets.
    "hide_parameters": True,
    # Every move reads and writes its state as JSON: orjson does it several times faster.
    "json_serializer": lambda value: orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode(),
    "json_deserializer": orjson.loads,
}


def create_engine(url: str | None = None) -> AsyncEngine:
    """An async engine for ``url`` (``None``: the SQLite file ``parlor.db`` here).

    SQLite takes one writer at a time, so its engine keeps one connection: the process's
    transactions queue for it in the pool rather than in SQLite's busy loop. PostgreSQL gets a
    bounded pool.
    """
    parsed = make_url(url or DEFAULT_URL)
    if parsed.get_backend_name() == "sqlite":
        engine = _sqlite_engine(parsed)
        event.listen(engine.sync_engine, "connect", _on_sqlite_connect)
        return engine
    if parsed.get_backend_name() == "postgresql":
        return create_async_engine(parsed, **ENGINE_OPTIONS, **POSTGRES_POOL)
    return create_async_engine(parsed, **ENGINE_OPTIONS)


def _sqlite_engine(url: URL) -> AsyncEngine:
    """One connection whose statements run on the event loop's thread (``db.sqlite_inline``),
    opened from ``url`` as SQLite's dialect reads it."""
    connect_with: list[Any] = []

    async def connect() -> InlineConnection:
        return connect_inline(*connect_with)

    engine = create_async_engine(
        url, **ENGINE_OPTIONS, pool_size=1, max_overflow=0, async_creator=connect
    )
    connect_with.extend(engine.dialect.create_connect_args(url))
    return engine


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions bound to ``engine`` whose objects stay readable after commit."""
    return async_sessionmaker(engine, expire_on_commit=False)


def bound_engine(sessions: async_sessionmaker[AsyncSession]) -> AsyncEngine:
    """The engine ``sessions`` are bound to (as ``session_factory`` binds them).

    A use case of a match runs on one of its Core connections rather than in a session: the
    session's unit of work is bookkeeping a move never uses.
    """
    bind = sessions().bind
    if not isinstance(bind, AsyncEngine):
        raise TypeError("sessions must be bound to an AsyncEngine")
    return bind


def _on_sqlite_connect(dbapi_connection: Any, _connection_record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        for pragma in SQLITE_PRAGMAS:
            cursor.execute(pragma)
    finally:
        cursor.close()


async def optimize(engine: AsyncEngine) -> None:
    """Refresh SQLite's planner statistics (cheap: bounded by ``analysis_limit``).

    Without them SQLite picks the wrong index on a server with many finished matches. PostgreSQL
    keeps its own statistics, so this does nothing there.
    """
    if engine.dialect.name != "sqlite":
        return
    async with engine.begin() as connection:
        await connection.exec_driver_sql("PRAGMA analysis_limit=1000")
        await connection.exec_driver_sql("PRAGMA optimize=0x10002")
