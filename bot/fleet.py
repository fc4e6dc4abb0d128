"""Bot processes sharing one PostgreSQL database: which shards each runs, and turns between them.

Each process keeps one connection of its own for as long as it runs, and holds PostgreSQL
session-level advisory locks on it: one per shard it runs, and a membership lock, shared by the
processes that run some of the shards (``SHARD_IDS``) and exclusive for a process that runs them
all. PostgreSQL releases a session's locks when its connection ends, so a process that dies,
even by SIGKILL, leaves its shards free for its successor, and no record goes stale.

A process refuses to start (``FleetRefused``) when another process runs one of its shards, when
another runs every shard, or when its ``SHARD_COUNT`` differs from the count the running
processes recorded in ``bot_meta``. Starts take turns, so two processes never check at once.

On SQLite there is one process (``bot.single_process``) and nothing here is needed: every method
does nothing.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Sequence

from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession

from db.bot_meta import get_meta, set_meta
from db.models import utcnow

log = logging.getLogger(__name__)

FLEET = 0x50524C46
"""Advisory lock class of the fleet's own locks ("PRLF"); two-key locks never meet the one-key
locks the match service takes (members' ids, migrations)."""
SHARD = 0x50524C53
"""Advisory lock class of the shards: one lock per shard id ("PRLS")."""
STARTING = 0
"""Key of the lock a starting process holds while it checks and joins."""
MEMBER = 1
"""Key of the membership lock: shared by sharded processes, exclusive for one running all."""
COUNT_KEY = "shard_count"
"""The ``bot_meta`` key of the running processes' ``SHARD_COUNT``."""

TURNS = {"commands": 2}
"""Work one process at a time does, by name: its lock key."""


class FleetRefused(Exception):
    """This process may not run beside the processes already running on the database."""


class Fleet:
    """This process's place among the bot processes on one database.

    ``shards`` are the shard ids it runs, of ``count`` in all; ``None`` for every shard (one
    process alone).
    """

    def __init__(
        self, engine: AsyncEngine, shards: Sequence[int] | None, count: int | None
    ) -> None:
        self.engine = engine
        self.shards = tuple(shards) if shards is not None else None
        self.count = count
        self._connection: AsyncConnection | None = None
        self._joined = False
        """Whether this process runs its shards (then it must hold their locks)."""

    @property
    def shared(self) -> bool:
        """Whether other processes may share the database (PostgreSQL)."""
        return self.engine.dialect.name == "postgresql"

    async def join(self) -> None:
        """Take this process's shards, or refuse with ``FleetRefused`` saying why."""
        if not self.shared or self._connection is not None:
            return
        connection = await self.engine.connect()
        try:
            async with connection.begin():
                await connection.execute(select(func.pg_advisory_xact_lock(FLEET, STARTING)))
                await self._check_and_take(connection)
        except BaseException:
            await _discard(connection)  # and the locks taken before the refusal
            raise
        self._connection = connection
        self._joined = True
        if self.shards is None:
            log.info("Running every shard; no other bot process may use this database")
        else:
            listed = ", ".join(map(str, self.shards))
            log.info("Running shard %s of %s on a shared database", listed, self.count)

    async def _check_and_take(self, connection: AsyncConnection) -> None:
        alone = await _try_lock(connection, MEMBER)
        if self.shards is None:
            if not alone:
                raise FleetRefused(
                    "Another Parlor bot process is running on this database. To run several "
                    "processes on one PostgreSQL database, give each SHARD_COUNT (the same in "
                    "all) and SHARD_IDS (the shards it runs); see docs/scaling.md."
                )
            return
        async with AsyncSession(bind=connection) as session:
            if alone:
                # No process runs: this one's count is the count from now on.
                await connection.execute(select(func.pg_advisory_unlock(FLEET, MEMBER)))
                await set_meta(session, COUNT_KEY, str(self.count), utcnow())
            else:
                recorded = await get_meta(session, COUNT_KEY)
                if recorded is not None and int(recorded) != self.count:
                    raise FleetRefused(
                        f"SHARD_COUNT={self.count} here, but the bot processes running on this "
                        f"database use SHARD_COUNT={recorded}: every process needs the same "
                        "count. To change it, stop them all, then start each with the new count."
                    )
        if not await _try_lock(connection, MEMBER, shared=True):
            raise FleetRefused(
                "Another Parlor bot process runs every shard on this database (it has no "
                "SHARD_IDS): stop it, or give it SHARD_COUNT and SHARD_IDS like this one."
            )
        assert self.shards is not None
        for shard in self.shards:
            taken = await connection.scalar(select(func.pg_try_advisory_lock(SHARD, shard)))
            if not taken:
                raise FleetRefused(
                    f"Shard {shard} is already run by another bot process on this database: "
                    "give each process its own SHARD_IDS."
                )

    async def hold(self) -> None:
        """Make sure this process still holds its shards, and take them again if its connection
        was cut (a database restart ends every session, and their locks with them); raises
        ``FleetRefused`` when another process took one meanwhile."""
        if not self._joined:
            return
        connection = self._connection
        if connection is not None:
            try:
                await connection.execute(select(1))
                await connection.commit()
                return
            except (SQLAlchemyError, OSError):
                log.warning("The connection holding this process's shards was lost")
            self._connection = None
            await _discard(connection)
        await self.join()  # raises while the database cannot be reached: the next call retries
        log.info("This process holds its shards again")

    def runs(self, guild_id: int) -> bool:
        """Whether this process runs the shard that gets ``guild_id``'s events."""
        if self.shards is None or self.count is None:
            return True
        return (guild_id >> 22) % self.count in self.shards

    async def leave(self) -> None:
        """Give this process's shards up: its connection goes, and every lock with it."""
        connection, self._connection = self._connection, None
        self._joined = False
        if connection is not None:
            await _discard(connection)

    @contextlib.asynccontextmanager
    async def turn(self, work: str) -> AsyncIterator[None]:
        """Do ``work`` (a name in ``TURNS``) while no other process does it: the others wait."""
        connection = self._connection
        if connection is None:
            yield
            return
        key = TURNS[work]
        await connection.execute(select(func.pg_advisory_lock(FLEET, key)))
        await connection.commit()
        try:
            yield
        finally:
            await connection.execute(select(func.pg_advisory_unlock(FLEET, key)))
            await connection.commit()


async def _try_lock(connection: AsyncConnection, key: int, *, shared: bool = False) -> bool:
    lock = func.pg_try_advisory_lock_shared if shared else func.pg_try_advisory_lock
    return bool(await connection.scalar(select(lock(FLEET, key))))


async def _discard(connection: AsyncConnection) -> None:
    """Close ``connection`` for good, not back into the pool: its session's locks end with it
    (a connection already cut is simply dropped)."""
    with contextlib.suppress(SQLAlchemyError, OSError):
        await connection.invalidate()
    with contextlib.suppress(SQLAlchemyError, OSError):
        await connection.close()
