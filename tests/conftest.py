"""Database fixtures shared by every test package: a database of its own for each test.

SQLite, in a file under the test's temporary directory, by default. With the environment variable
``PARLOR_TEST_DATABASE_URL`` set to a PostgreSQL server (e.g.
``postgresql+asyncpg://postgres@127.0.0.1:5432/test``), the run creates a database of its own on
that server (so concurrent runs never meet), resets its schema before each test and drops it at
the end.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import NullPool

from bot.i18n import mentions
from db.engine import create_engine, session_factory
from db.models import Base

TEST_DATABASE_URL_VARIABLE = "PARLOR_TEST_DATABASE_URL"


@pytest.fixture(scope="session")
def postgresql_database() -> Iterator[URL | None]:
    """A database of this run's own on the server named by the environment, if any."""
    server_url = os.environ.get(TEST_DATABASE_URL_VARIABLE)
    if not server_url:
        yield None
        return
    server = make_url(server_url)
    name = f"parlor_test_{uuid.uuid4().hex}"
    asyncio.run(_run_on_server(server, f'CREATE DATABASE "{name}"'))
    try:
        yield server.set(database=name)
    finally:
        asyncio.run(_run_on_server(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
async def database_url(postgresql_database: URL | None, tmp_path: Path) -> AsyncIterator[str]:
    """The URL of a database only this test uses, with every table created and empty."""
    if postgresql_database is None:
        url = f"sqlite+aiosqlite:///{tmp_path / 'parlor.db'}"
    else:
        url = postgresql_database.render_as_string(hide_password=False)
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            if postgresql_database is not None:
                # Whatever the previous test left, tables of its own included.
                await connection.execute(text("DROP SCHEMA public CASCADE"))
                await connection.execute(text("CREATE SCHEMA public"))
            await connection.run_sync(Base.metadata.create_all, checkfirst=False)
    finally:
        await engine.dispose()
    yield url


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    """An engine (``db.engine.create_engine``) on the test's database."""
    engine = create_engine(database_url)
    yield engine
    await engine.dispose()


@pytest.fixture
def sessions(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """The session factory the application would use on ``engine``."""
    return session_factory(engine)


async def _run_on_server(server: URL, statement: str) -> None:
    """Run a statement that cannot run in a transaction (CREATE/DROP DATABASE)."""
    admin = create_async_engine(server, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as connection:
            await connection.execute(text(statement))
    finally:
        await admin.dispose()


@pytest.fixture(autouse=True)
def command_ids() -> Iterator[None]:
    """Each test starts with no command IDs known: texts name commands ``/name`` until a bot of
    the test's own syncs (``bot.i18n.mentions``)."""
    mentions.forget()
    yield
    mentions.forget()
