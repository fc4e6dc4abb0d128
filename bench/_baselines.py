"""The baselines ``bench.service`` measures the service against, each move one transaction of
three statements (read the match, update it with a version check, append an event):

* the floor, on the raw driver: sqlite3 on one connection, or an asyncpg pool the engine's size;
* the Core path: a Core connection from the engine, statements built once (the yardstick);
* the naive path: the same through a SQLAlchemy session, one per move.

Both close their connection as the service's use cases do (``db.connection``), so that the
service is measured against the best the engine does.

They play no game: they rewrite a match's state as it is, so any open match serves.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sqlite3
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from typing import Any

import asyncpg
from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bench._common import Timings, asyncpg_dsn
from bench._service_play import Run, Tally, measured, retrying
from db.connection import core_transaction, session_transaction
from db.engine import POSTGRES_POOL, SQLITE_PRAGMAS
from db.models import Base, Match, MatchEvent

FLOOR_SEQ, NAIVE_SEQ, CORE_SEQ, OPENING_SEQ = 100_000_000, 200_000_000, 300_000_000, 400_000_000
"""Baseline events are numbered from here on, clear of the service's own and of each other's."""

SELECT_SQL = "SELECT * FROM matches WHERE id = {0}"
UPDATE_SQL = (
    "UPDATE matches SET state = {0}, version = version + 1, updated_at = {1} "
    "WHERE id = {2} AND version = {3}"
)
INSERT_SQL = (
    "INSERT INTO match_events (match_id, seq, seat, kind, audience, payload, created_at) "
    "VALUES ({0}, {1}, {2}, {3}, {4}, {5}, {6})"
)
SQLITE_TIME = "%Y-%m-%d %H:%M:%S.%f"
"""How SQLAlchemy stores a UTC timestamp in SQLite."""


def event_payload(seq: int) -> dict[str, Any]:
    """An event about as large as a move's."""
    return {"text": "{p0} plays move " + str(seq), "data": {"seat": 0, "action": "MOVE 2 2"}}


async def naive_move(sessions: async_sessionmaker[AsyncSession], match_id: int, seq: int) -> None:
    """One move as a session of its own: ORM read, Core update and insert."""
    now = datetime.now(UTC)
    async with session_transaction(sessions) as session:
        row = await session.get(Match, match_id)
        if row is None:
            raise RuntimeError(f"no match {match_id}")
        changed = await session.execute(
            update(Match)
            .where(Match.id == match_id, Match.version == row.version)
            .values(state=row.state, version=Match.version + 1, updated_at=now)
        )
        if changed.rowcount != 1:  # type: ignore[attr-defined]
            raise RuntimeError(f"match {match_id} changed under the naive path")
        await session.execute(
            insert(MatchEvent).values(
                match_id=match_id,
                seq=seq,
                seat=0,
                kind="action:action",
                payload=event_payload(seq),
                created_at=now,
            )
        )


MATCHES, EVENTS = Base.metadata.tables["matches"], Base.metadata.tables["match_events"]
CORE_SELECT = select(MATCHES).where(MATCHES.c.id == bindparam("match_id"))
CORE_UPDATE = (
    update(MATCHES)
    .where(MATCHES.c.id == bindparam("match_id"), MATCHES.c.version == bindparam("seen"))
    .values(
        state=bindparam("new_state"), version=MATCHES.c.version + 1, updated_at=bindparam("now")
    )
)
CORE_INSERT = insert(EVENTS)


async def core_move(engine: AsyncEngine, match_id: int, seq: int) -> None:
    """One move on a connection of its own, with statements built once: Core without the ORM."""
    now = datetime.now(UTC)
    async with core_transaction(engine) as connection:
        row = (await connection.execute(CORE_SELECT, {"match_id": match_id})).one()
        values = {"match_id": match_id, "seen": row.version, "new_state": row.state, "now": now}
        changed = await connection.execute(CORE_UPDATE, values)
        if changed.rowcount != 1:
            raise RuntimeError(f"match {match_id} changed under the Core path")
        event = {"match_id": match_id, "seq": seq, "seat": 0, "kind": "action:action"}
        await connection.execute(
            CORE_INSERT,
            {**event, "audience": None, "payload": event_payload(seq), "created_at": now},
        )


