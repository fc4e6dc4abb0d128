"""What both benchmarks share: a database of their own, latency figures and a printed table."""

from __future__ import annotations

import argparse
import math
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
SQLITE_SIDE_FILES = ("", "-wal", "-shm", "-journal")


def add_database_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--database-url",
        metavar="URL",
        help="a PostgreSQL server to create a scratch database on, or a SQLite file that does "
        "not exist yet (default: a SQLite file in a temporary directory)",
    )


@asynccontextmanager
async def scratch_database(url: str | None, keep: Path | None = None) -> AsyncIterator[URL]:
    """The URL of a database only this run uses, removed afterwards.

    PostgreSQL: a database ``parlor_bench_<pid>`` created on the server ``url`` names (loopback
    only) and dropped at the end. SQLite: ``keep`` if given (left in place), else the file ``url``
    names (which must not exist yet), else a file in a temporary directory.
    """
    if url is not None and make_url(url).get_backend_name() == "postgresql":
        async with _postgresql_database(make_url(url)) as scratch:
            yield scratch
        return
    if keep is not None:
        yield make_url(f"sqlite+aiosqlite:///{keep}")
        return
    if url is not None:
        path = _new_sqlite_file(url)
        try:
            yield make_url(f"sqlite+aiosqlite:///{path}")
        finally:
            remove_sqlite(path)
        return
    directory = Path(tempfile.mkdtemp(prefix="parlor_bench_"))
    try:
        yield make_url(f"sqlite+aiosqlite:///{directory / 'parlor.db'}")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _new_sqlite_file(url: str) -> Path:
    path = Path(make_url(url).database or "")
    if not path.name or path.exists():
        raise SystemExit(f"{url}: give a SQLite file that does not exist yet")
    return path


@asynccontextmanager
async def _postgresql_database(server: URL) -> AsyncIterator[URL]:
    if server.host not in LOOPBACK:
        raise SystemExit(f"refusing {server.host!r}: benchmarks only use loopback servers")
    name = f"parlor_bench_{os.getpid()}"
    await _on_server(server, f'CREATE DATABASE "{name}"')
    try:
        yield server.set(database=name)
    finally:
        await _on_server(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def _on_server(server: URL, statement: str) -> None:
    """Run a statement that cannot run in a transaction (CREATE/DROP DATABASE)."""
    admin = create_async_engine(server, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as connection:
            await connection.execute(text(statement))
    finally:
        await admin.dispose()


def remove_sqlite(path: Path) -> None:
    """Delete a SQLite file with its WAL and shared-memory files."""
    for suffix in SQLITE_SIDE_FILES:
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def is_sqlite(url: URL) -> bool:
    return url.get_backend_name() == "sqlite"


def sqlite_file(url: URL) -> str:
    """The file a SQLite URL names, for the stdlib driver."""
    return url.database or ""


def asyncpg_dsn(url: URL) -> str:
    """A PostgreSQL URL as asyncpg's own DSN."""
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def describe(url: URL) -> str:
    """The database kind and where it is, without a password."""
    if is_sqlite(url):
        return f"SQLite {url.database}"
    return f"PostgreSQL {url.render_as_string(hide_password=True)}"


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile (``fraction`` 0.99 for p99); 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True)
class Timings:
    """Latencies (seconds) of one measured path, and the wall time it took in all."""

    path: str
    latencies: Sequence[float]
    wall: float

    @property
    def count(self) -> int:
        return len(self.latencies)

    @property
    def rate(self) -> float:
        return self.count / self.wall if self.wall else 0.0

    def ms(self, fraction: float) -> float:
        return 1000 * percentile(self.latencies, fraction)


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """A plain text table: the first column left-aligned, the others right-aligned."""
    cells = [[str(h) for h in headers], *[[_cell(v) for v in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        first = row[0].ljust(widths[0])
        rest = (value.rjust(width) for value, width in zip(row[1:], widths[1:], strict=True))
        return " | ".join((first, *rest))

    print(line(cells[0]))
    print("-+-".join("-" * w for w in widths))
    for row in cells[1:]:
        print(line(row))


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.2f}" if value < 100 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)
