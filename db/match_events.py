"""A match's log: each event a use case appends, in order, and what the log tells of who was
last seen playing."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.connection import Db, core_connection
from db.models import MatchEvent

_EVENTS = cast(Table, MatchEvent.__table__)


_INSERT_EVENTS = insert(_EVENTS)


EventRow = tuple[int | None, str, int | None, dict[str, Any]]
"""``(seat, kind, audience, payload)``: audience ``None`` is public, otherwise the one seat."""


async def append_events(
    db: Db,
    match_id: int,
    after_seq: int,
    events: Sequence[EventRow],
    now: datetime,
) -> None:
    """Append ``events`` to the match's log, numbered on from ``after_seq`` (the first is 1).

    Call it after a successful ``save_match`` in the same transaction: that UPDATE holds the
    match for writing, so no other writer can take the same numbers.
    """
    if not events:
        return
    rows = [
        {
            "match_id": match_id,
            "seq": after_seq + offset,
            "seat": seat,
            "kind": kind,
            "audience": audience,
            "payload": payload,
            "created_at": now,
        }
        for offset, (seat, kind, audience, payload) in enumerate(events, start=1)
    ]
    connection = await core_connection(db)
    await connection.execute(_INSERT_EVENTS, rows)


async def get_events(session: AsyncSession, match_id: int) -> list[MatchEvent]:
    """The match's whole log, in order."""
    rows = await session.scalars(
        select(MatchEvent).where(MatchEvent.match_id == match_id).order_by(MatchEvent.seq)
    )
    return list(rows)


async def played_since(
    session: AsyncSession, match_ids: Sequence[int], since: datetime
) -> set[int]:
    """Which of the matches a player acted in after ``since`` (an event with a seat)."""
    if not match_ids:
        return set()
    rows = await session.execute(
        select(_EVENTS.c.match_id)
        .where(
            _EVENTS.c.match_id.in_(match_ids),
            _EVENTS.c.seat.is_not(None),
            _EVENTS.c.created_at > since,
        )
        .distinct()
    )
    return {match_id for (match_id,) in rows}


async def last_event_at(session: AsyncSession) -> datetime | None:
    """When the newest event of any match was logged: the last moment a bot was seen working
    on this database (every use case logs one; read through the primary key)."""
    return await session.scalar(select(_EVENTS.c.created_at).order_by(_EVENTS.c.id.desc()).limit(1))
