"""Writes to a SQLite file through plain synchronous connections, one transaction per call.

Through the async driver every statement is several hops between the event loop and the
driver's thread, and each hop costs more than the statement itself. Work sent here runs whole,
in one transaction, on a synchronous connection:

* ``run``: on the caller's thread (the event loop's) when the database is free. In WAL mode
  a commit does not wait for the disk, so short work is Python and memory work; the
  interpreter lock would mostly hold the event loop back while a writer thread ran it, and the
  hops to that thread and back cost more than they save (``bench.service``);
* ``run_on_thread``, and ``run`` when another connection holds the write lock (another
  process, or this one's async engine): on the writer's own thread, which waits for the lock
  as long as SQLite's busy timeout says while the event loop goes on. Longer work goes there
  too, so that the event loop is not held up behind it.

The part of SQLite's work that does wait for the disk, the checkpoint (copying the write-ahead
log back into the database file), runs on the writer's thread as well, between transactions,
every ``CHECKPOINT_INTERVAL`` while writes go on: never inside a commit, where SQLite would run
it on its own every 1,000 pages (35-50 ms on a virtual disk), and the event loop would wait.

The match service sends its batches of moves here (group commit); everything else keeps the
async engine.

The writer belongs to the async engine it was made for: the same file, the same pragmas, and it
closes when that engine is disposed.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlalchemy import Connection, Engine, event
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from db.engine import ENGINE_OPTIONS, apply_sqlite_pragmas, execute_pragmas

P = ParamSpec("P")
T = TypeVar("T")

log = logging.getLogger(__name__)

CHECKPOINT_INTERVAL = 0.1
"""Seconds between checkpoints while writes go on: each copies what the last one left."""
TRUNCATE_FRAMES = 16_000
"""A log this long (about 64 MB) is checkpointed whole and cut back, writers waiting meanwhile.

A checkpoint that runs while writes go on copies what was there when it began, and the log
starts again from its beginning only once everything in it was copied; under constant writes
that moment may not come, and a long log makes every read slower."""
_SQLITE_BUSY = 5

_WRITERS: weakref.WeakKeyDictionary[Engine, SqliteWriter] = weakref.WeakKeyDictionary()


class _Busy(Exception):
    """Another connection holds the database's write lock."""


