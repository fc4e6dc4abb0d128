"""db.batch (statements for many matches at once) and db.writer (SQLite's writer thread).

The batch statements run through an ``AsyncSession`` (``run_sync``) on the test database, SQLite
or PostgreSQL; the writer only on SQLite files.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Connection, Engine, select, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from db import batch
from db import repository as repo
from db import writer as writer_module
from db.engine import create_engine
from db.migrate import upgrade
from db.models import MatchPlayer
from db.writer import has_writer, writer_for
from tests.db.plans import plans_recorded
from tests.db.test_repository import ALICE, BOB, CAROL, GUILD, NOW, add_match

Sessions = async_sessionmaker[AsyncSession]


async def test_select_matches_reads_many_matches_in_one_statement(sessions: Sessions) -> None:
    first, second = await add_match(sessions), await add_match(sessions, BOB, CAROL)
    unseated = await add_match(sessions, seated=False)
    async with sessions() as session:
        found = await session.run_sync(
            batch.on_connection, batch.select_matches, [first.id, second.id, unseated.id, 987654]
        )
    assert sorted(found) == sorted([first.id, second.id, unseated.id])
    assert found[second.id].players == [BOB, CAROL]
    assert found[unseated.id].players == [] and found[first.id].last_seq == 0
    assert found[first.id].match.status == "challenged"


async def test_write_matches_counts_only_the_changes_whose_version_held(
    sessions: Sessions,
) -> None:
    current, stale = await add_match(sessions), await add_match(sessions)
    changes = [
        (current.id, 0, {"status": "active"}),
        (stale.id, 7, {"status": "active"}),  # someone else is past version 7
    ]
    async with sessions.begin() as session:
        applied = await session.run_sync(batch.on_connection, batch.write_matches, changes, NOW)
        counted = session.get_bind().dialect.supports_sane_multi_rowcount
    assert applied == (1 if counted else None)  # asyncpg does not count
    async with sessions() as session:
        found = await session.run_sync(
            batch.on_connection, batch.select_matches, [current.id, stale.id]
        )
    assert (found[current.id].match.status, found[stale.id].match.status) == (
        "active",
        "challenged",
    )


async def test_write_matches_writes_each_match_its_own_columns(sessions: Sessions) -> None:
    first, second = await add_match(sessions), await add_match(sessions)
    changes = [(first.id, 0, {"status": "active"}), (second.id, 0, {"deadline_kind": "turn"})]
    async with sessions.begin() as session:
        applied = await session.run_sync(batch.on_connection, batch.write_matches, changes, NOW)
        assert applied in (2, None)
    async with sessions() as session:
        found = await session.run_sync(
            batch.on_connection, batch.select_matches, [first.id, second.id]
        )
    assert (found[first.id].match.status, found[first.id].match.deadline_kind) == ("active", None)
    assert (found[second.id].match.status, found[second.id].match.deadline_kind) == (
        "challenged",
        "turn",
    )
    assert found[first.id].match.version == found[second.id].match.version == 1


async def test_write_logs_and_players_for_several_matches(sessions: Sessions) -> None:
    first = await add_match(sessions, seated=False)
    second = await add_match(sessions, seated=False)
    logs: list[batch.Log] = [
        (first.id, 0, [(None, "a", None, {}), (1, "b", 1, {"x": 1})]),
        (second.id, 4, [(0, "c", None, {})]),
    ]
    async with sessions.begin() as session:
        await session.run_sync(batch.on_connection, batch.write_logs, logs, NOW)
        await session.run_sync(batch.on_connection, batch.write_players, [(first.id, [BOB, ALICE])])
    async with sessions() as session:
        first_log = await repo.get_events(session, first.id)
        second_log = await repo.get_events(session, second.id)
        players = await repo.get_players(session, first.id)
    assert [(e.seq, e.kind, e.audience) for e in first_log] == [(1, "a", None), (2, "b", 1)]
    assert [(e.seq, e.kind) for e in second_log] == [(5, "c")]
    assert [(p.seat, p.user_id) for p in players] == [(0, BOB), (1, ALICE)]


async def test_lock_records_creates_the_starting_record_once(sessions: Sessions) -> None:
    key = (GUILD, "flag", CAROL, False)
    now = datetime.now(UTC)

    def add_three_wins(connection: Connection) -> batch.StatsRow:
        fresh = batch.lock_records(connection, [key], now)[key]
        assert (fresh.wins, fresh.rating, fresh.deviation, fresh.volatility) == (0, 1500, 500, 0.09)
        fresh.wins = 3
        batch.save_records(connection, [fresh])
        return fresh

    def read(connection: Connection) -> batch.StatsRow:
        return batch.lock_records(connection, [key, key], now)[key]

    async with sessions.begin() as session:
        await session.run_sync(batch.on_connection, add_three_wins)
    async with sessions.begin() as session:
        again = await session.run_sync(batch.on_connection, read)
    assert again.wins == 3


async def test_lock_records_reads_many_records_at_once(sessions: Sessions) -> None:
    keys = [
        (GUILD, "flag", CAROL, False),
        (GUILD, "safe", ALICE, True),
        (GUILD, "flag", BOB, False),
    ]

    def draw_twice(connection: Connection) -> dict[batch.StatsKey, batch.StatsRow]:
        rows = batch.lock_records(connection, keys, datetime.now(UTC))
        rows[keys[1]].draws = 2
        batch.save_records(connection, list(rows.values()))
        return rows

    async with sessions.begin() as session:
        rows = await session.run_sync(batch.on_connection, draw_twice)
    async with sessions() as session:
        stored = await repo.get_stats(session, GUILD, "safe", ALICE, vs_bot=True)
        other = await repo.get_stats(session, GUILD, "flag", BOB)
    assert sorted(rows) == sorted(keys)
    assert stored is not None and other is not None
    assert (stored.draws, other.draws) == (2, 0)


async def test_results_added_concurrently_all_count(sessions: Sessions) -> None:
    key = (GUILD, "claim", ALICE, False)

    def add_win(connection: Connection) -> None:
        stats = batch.lock_records(connection, [key], datetime.now(UTC))[key]
        stats.wins += 1
        stats.games_played += 1
        batch.save_records(connection, [stats])

    async def one() -> None:
        async with sessions.begin() as session:
            await session.run_sync(batch.on_connection, add_win)

    await asyncio.gather(*(one() for _ in range(10)))

    async with sessions() as session:
        stats = await repo.get_stats(session, GUILD, "claim", ALICE)
    assert stats is not None
    assert (stats.wins, stats.games_played) == (10, 10)


async def test_lock_records_finds_each_record_through_its_key(tmp_path: Path) -> None:
    """With the whole key as a row value ``IN`` a list, SQLite read every record stored: 20 ms
    a finished match with 100,000 of them."""
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'plans.db'}")
    await upgrade(engine)
    keys = [
        (GUILD, "flag", CAROL, False),
        (GUILD, "safe", ALICE, True),
        (GUILD + 1, "flag", BOB, False),
        (GUILD, "flag", ALICE, False),
    ]
    try:
        with plans_recorded(engine) as plans:
            rows = await writer_for(engine).run(batch.lock_records, keys, NOW)
    finally:
        await engine.dispose()
    assert sorted(rows) == sorted(keys)
    assert [statement for statement in plans.explained if "FROM player_stats" in statement]
    assert not plans.scans, plans.scans


# ---------------------------------------------------------------------- the writer thread


@pytest.fixture
async def sqlite_engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'writer.db'}")
    await upgrade(engine)
    yield engine
    await engine.dispose()


REMEMBER = text("INSERT INTO bot_meta (key, value, updated_at) VALUES ('k', 'v', '2026-01-01')")
COUNT = text("SELECT count(*) FROM bot_meta")


async def test_the_writer_commits_on_the_callers_thread_when_the_database_is_free(
    sqlite_engine: AsyncEngine,
) -> None:
    writer = writer_for(sqlite_engine)
    assert writer_for(sqlite_engine) is writer

    def remember(connection: Connection) -> str:
        connection.execute(REMEMBER)
        return threading.current_thread().name

    assert await writer.run(remember) == threading.current_thread().name
    async with sqlite_engine.connect() as connection:
        assert await connection.scalar(COUNT) == 1


async def test_the_writer_waits_on_its_own_thread_while_another_connection_writes(
    sqlite_engine: AsyncEngine, tmp_path: Path
) -> None:
    writer = writer_for(sqlite_engine)
    other = sqlite3.connect(tmp_path / "writer.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process, say, in the middle of a write

    def remember(connection: Connection) -> str:
        connection.execute(REMEMBER)
        return threading.current_thread().name

    waiting = asyncio.ensure_future(writer.run(remember))
    await asyncio.sleep(0.2)  # the event loop goes on meanwhile
    assert not waiting.done()
    other.execute("COMMIT")
    other.close()
    name = await asyncio.wait_for(waiting, 10)
    assert name.startswith("parlor-sqlite") and name != threading.current_thread().name
    async with sqlite_engine.connect() as connection:
        assert await connection.scalar(COUNT) == 1


async def test_work_sent_to_the_writers_thread_runs_there(sqlite_engine: AsyncEngine) -> None:
    def remember(connection: Connection) -> str:
        connection.execute(REMEMBER)
        return threading.current_thread().name

    name = await writer_for(sqlite_engine).run_on_thread(remember)
    assert name.startswith("parlor-sqlite") and name != threading.current_thread().name
    async with sqlite_engine.connect() as connection:
        assert await connection.scalar(COUNT) == 1


async def test_checkpoints_run_on_the_writers_thread_and_cut_a_long_log_back(
    sqlite_engine: AsyncEngine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer_module, "CHECKPOINT_INTERVAL", 0.0)
    monkeypatch.setattr(writer_module, "TRUNCATE_FRAMES", 50)
    checkpoints: list[str] = []
    real = writer_module.checkpoint

    def checkpoint(engine: Engine) -> None:
        checkpoints.append(threading.current_thread().name)
        real(engine)

    monkeypatch.setattr(writer_module, "checkpoint", checkpoint)
    writer = writer_for(sqlite_engine)

    def write_pages(connection: Connection) -> None:
        connection.execute(text("CREATE TABLE IF NOT EXISTS filler (data BLOB)"))
        connection.execute(text("INSERT INTO filler VALUES (randomblob(400000))"))

    for _ in range(5):
        await writer.run(write_pages)
        await writer.run(lambda connection: None)  # waits for a running checkpoint
    assert checkpoints and all(name.startswith("parlor-sqlite") for name in checkpoints)
    # What the log held is in the database file now, and the log was cut back.
    assert (tmp_path / "writer.db").stat().st_size > 5 * 400_000
    assert (tmp_path / "writer.db-wal").stat().st_size < 400_000


async def test_the_writer_rolls_back_what_raised(sqlite_engine: AsyncEngine) -> None:
    writer = writer_for(sqlite_engine)

    def remember_then_fail(connection: Connection) -> None:
        connection.execute(REMEMBER)
        raise RuntimeError("refused")

    with pytest.raises(RuntimeError, match="refused"):
        await writer.run(remember_then_fail)
    async with sqlite_engine.connect() as connection:
        assert await connection.scalar(COUNT) == 0


async def test_the_writer_closes_with_its_engine_and_a_new_one_follows(
    sqlite_engine: AsyncEngine,
) -> None:
    writer = writer_for(sqlite_engine)
    assert await writer.run(lambda connection: connection.scalar(text("SELECT 1"))) == 1
    await sqlite_engine.dispose()
    with pytest.raises(RuntimeError, match="closed"):
        await writer.run(lambda connection: None)
    fresh = writer_for(sqlite_engine)
    assert fresh is not writer
    assert await fresh.run(lambda connection: connection.scalar(text("SELECT 2"))) == 2


async def test_only_sqlite_files_have_a_writer(tmp_path: Path) -> None:
    memory = create_engine("sqlite+aiosqlite://")
    postgres = create_engine("postgresql+asyncpg://postgres@127.0.0.1:5432/test")
    file = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    try:
        assert (has_writer(memory), has_writer(postgres), has_writer(file)) == (False, False, True)
        with pytest.raises(ValueError):
            writer_for(memory)
    finally:
        for engine in (memory, postgres, file):
            await engine.dispose()


async def test_seats_written_by_the_writer_are_read_by_the_engine(
    sqlite_engine: AsyncEngine,
) -> None:
    sessions = async_sessionmaker(sqlite_engine, expire_on_commit=False)
    match = await add_match(sessions, seated=False)
    await writer_for(sqlite_engine).run(batch.write_players, [(match.id, [CAROL, ALICE])])
    async with sessions() as session:
        seats = (await session.scalars(select(MatchPlayer).order_by(MatchPlayer.seat))).all()
    assert [(s.seat, s.user_id) for s in seats] == [(0, CAROL), (1, ALICE)]