async def asyncpg_move(pool: asyncpg.Pool, match_id: int, seq: int) -> None:
    """One move on the raw driver: the least a move can cost on PostgreSQL."""
    now = datetime.now(UTC)
    async with pool.acquire() as connection, connection.transaction():
        row = await connection.fetchrow(SELECT_SQL.format("$1"), match_id)
        state = json.dumps(json.loads(row["state"]))
        changed = await connection.execute(
            UPDATE_SQL.format("$1", "$2", "$3", "$4"), state, now, match_id, row["version"]
        )
        if changed != "UPDATE 1":
            raise RuntimeError(f"match {match_id} changed under the floor")
        payload = json.dumps(event_payload(seq))
        await connection.execute(
            INSERT_SQL.format(*(f"${i}" for i in range(1, 8))),
            *(match_id, seq, 0, "action:action", None, payload, now),
        )


Move = Callable[[int, int], Awaitable[None]]
"""One baseline move: (match id, event seq)."""


async def run_per_move(
    engine: AsyncEngine | None,
    match_ids: Sequence[int],
    label: str,
    move: Move,
    first_seq: int,
    seconds: float,
    moves: int | None = None,
) -> Run:
    """Every match at once, each move its own transaction, for ``seconds`` (or until each
    match has made ``moves``)."""
    deadline = time.perf_counter() + seconds

    async def one_match(match_id: int, tally: Tally) -> None:
        for seq in itertools.count(first_seq):
            if time.perf_counter() >= deadline or seq - first_seq == moves:
                return
            started = time.perf_counter()
            await retrying(partial(move, match_id, seq), tally)
            # A use case of the service yields to the loop once after its transaction, within
            # its move's time (``MatchRunner``); a baseline move does the same, so that their
            # latencies compare. Each match's next move is then an event of its own, after the
            # others' waiting.
            await asyncio.sleep(0)
            tally.latencies.append(time.perf_counter() - started)

    async def work(tally: Tally) -> None:
        await asyncio.gather(*(one_match(m, tally) for m in match_ids))

    return await measured(engine, label, work)


def sqlite_floor(path: str, match_ids: Sequence[int], seconds: float) -> Run:
    """The matches taking turns on one stdlib connection for ``seconds``: the least a move can
    cost on SQLite."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.row_factory = sqlite3.Row
    for pragma in SQLITE_PRAGMAS:
        connection.execute(pragma)
    latencies: list[float] = []
    loop_cpu, process_cpu, wall = time.thread_time(), time.process_time(), time.perf_counter()
    deadline = wall + seconds
    turns = ((m, seq) for seq in itertools.count(FLOOR_SEQ) for m in match_ids)
    try:
        for match_id, seq in turns:
            started = time.perf_counter()
            if started >= deadline:
                break
            sqlite_move(connection, match_id, seq)
            latencies.append(time.perf_counter() - started)
    finally:
        connection.close()
    return Run(
        Timings("floor (sqlite3, 1 connection)", latencies, time.perf_counter() - wall),
        statements=3 * len(latencies),
        transactions=len(latencies),
        loop_cpu=time.thread_time() - loop_cpu,
        process_cpu=time.process_time() - process_cpu,
    )


def sqlite_move(connection: sqlite3.Connection, match_id: int, seq: int) -> None:
    now = datetime.now(UTC).strftime(SQLITE_TIME)
    connection.execute("BEGIN")
    row = connection.execute(SELECT_SQL.format("?"), (match_id,)).fetchone()
    state = json.dumps(json.loads(row["state"]))
    changed = connection.execute(UPDATE_SQL.format(*"????"), (state, now, match_id, row["version"]))
    if changed.rowcount != 1:
        raise RuntimeError(f"match {match_id} changed under the floor")
    values = (match_id, seq, 0, "action:action", None, json.dumps(event_payload(seq)), now)
    connection.execute(INSERT_SQL.format(*"???????"), values)
    connection.execute("COMMIT")


async def postgresql_floor(url: URL, match_ids: Sequence[int], seconds: float) -> Run:
    """Every match at once on an asyncpg pool as large as the engine's, for ``seconds``."""
    size = POSTGRES_POOL["pool_size"] + POSTGRES_POOL["max_overflow"]
    pool = await asyncpg.create_pool(asyncpg_dsn(url), min_size=size, max_size=size)
    try:
        label = f"floor (asyncpg, pool of {size})"
        run = await run_per_move(
            None, match_ids, label, partial(asyncpg_move, pool), FLOOR_SEQ, seconds
        )
    finally:
        await pool.close()
    moves = run.timings.count
    return replace(run, statements=3 * moves, transactions=moves)
