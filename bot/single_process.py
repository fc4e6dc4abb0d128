"""One bot process per SQLite file: an operating-system lock on the database file itself.

SQLite serves one bot process (its engine keeps one connection, and the deadline sweeper and the
command sync count on no other process sharing the file); several processes need PostgreSQL. The
lock is ``flock``'s, taken without waiting: the kernel releases it when the process ends, however
it ends (a SIGKILL included), so a crash never leaves the file locked. ``flock`` locks are apart
from the POSIX record locks SQLite takes on the same file, and the descriptor is only closed once
the bot's engine is disposed (closing a descriptor drops the process's POSIX locks on the file).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy.engine import make_url

from db.engine import DEFAULT_URL


class AlreadyRunning(Exception):
    """Another bot process holds the SQLite file."""


def sqlite_file(url: str | None) -> Path | None:
    """The file a SQLite URL names (``None``: the default ``parlor.db``); ``None`` for another
    database or an in-memory one."""
    parsed = make_url(url or DEFAULT_URL)
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database or ""
    if parsed.query.get("uri") == "true":
        database = database.removeprefix("file:")
    if database in ("", ":memory:") or parsed.query.get("mode") == "memory":
        return None
    return Path(database).resolve()


def in_use_message(path: Path) -> str:
    return (
        f"The database file {path} is in use by another Parlor bot process. A SQLite file "
        "serves one bot process: stop the other one, or, to run several bot processes, use "
        "PostgreSQL (DATABASE_URL=postgresql+asyncpg://user:password@host/parlor in every "
        "process, each with SHARD_COUNT and its own SHARD_IDS; see docs/scaling.md)."
    )


@contextlib.contextmanager
def holding(url: str | None) -> Iterator[Path | None]:
    """Hold the SQLite file of ``url`` for this process until the block ends; the file held.

    Raises ``AlreadyRunning`` at once when another process holds it. Nothing is held for
    PostgreSQL or an in-memory database. Leave the block only once the bot's engine is disposed.
    """
    path = sqlite_file(url)
    if path is None or not path.parent.is_dir():
        yield None  # SQLite reports a missing directory itself, on first use
        return
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise AlreadyRunning(in_use_message(path)) from None
        yield path
    finally:
        os.close(descriptor)


def shards_left_out(
    url: str | None, shards: tuple[int, ...] | None, count: int | None
) -> str | None:
    """Why these shard settings cannot work on this database, or ``None`` when they can.

    On SQLite the one process must run every shard: shards it leaves out would reach no process.
    """
    if shards is None or count is None or sqlite_file(url) is None:
        return None
    missing = sorted(set(range(count)) - set(shards))
    if not missing:
        return None
    listed = ", ".join(map(str, missing))
    return (
        f"SHARD_IDS leaves shard {listed} to another process, but a "
        "SQLite file serves one bot process: leave SHARD_IDS unset to run every shard here, or "
        "use PostgreSQL (DATABASE_URL=postgresql+asyncpg://...) to spread the shards over "
        "several processes (see docs/scaling.md)."
    )
