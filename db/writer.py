"""One thread that writes to a SQLite file with a plain synchronous connection.

Through the async driver every statement is several hops between the event loop and the
driver's thread, and each hop costs more than the statement itself. Work sent here runs whole
on the writer's own thread: one hop for any number of statements. The match service sends it
the moves that arrive together (group commit); everything else keeps the async engine.

The writer belongs to the async engine it was made for: the same file, the same pragmas, and it
closes when that engine is disposed.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlalchemy import Connection, Engine, event
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy.ext.asyncio import AsyncEngine

from db.engine import ENGINE_OPTIONS, apply_sqlite_pragmas

P = ParamSpec("P")
T = TypeVar("T")

_WRITERS: weakref.WeakKeyDictionary[Engine, SqliteWriter] = weakref.WeakKeyDictionary()


class SqliteWriter:
    """Runs functions of a connection, each in a transaction of its own, on one thread."""

    def __init__(self, url: str) -> None:
        self._engine = create_sync_engine(url, **ENGINE_OPTIONS)
        event.listen(self._engine, "connect", apply_sqlite_pragmas)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parlor-sqlite")

    @property
    def engine(self) -> Engine:
        """The synchronous engine the thread writes with (for event listeners)."""
        return self._engine

    async def run(
        self, work: Callable[Concatenate[Connection, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``work(connection, ...)`` in a write transaction: committed if it returns, else
        rolled back. It runs on the writer's thread: it must not touch the event loop."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, self._transaction, work, args, kwargs)

    def _transaction(
        self, work: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> T:
        with self._engine.begin() as connection:
            # The write lock from the start, not from the first write: what ``work`` reads
            # stays true until it commits, and it never has to wait for the lock halfway.
            connection.exec_driver_sql("BEGIN IMMEDIATE")
            return work(connection, *args, **kwargs)

    def close(self) -> None:
        """Finish what was sent, then close the connection and the thread."""
        self._thread.submit(self._engine.dispose).result()
        self._thread.shutdown()


def has_writer(engine: AsyncEngine | None) -> bool:
    """Whether ``engine`` is a SQLite file, which ``writer_for`` serves.

    An in-memory database is private to its connection, so it gets no writer.
    """
    if engine is None:
        return False
    url = engine.url
    return url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:")


def writer_for(engine: AsyncEngine) -> SqliteWriter:
    """The writer of ``engine``, a SQLite file (made on first use, closed with the engine)."""
    if not has_writer(engine):
        raise ValueError(f"{engine.url.get_backend_name()} engine has no writer")
    url = engine.url
    sync_engine = engine.sync_engine
    writer = _WRITERS.get(sync_engine)
    if writer is None:
        writer = SqliteWriter(url.set(drivername="sqlite+pysqlite").render_as_string(False))
        _WRITERS[sync_engine] = writer
        event.listen(sync_engine, "engine_disposed", _close_writer)
    return writer


def _close_writer(sync_engine: Engine) -> None:
    writer = _WRITERS.pop(sync_engine, None)
    if writer is not None:
        writer.close()
