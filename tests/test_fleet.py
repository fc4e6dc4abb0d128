"""Bot processes on one PostgreSQL database: shards taken once, one count, turns, and a killed
process's shards free for its successor. On SQLite the fleet does nothing (one process)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from asyncio.subprocess import PIPE
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.fleet import COUNT_KEY, SHARD, Fleet, FleetRefused
from db.bot_meta import get_meta
from db.engine import create_engine, session_factory
from tests.conftest import TEST_DATABASE_URL_VARIABLE

ROOT = Path(__file__).resolve().parents[1]

MEMBER = """
import asyncio, sys
from bot.fleet import Fleet
from db.engine import create_engine

async def main() -> None:
    fleet = Fleet(create_engine(sys.argv[1]), [int(sys.argv[2])], int(sys.argv[3]))
    await fleet.join()
    print("joined", flush=True)
    await asyncio.sleep(600)

asyncio.run(main())
"""

Join = Callable[[Sequence[int] | None, int | None], Fleet]


@pytest.fixture
async def fleets(database_url: str) -> AsyncIterator[Join]:
    """Builds fleet members, each on an engine of its own (as in its own process)."""
    made: list[tuple[Fleet, AsyncEngine]] = []

    def member(shards: Sequence[int] | None, count: int | None) -> Fleet:
        engine = create_engine(database_url)
        fleet = Fleet(engine, shards, count)
        made.append((fleet, engine))
        return fleet

    yield member
    for fleet, engine in made:
        await fleet.leave()
        await engine.dispose()


@pytest.fixture
def postgresql(database_url: str) -> str:
    if not database_url.startswith("postgresql"):
        pytest.skip("several bot processes share PostgreSQL only (PARLOR_TEST_DATABASE_URL)")
    return database_url


async def recorded_count(fleet: Fleet) -> str | None:
    async with session_factory(fleet.engine)() as session:
        return await get_meta(session, COUNT_KEY)


async def test_on_sqlite_there_is_nothing_to_share(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'parlor.db'}")
    try:
        first, second = Fleet(engine, [0], 2), Fleet(engine, [0], 3)
        await first.join()
        await second.join()
        async with first.turn("commands"), second.turn("commands"):
            pass
    finally:
        await engine.dispose()


async def test_processes_run_disjoint_shards_of_one_count(postgresql: str, fleets: Join) -> None:
    first, second = fleets([0, 1], 4), fleets([2, 3], 4)
    await first.join()
    await second.join()
    assert await recorded_count(first) == "4"

    with pytest.raises(FleetRefused, match="Shard 1 is already run by another bot process"):
        await fleets([1], 4).join()
    with pytest.raises(FleetRefused, match=r"SHARD_COUNT=2 here, .* use SHARD_COUNT=4"):
        await fleets([0], 2).join()
    with pytest.raises(FleetRefused, match="Another Parlor bot process is running"):
        await fleets(None, None).join()

    # A refused process held nothing: once the first leaves, its shards can be taken.
    await first.leave()
    taker = fleets([0, 1], 4)
    await taker.join()


async def test_the_count_may_change_once_every_process_has_stopped(
    postgresql: str, fleets: Join
) -> None:
    first = fleets([0], 2)
    await first.join()
    await first.leave()
    changed = fleets([0, 1, 2], 3)
    await changed.join()
    assert await recorded_count(changed) == "3"


async def test_a_process_running_every_shard_runs_alone(postgresql: str, fleets: Join) -> None:
    alone = fleets(None, None)
    await alone.join()
    with pytest.raises(FleetRefused, match="runs every shard on this database"):
        await fleets([0], 2).join()
    with pytest.raises(FleetRefused, match="Another Parlor bot process is running"):
        await fleets(None, None).join()


async def test_processes_take_turns(postgresql: str, fleets: Join) -> None:
    first, second = fleets([0], 2), fleets([1], 2)
    await first.join()
    await second.join()
    order: list[str] = []
    entered, release = asyncio.Event(), asyncio.Event()

    async def take(fleet: Fleet, name: str, hold: asyncio.Event | None) -> None:
        async with fleet.turn("commands"):
            order.append(f"{name} in")
            entered.set()
            if hold is not None:
                await hold.wait()
            order.append(f"{name} out")

    holding = asyncio.create_task(take(first, "first", release))
    await entered.wait()
    waiting = asyncio.create_task(take(second, "second", None))
    await asyncio.sleep(0.2)  # the second asks for its turn meanwhile, and waits
    assert order == ["first in"] and not waiting.done()
    release.set()
    await asyncio.gather(holding, waiting)
    assert order == ["first in", "first out", "second in", "second out"]


async def test_a_killed_process_leaves_its_shard_free(postgresql: str, fleets: Join) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", MEMBER, postgresql, "1", "2", stdout=PIPE, env=env
    )
    try:
        assert process.stdout is not None and await process.stdout.readline() == b"joined\n"
        with pytest.raises(FleetRefused, match="Shard 1 is already run"):
            await fleets([1], 2).join()
        process.send_signal(signal.SIGKILL)
        await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    # The server ends the killed process's session as soon as it sees the connection closed.
    for _ in range(100):
        successor = fleets([1], 2)
        try:
            await successor.join()
            break
        except FleetRefused:
            await asyncio.sleep(0.05)
    else:
        pytest.fail("the killed process's shard stayed taken")


async def shard_holder(engine: AsyncEngine, shard: int, database: str | None = None) -> int | None:
    """The server process (backend pid) holding a shard's lock in ``database`` (default: the
    engine's), if any."""
    held = text(
        "SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database"
        " WHERE l.locktype = 'advisory' AND l.classid = :class AND l.objid = :shard"
        " AND l.granted AND d.datname = :database"
    )
    name = database or engine.url.database
    async with engine.connect() as connection:
        pid = await connection.scalar(held, {"class": SHARD, "shard": shard, "database": name})
    return None if pid is None else int(pid)


