"""Driver-level statements: the same rows as ``Connection.execute`` writes, on every database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any, cast

import pytest
from sqlalchemy import Table, bindparam, insert, literal_column, select, text, update
from sqlalchemy import event as sqlalchemy_event
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.ext.asyncio import AsyncEngine

from db.driver import DriverQuery, DriverStatement
from db.engine import session_factory
from db.models import Match, MatchEvent
from tests.db.test_repository import NOW, add_match

EVENTS = cast(Table, MatchEvent.__table__)
MATCHES = cast(Table, Match.__table__)
COLUMNS = ["match_id", "seq", "seat", "kind", "audience", "payload", "created_at"]


def event(match_id: int, seq: int, **changes: Any) -> dict[str, Any]:
    row = {
        "match_id": match_id,
        "seq": seq,
        "seat": 0,
        "kind": "action:move",
        "audience": None,
        "payload": {"text": "Zoë moved", "data": {"cells": [[0, 1], [None, True]], "n": 3}},
        "created_at": NOW,
    }
    return {**row, **changes}


async def test_rows_read_back_as_the_engines_own_execute_writes_them(
    engine: AsyncEngine,
) -> None:
    match = await add_match_on(engine)
    later = datetime(2026, 3, 1, 12, 30, 0, 7, tzinfo=timezone(timedelta(hours=2)))
    rows = [event(match, 1), event(match, 2, seat=None, audience=1, created_at=later)]
    async with engine.begin() as connection:
        await connection.execute(insert(EVENTS), rows)
        await connection.run_sync(
            DriverStatement(insert(EVENTS), COLUMNS).execute,
            [{**row, "seq": row["seq"] + 10} for row in rows],
        )
    async with engine.connect() as connection:
        read = (await connection.execute(select(EVENTS).order_by(EVENTS.c.seq))).mappings().all()
    by_engine, by_driver = read[:2], read[2:]
    for ours, theirs in zip(by_driver, by_engine, strict=True):
        assert {**ours, "id": 0, "seq": 0} == {**theirs, "id": 0, "seq": 0}
    assert by_driver[1]["created_at"] == later
    assert by_driver[1]["created_at"].utcoffset() == timedelta(0)
    # Stored as the same text too, so that SQL comparisons between old and new rows hold.
    async with engine.connect() as connection:
        stored = (await connection.execute(text("SELECT created_at FROM match_events"))).all()
    assert len({str(value) for (value,) in stored}) == 2


async def test_an_update_counts_its_rows_and_keeps_its_constants(engine: AsyncEngine) -> None:
    first, second = await add_match_on(engine), await add_match_on(engine)
    bump = DriverStatement(
        update(MATCHES)
        .where(MATCHES.c.id == bindparam("match_id"), MATCHES.c.version == bindparam("seen"))
        .values(status=bindparam("new_status"), version=MATCHES.c.version + 1)
    )
    later = NOW + timedelta(minutes=5)
    rows = [  # the column's onupdate default is not applied: it is a parameter like the others
        {"match_id": first, "seen": 0, "new_status": "active", "updated_at": later},
        {"match_id": second, "seen": 5, "new_status": "active", "updated_at": later},  # stale
    ]
    async with engine.begin() as connection:
        applied = await connection.run_sync(bump.execute, rows)
        counted = connection.dialect.supports_sane_multi_rowcount
    assert applied == (1 if counted else -1)
    async with engine.connect() as connection:
        read = await connection.execute(
            select(
                MATCHES.c.id, MATCHES.c.status, MATCHES.c.version, MATCHES.c.updated_at
            ).order_by(MATCHES.c.id)
        )
    bumped, stale = read.all()
    assert bumped == (first, "active", 1, later)
    assert stale[:3] == (second, "challenged", 0) and stale[3] != later


async def test_nothing_to_write_runs_nothing(engine: AsyncEngine) -> None:
    statement = DriverStatement(insert(EVENTS), COLUMNS)
    async with engine.begin() as connection:
        assert await connection.run_sync(statement.execute, []) == 0


async def test_a_missing_parameter_or_a_naive_timestamp_is_refused(engine: AsyncEngine) -> None:
    match = await add_match_on(engine)
    statement = DriverStatement(insert(EVENTS), COLUMNS)
    incomplete = event(match, 1)
    del incomplete["kind"]
    async with engine.connect() as connection:
        with pytest.raises(KeyError, match="kind"):
            await connection.run_sync(statement.execute, [incomplete])
    async with engine.connect() as connection:
        with pytest.raises((ValueError, StatementError), match="naive datetime"):
            naive = event(match, 1, created_at=datetime(2026, 1, 1))
            await connection.run_sync(statement.execute, [naive])


async def add_match_on(engine: AsyncEngine) -> int:
    return (await add_match(session_factory(engine))).id


def test_each_dialect_gets_its_own_compiled_form() -> None:
    statement = DriverStatement(insert(EVENTS), COLUMNS)
    sqlite = statement._compiled(SQLiteDialect_pysqlite())
    postgresql = statement._compiled(make_url("postgresql+asyncpg://").get_dialect()())
    assert "?" in sqlite.sql and "$7" in postgresql.sql
    assert "RETURNING" not in postgresql.sql  # an executemany returns nothing
    assert [name for name, _, _ in sqlite.parameters] == COLUMNS


# ---------------------------------------------------------------------- reads


WIDE = (
    select(MATCHES, EVENTS.c.seq, EVENTS.c.payload, EVENTS.c.created_at.label("logged_at"))
    .outerjoin(EVENTS, (EVENTS.c.match_id == MATCHES.c.id) & (EVENTS.c.seq == 1))
    .where(MATCHES.c.id.in_(bindparam("ids", expanding=True)), MATCHES.c.version >= 0)
    .order_by(MATCHES.c.id)
)
"""Every kind of column a match read holds (JSON, timestamps, booleans, nulls), one constant."""


@pytest.mark.parametrize("wanted", [[0], [0, 1], [2, 0, 1]], ids=len)
async def test_a_query_reads_what_the_engines_own_execute_reads(
    engine: AsyncEngine, wanted: list[int]
) -> None:
    matches = [await add_match_on(engine) for _ in range(3)]
    later = datetime(2026, 3, 1, 12, 30, 0, 7, tzinfo=UTC)
    async with engine.begin() as connection:
        await connection.execute(insert(EVENTS), [event(matches[1], 1, created_at=later)])
    ids = [matches[place] for place in wanted] + [987654]  # one that is not there
    async with engine.connect() as connection:
        by_engine = (await connection.execute(WIDE, {"ids": ids})).all()
        by_driver = await connection.run_sync(DriverQuery(WIDE, "ids").rows, ids)
    assert [list(row) for row in by_engine] == by_driver
    assert len(by_driver) == len(wanted)
    logged = [row for row in by_driver if row[-1] is not None]
    assert (1 in wanted) == bool(logged)
    for row in logged:
        assert row[-1] == later and row[-1].utcoffset() == timedelta(0)
        assert row[-2]["data"]["cells"] == [[0, 1], [None, True]]


async def test_a_query_goes_through_the_engines_listeners(engine: AsyncEngine) -> None:
    match = await add_match_on(engine)
    seen: list[str] = []

    def count(_: Any, __: Any, statement: str, parameters: Any, *___: Any) -> None:
        seen.append(statement)

    sqlalchemy_event.listen(engine.sync_engine, "before_cursor_execute", count)
    try:
        async with engine.connect() as connection:
            rows = await connection.run_sync(DriverQuery(WIDE, "ids").rows, [match])
    finally:
        sqlalchemy_event.remove(engine.sync_engine, "before_cursor_execute", count)
    assert [row[0] for row in rows] == [match]
    assert len(seen) == 1 and "FROM matches" in seen[0]


async def test_a_failed_query_raises_sqlalchemys_error_without_its_parameters(
    engine: AsyncEngine,
) -> None:
    secret = 424242
    missing = (
        select(text("x"))
        .select_from(text("no_such_table"))
        .where(literal_column("x").in_(bindparam("ids", expanding=True)))
    )
    async with engine.connect() as connection:
        with pytest.raises(DBAPIError) as raised:
            await connection.run_sync(DriverQuery(missing, "ids").rows, [secret])
    assert "no_such_table" in str(raised.value)
    assert str(secret) not in str(raised.value)
