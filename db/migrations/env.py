"""Alembic's entry point for Parlor's schema: async engines, batch mode for SQLite.

``db.migrate.upgrade`` passes its own connection in ``config.attributes["connection"]``;
Alembic's command line gets one from ``-x url=...``, ``DATABASE_URL`` or the default SQLite file.
"""

from __future__ import annotations

import asyncio
import os
from logging.config import fileConfig
from typing import Any, Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlalchemy import func, select
from sqlalchemy.engine import Connection
from sqlalchemy.types import TypeDecorator

from db.engine import DEFAULT_URL, create_engine
from db.migrate import MIGRATION_LOCK
from db.models import Base

config = context.config
target_metadata = Base.metadata


def database_url() -> str:
    """The URL given on the command line, else ``DATABASE_URL``, else the default SQLite file."""
    given = context.get_x_argument(as_dictionary=True).get("url")
    return given or os.environ.get("DATABASE_URL") or DEFAULT_URL


def render_item(kind: str, obj: Any, _context: AutogenContext) -> str | Literal[False]:
    """Autogenerate's text for a column type: a model's own type becomes the type it stores.

    ``UTCDateTime`` is written ``sa.DateTime(timezone=True)``, so a migration never imports
    the models, which change after it.
    """
    if kind == "type" and isinstance(obj, TypeDecorator):
        return f"sa.{obj.impl!r}"
    return False


def run_migrations(connection: Connection) -> None:
    """Run the pending migrations on ``connection`` (not in a transaction) and commit them."""
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        # Batch mode rebuilds a SQLite table by copy, drop and rename; with foreign keys enforced,
        # dropping the old `matches` would cascade-delete every player and event row.
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        connection.commit()
        # Take the write lock before the current revision is read: a second upgrader waits, then
        # finds nothing to do. It also makes the DDL all-or-nothing.
        connection.exec_driver_sql("BEGIN IMMEDIATE")
    try:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=True,
            render_item=render_item,
        )
        with context.begin_transaction():
            if connection.dialect.name == "postgresql":
                # The same turn-taking on PostgreSQL, with a lock released at commit.
                connection.execute(select(func.pg_advisory_xact_lock(MIGRATION_LOCK)))
            context.run_migrations()
        connection.commit()
    finally:
        connection.rollback()  # only does something after a failure
        if sqlite:
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            connection.commit()


async def run_migrations_with_own_engine() -> None:
    engine = create_engine(database_url())
    try:
        async with engine.connect() as connection:
            await connection.run_sync(run_migrations)
    finally:
        await engine.dispose()


def run_migrations_offline() -> None:
    """Print the SQL instead of running it (``alembic upgrade --sql``)."""
    context.configure(
        url=database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


shared_connection = config.attributes.get("connection")
if context.is_offline_mode():
    run_migrations_offline()
elif shared_connection is not None:
    run_migrations(shared_connection)
else:
    if config.config_file_name is not None:
        fileConfig(config.config_file_name, disable_existing_loggers=False)
    asyncio.run(run_migrations_with_own_engine())
