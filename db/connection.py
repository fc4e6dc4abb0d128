"""Where a query runs: a caller's session or Core connection, a transaction on either, and what
its SQL dialect asks of an INSERT."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
)

from db.models import Base

Db = AsyncSession | AsyncConnection
"""Where a query runs: a use case's Core connection (every use case of a match) or a session."""


def upsert(db: Db, model: type[Base]) -> sqlite.Insert | postgresql.Insert:
    """An INSERT that can take an ON CONFLICT clause, in the session's SQL dialect."""
    return upsert_in(dialect_of(db), model)


def upsert_in(dialect: str, model: type[Base]) -> sqlite.Insert | postgresql.Insert:
    """An INSERT that can take an ON CONFLICT clause, in ``dialect`` (``dialect_of``): for a
    statement built once per dialect and kept."""
    if dialect == "postgresql":
        return postgresql.insert(model)
    return sqlite.insert(model)


def dialect_of(db: Db) -> str:
    """The name of the SQL dialect ``db`` speaks."""
    return db.dialect.name if isinstance(db, AsyncConnection) else db.get_bind().dialect.name


async def core_connection(db: Db) -> AsyncConnection:
    """The Core connection under ``db``: statements built once run on it without the ORM's
    compile step."""
    return db if isinstance(db, AsyncConnection) else await db.connection()


@asynccontextmanager
async def core_transaction(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """``engine.begin()``, its connection closed by this task.

    SQLAlchemy's context manager closes the connection in a task of its own, which keeps the
    connection out of the pool for one more turn of the event loop, and every transaction that
    asks for it meanwhile waits in the pool's queue, where a latecomer may pass it. On SQLite
    the close never waits (``db.sqlite_inline``), so a use case's transaction never yields
    while it holds the only connection; a close cut short elsewhere discards its connection.
    """
    connection = await engine.connect()
    try:
        async with connection.begin():
            yield connection
    finally:
        await connection.close()


@asynccontextmanager
async def session_transaction(
    sessions: async_sessionmaker[AsyncSession],
) -> AsyncIterator[AsyncSession]:
    """``sessions.begin()``, its session closed by this task (as ``core_transaction``)."""
    session = sessions()
    try:
        async with session.begin():
            yield session
    finally:
        await session.close()


@asynccontextmanager
async def session_of(sessions: async_sessionmaker[AsyncSession]) -> AsyncIterator[AsyncSession]:
    """A session outside a transaction of its own (reads), closed by this task (as
    ``core_transaction``)."""
    session = sessions()
    try:
        yield session
    finally:
        await session.close()