class SqliteWriter:
    """Runs functions of a connection, each in a transaction of its own, one at a time."""

    def __init__(self, url: str) -> None:
        self._engine = write_engine(url)
        self._inline = write_engine(url, wait=False)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parlor-sqlite")
        self._closed = False
        self._checkpointing: Future[None] | None = None
        self._last_checkpoint = time.monotonic()

    @property
    def engines(self) -> tuple[Engine, Engine]:
        """The synchronous engines it writes with (for event listeners): the event loop's,
        then the thread's."""
        return self._inline, self._engine

    async def run(
        self, work: Callable[Concatenate[Connection, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``work(connection, ...)`` in a write transaction: committed if it returns, else
        rolled back. It runs on the event loop's thread, which it holds meanwhile, unless the
        database is busy (then as ``run_on_thread``): for work of a few milliseconds. It must
        not touch the event loop."""
        self._check_open()
        if not self._is_checkpointing():
            try:
                result = in_transaction(self._inline, work, args, kwargs, wait=False)
            except _Busy:
                pass
            else:
                self._checkpoint_soon()
                return result
        return await self.run_on_thread(work, *args, **kwargs)

    async def run_on_thread(
        self, work: Callable[Concatenate[Connection, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """As ``run``, on the writer's thread: the event loop goes on meanwhile (for longer
        work). It must not touch the event loop."""
        self._check_open()
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(
            self._thread, in_transaction, self._engine, work, args, kwargs, True
        )
        self._checkpoint_soon()
        return result

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("this SQLite writer is closed")

    def _is_checkpointing(self) -> bool:
        return self._checkpointing is not None and not self._checkpointing.done()

    def _checkpoint_soon(self) -> None:
        """Start a checkpoint on the writer's thread, unless one runs or ran just now."""
        if self._is_checkpointing():
            return
        now = time.monotonic()
        if now - self._last_checkpoint < CHECKPOINT_INTERVAL:
            return
        self._last_checkpoint = now
        self._checkpointing = self._thread.submit(checkpoint, self._engine)

    def close(self) -> None:
        """Finish what was sent, then close the connections and the thread."""
        self._closed = True
        self._thread.submit(self._engine.dispose).result()
        self._thread.shutdown()
        self._inline.dispose()


def write_engine(url: str, *, wait: bool = True) -> Engine:
    """A synchronous engine for writing to the SQLite file at ``url``: the async engine's
    pragmas, and no checkpoint inside a commit (``checkpoint`` runs them). Without ``wait``,
    its connections never wait for a lock held elsewhere."""
    engine = create_sync_engine(url, **ENGINE_OPTIONS)
    pragmas = _apply_thread_pragmas if wait else _apply_inline_pragmas
    event.listen(engine, "connect", pragmas)
    return engine


def checkpoint(engine: Engine) -> None:
    """Copy the write-ahead log back into the database file, as far as readers allow; a log
    past ``TRUNCATE_FRAMES`` is copied whole and cut back."""
    try:
        with engine.connect() as connection:
            row = connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").one()
            if row[1] >= TRUNCATE_FRAMES:
                connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    except Exception:  # the next one tries again; a failed checkpoint loses nothing
        log.warning("SQLite checkpoint failed", exc_info=True)


def in_transaction(
    engine: Engine,
    work: Callable[..., T],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    wait: bool,
) -> T:
    """``work`` in a transaction that holds the write lock from its start. Without ``wait``,
    ``_Busy`` at once if another connection holds it."""
    with engine.begin() as connection:
        # The write lock from the start, not from the first write: what ``work`` reads
        # stays true until it commits, and it never has to wait for the lock halfway.
        try:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        except OperationalError as error:
            if not wait and _is_busy(error):
                raise _Busy from error
            raise
        return work(connection, *args, **kwargs)


def _is_busy(error: OperationalError) -> bool:
    """SQLite's SQLITE_BUSY, or one of its extended codes."""
    code = getattr(error.orig, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF == _SQLITE_BUSY


def _apply_thread_pragmas(dbapi_connection: Any, connection_record: Any) -> None:
    """No checkpoint in a commit: the writer runs them on its own (``_checkpoint_soon``)."""
    apply_sqlite_pragmas(dbapi_connection, connection_record)
    execute_pragmas(dbapi_connection, ["PRAGMA wal_autocheckpoint=0"])


def _apply_inline_pragmas(dbapi_connection: Any, connection_record: Any) -> None:
    """The event loop's connection never waits: not for the lock (its work goes to the
    writer's thread instead), nor for a checkpoint (the thread runs them)."""
    _apply_thread_pragmas(dbapi_connection, connection_record)
    execute_pragmas(dbapi_connection, ["PRAGMA busy_timeout=0"])


def has_writer(engine: AsyncEngine | None) -> bool:
    """Whether ``engine`` is a SQLite file, which ``writer_for`` serves.

    An in-memory database is private to its connection, so it gets no writer.
    """
    if engine is None:
        return False
    url = engine.url
    return url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:")


def sync_url(engine: AsyncEngine) -> str:
    """The URL of ``engine``'s SQLite file for the synchronous driver."""
    return engine.url.set(drivername="sqlite+pysqlite").render_as_string(False)


def writer_for(engine: AsyncEngine) -> SqliteWriter:
    """The writer of ``engine``, a SQLite file (made on first use, closed with the engine)."""
    if not has_writer(engine):
        raise ValueError(f"{engine.url.get_backend_name()} engine has no writer")
    sync_engine = engine.sync_engine
    writer = _WRITERS.get(sync_engine)
    if writer is None:
        writer = SqliteWriter(sync_url(engine))
        _WRITERS[sync_engine] = writer
        event.listen(sync_engine, "engine_disposed", _close_writer)
    return writer


def _close_writer(sync_engine: Engine) -> None:
    writer = _WRITERS.pop(sync_engine, None)
    if writer is not None:
        writer.close()