async def cut(engine: AsyncEngine, pid: int, database: str | None = None) -> None:
    """End a server session, as a database restart does."""
    async with engine.connect() as connection:
        await connection.execute(select(func.pg_terminate_backend(pid)))
    for _ in range(500):
        if await shard_holder(engine, 0, database) != pid:
            return
        await asyncio.sleep(0.01)
    pytest.fail(f"server process {pid} did not end")


async def test_a_process_cut_off_takes_its_shards_again(postgresql: str, fleets: Join) -> None:
    fleet = fleets([0], 2)
    await fleet.join()
    await fleet.hold()  # connected: nothing to do
    pid = await shard_holder(fleet.engine, 0)
    assert pid is not None
    await cut(fleet.engine, pid)
    assert await shard_holder(fleet.engine, 0) is None

    await fleet.hold()
    assert await shard_holder(fleet.engine, 0) not in (None, pid)


async def test_a_process_cut_off_whose_shard_was_taken_stops(postgresql: str, fleets: Join) -> None:
    fleet = fleets([0], 2)
    await fleet.join()
    pid = await shard_holder(fleet.engine, 0)
    assert pid is not None
    await cut(fleet.engine, pid)
    await fleets([0], 2).join()  # another process took shard 0 meanwhile

    with pytest.raises(FleetRefused, match="Shard 0 is already run"):
        await fleet.hold()


async def test_a_process_cut_off_while_the_database_is_down_retries(
    postgresql: str, fleets: Join
) -> None:
    fleet = fleets([0], 2)
    await fleet.join()
    name = make_url(postgresql).database
    pid = await shard_holder(fleet.engine, 0)
    assert pid is not None and name is not None
    # The server's other database: one cannot refuse connections to the database one is on.
    admin = create_engine(os.environ[TEST_DATABASE_URL_VARIABLE])
    allow = 'ALTER DATABASE "{}" ALLOW_CONNECTIONS {}'
    try:
        async with admin.connect() as connection:
            await connection.execute(text(allow.format(name, "false")))
            await connection.commit()
        await cut(admin, pid, name)
        with pytest.raises(DBAPIError):
            await fleet.hold()  # the database takes no new connection yet
        async with admin.connect() as connection:
            await connection.execute(text(allow.format(name, "true")))
            await connection.commit()
        await fleet.hold()
        assert await shard_holder(admin, 0, name) not in (None, pid)
    finally:
        async with admin.connect() as connection:
            await connection.execute(text(allow.format(name, "true")))
            await connection.commit()
        await admin.dispose()
