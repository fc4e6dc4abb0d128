"""SQLite connections for the async engine that run each statement on the event loop's thread.

aiosqlite runs every call (a cursor, a statement, its rows, a commit) on a thread of its own and
hands the result back to the event loop: about 30 hand-offs for one move, each a thread wake-up,
a self-pipe write and an event loop iteration, costing more than the statements themselves (a
move's three take about 0.05 ms in SQLite). Here a call runs where it is asked, and only when
SQLite answers "busy" (another process holds the write lock) is it handed to a thread, which
waits for the lock there as ``busy_timeout`` says, so the event loop never waits for a lock.

SQLAlchemy's aiosqlite dialect drives these objects through ``async_creator``, as it drives
aiosqlite's own: the connection and cursor methods below are the ones it calls.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

BUSY_WAIT_MS = 30_000
"""How long a statement handed to a thread waits for another process's write lock."""


def _busy(error: sqlite3.OperationalError) -> bool:
    return getattr(error, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


class InlineCursor:
    """A cursor whose statements run on the caller's thread unless SQLite is busy."""

    def __init__(self, connection: InlineConnection, cursor: sqlite3.Cursor) -> None:
        self._owner = connection
        self._cursor = cursor

    @property
    def description(self) -> Any:
        return self._cursor.description

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    @property
    def arraysize(self) -> int:
        return self._cursor.arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._cursor.arraysize = value

    async def __aenter__(self) -> InlineCursor:
        return self

    async def __aexit__(self, *_: object) -> None:
        self._cursor.close()

    async def execute(self, operation: str, parameters: Sequence[Any] = ()) -> InlineCursor:
        await self._owner.call(self._cursor.execute, operation, parameters)
        return self

    async def executemany(
        self, operation: str, parameters: Iterable[Sequence[Any]]
    ) -> InlineCursor:
        rows = list(parameters)
        await self._owner.call(self._cursor.executemany, operation, rows)
        return self

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        return self._cursor.fetchmany(self._cursor.arraysize if size is None else size)

    async def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    async def close(self) -> None:
        self._cursor.close()


class InlineConnection:
    """One SQLite connection, driven from the event loop's thread."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._sqlite: sqlite3.Connection | None = connection

    @property
    def _connection(self) -> sqlite3.Connection | None:
        """The open sqlite3 connection (``None`` once closed): SQLAlchemy's dialect asks for it
        by this name before a commit or a rollback, as it does of aiosqlite's."""
        return self._sqlite

    def _open(self) -> sqlite3.Connection:
        if self._sqlite is None:
            raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
        return self._sqlite

    @property
    def isolation_level(self) -> str | None:
        return self._open().isolation_level

    async def call(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` here; on SQLITE_BUSY, again on a thread that waits for the lock."""
        connection = self._open()
        try:
            return function(*args)
        except sqlite3.OperationalError as error:
            if not _busy(error):
                raise
        return await asyncio.to_thread(self._waiting, connection, function, *args)

    @staticmethod
    def _waiting(connection: sqlite3.Connection, function: Callable[..., T], *args: Any) -> T:
        connection.execute(f"PRAGMA busy_timeout={BUSY_WAIT_MS}")
        try:
            return function(*args)
        finally:
            connection.execute("PRAGMA busy_timeout=0")

    def cursor(self) -> InlineCursor:
        return InlineCursor(self, self._open().cursor())

    async def commit(self) -> None:
        await self.call(self._open().commit)

    async def rollback(self) -> None:
        await self.call(self._open().rollback)

    async def close(self) -> None:
        self.stop()

    def stop(self) -> None:
        """Close at once (the pool's terminate): nothing runs elsewhere to wait for."""
        if self._sqlite is not None:
            self._sqlite.close()
            self._sqlite = None

    async def create_function(self, *args: Any, **kwargs: Any) -> None:
        self._open().create_function(*args, **kwargs)


def connect_inline(args: Sequence[Any], options: Mapping[str, Any]) -> InlineConnection:
    """Open SQLite as the dialect would (``args``/``options`` from its ``create_connect_args``)
    for the event loop's thread, usable from the fallback's threads too."""
    connection = sqlite3.connect(*args, **{**options, "check_same_thread": False})
    connection.execute("PRAGMA busy_timeout=0")
    return InlineConnection(connection)
