"""Where a query runs: a caller's session or Core connection, and what its SQL dialect asks of
an INSERT."""

from __future__ import annotations

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from db.models import Base

Db = AsyncSession | AsyncConnection
"""Where a query runs: a use case's Core connection (every use case of a match) or a session."""


def upsert(db: Db, model: type[Base]) -> sqlite.Insert | postgresql.Insert:
    """An INSERT that can take an ON CONFLICT clause, in the session's SQL dialect."""
    if dialect_of(db) == "postgresql":
        return postgresql.insert(model)
    return sqlite.insert(model)


def dialect_of(db: Db) -> str:
    """The name of the SQL dialect ``db`` speaks."""
    return db.dialect.name if isinstance(db, AsyncConnection) else db.get_bind().dialect.name


async def core_connection(db: Db) -> AsyncConnection:
    """The Core connection under ``db``: statements built once run on it without the ORM's
    compile step."""
    return db if isinstance(db, AsyncConnection) else await db.connection()
