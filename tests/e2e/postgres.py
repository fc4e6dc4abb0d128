"""A PostgreSQL database of a test's own, for bot processes sharing it (the shard tests).

Runs where a PostgreSQL server answers (``PARLOR_TEST_DATABASE_URL``); elsewhere the test is
skipped. The bots create the schema, as in production.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

from bot.fleet import SHARD
from tests.conftest import TEST_DATABASE_URL_VARIABLE


@contextlib.asynccontextmanager
async def own_database(prefix: str) -> AsyncIterator[AsyncEngine]:
    """An empty database named ``prefix`` and a random tail on the PostgreSQL server, dropped
    at the end; the engine is the test's, to read and to wind deadlines. Skips the test when
    no PostgreSQL server is given."""
    server_url = os.environ.get(TEST_DATABASE_URL_VARIABLE)
    if not server_url or make_url(server_url).get_backend_name() != "postgresql":
        pytest.skip(f"needs a PostgreSQL server ({TEST_DATABASE_URL_VARIABLE})")
    server = make_url(server_url)
    name = f"{prefix}_{uuid.uuid4().hex}"
    admin = create_async_engine(server, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    async with admin.connect() as connection:
        await connection.execute(text(f'CREATE DATABASE "{name}"'))
    engine = create_async_engine(server.set(database=name), poolclass=NullPool)
    try:
        yield engine
    finally:
        await engine.dispose()
        async with admin.connect() as connection:
            await connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()


def url_of(engine: AsyncEngine) -> str:
    return engine.url.render_as_string(hide_password=False)


async def shard_free(database: AsyncEngine, shard: int) -> None:
    """Wait until the server has ended the killed process's session, and with it its lock on
    the shard (at once on one machine; a service manager restarts after a pause anyway)."""
    held = text(
        "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database"
        " WHERE l.locktype = 'advisory' AND l.classid = :class AND l.objid = :shard"
        " AND l.granted AND d.datname = current_database()"
    )
    for _ in range(200):
        async with database.connect() as connection:
            if not await connection.scalar(held, {"class": SHARD, "shard": shard}):
                return
        await asyncio.sleep(0.05)
    raise AssertionError(f"shard {shard} stayed locked after its process was killed")
