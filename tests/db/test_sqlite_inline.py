"""SQLite's statements on the event loop's thread, and a lock held by another process waited for
on a thread while the loop goes on."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from db.engine import create_engine
from db.sqlite_inline import connect_inline


@pytest.fixture
async def sqlite_engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'inline.db'}")

    @event.listens_for(engine.sync_engine, "connect")
    def thread_function(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.create_function("thread_id", 0, threading.get_ident)

    async with engine.begin() as connection:
        await connection.execute(text("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"))
    try:
        yield engine
    finally:
        await engine.dispose()


async def test_statements_run_on_the_event_loops_thread(sqlite_engine: AsyncEngine) -> None:
    async with sqlite_engine.connect() as connection:
        ran_on = (await connection.execute(text("SELECT thread_id()"))).scalar_one()

    assert ran_on == threading.get_ident()


async def test_a_write_waits_for_another_process_lock_without_holding_the_loop(
    sqlite_engine: AsyncEngine, tmp_path: Path
) -> None:
    other = sqlite3.connect(tmp_path / "inline.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process's write lock
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    async def write() -> None:
        async with sqlite_engine.begin() as connection:
            await connection.execute(text("INSERT INTO notes (body) VALUES ('waited')"))

    ticker = asyncio.create_task(tick())
    writing = asyncio.create_task(write())
    await asyncio.sleep(0.3)
    assert not writing.done()
    assert ticks >= 10, "the event loop was held while the lock was waited for"

    other.execute("COMMIT")
    await asyncio.wait_for(writing, timeout=5)
    ticker.cancel()
    other.close()
    async with sqlite_engine.connect() as connection:
        bodies = (await connection.execute(text("SELECT body FROM notes"))).scalars().all()
    assert bodies == ["waited"]


async def test_the_loop_does_not_wait_in_sqlite_busy_handler(sqlite_engine: AsyncEngine) -> None:
    async with sqlite_engine.connect() as connection:
        waits = (await connection.execute(text("PRAGMA busy_timeout"))).scalar_one()

    assert waits == 0


async def test_errors_other_than_busy_are_raised_at_once(sqlite_engine: AsyncEngine) -> None:
    async with sqlite_engine.connect() as connection:
        with pytest.raises(OperationalError, match="no such table"):
            await connection.execute(text("SELECT * FROM missing"))


async def test_a_rolled_back_transaction_leaves_nothing(sqlite_engine: AsyncEngine) -> None:
    with pytest.raises(RuntimeError):
        async with sqlite_engine.begin() as connection:
            await connection.execute(text("INSERT INTO notes (body) VALUES ('undone')"))
            raise RuntimeError("the use case failed")

    async with sqlite_engine.connect() as connection:
        count = (await connection.execute(text("SELECT count(*) FROM notes"))).scalar_one()
    assert count == 0


async def test_a_closed_connection_refuses_work(tmp_path: Path) -> None:
    connection = connect_inline([str(tmp_path / "closed.db")], {})
    await connection.close()

    with pytest.raises(sqlite3.ProgrammingError):
        connection.cursor()
