"""Matches whose deadline is due: found, claimed by one sweeper at a time, or moved."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy import Table, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import UNFINISHED_STATUSES, Match

_MATCHES = cast(Table, Match.__table__)


@dataclass(frozen=True, slots=True)
class Due:
    """A match whose deadline is due, with what says which shard's downtime holds it."""

    match_id: int
    guild_id: int
    kind: str | None
    channel_id: int = 0
    deadline: datetime | None = None


async def missed_deadlines(
    session: AsyncSession, after: datetime, until: datetime, limit: int = 1000
) -> list[Due]:
    """Unfinished matches whose deadline fell in ``(after, until]``, oldest first."""
    rows = await session.execute(
        select(Match.id, Match.guild_id, Match.deadline_kind, Match.channel_id, Match.deadline)
        .where(
            Match.status.in_(UNFINISHED_STATUSES),
            Match.deadline > after,
            Match.deadline <= until,
        )
        .order_by(Match.deadline, Match.id)
        .limit(limit)
    )
    return [Due(*row) for row in rows]


async def move_deadline(
    session: AsyncSession, match_id: int, seen: datetime, deadline: datetime, now: datetime
) -> bool:
    """Set the deadline of an unfinished match still due at ``seen``; ``True`` if it was set.

    Not a move: the version stays, so the buttons already sent keep working. Only a deadline
    that nobody changed meanwhile is moved, so two processes never move it twice.
    """
    statement = (
        update(_MATCHES)
        .where(
            _MATCHES.c.id == match_id,
            _MATCHES.c.deadline == seen,
            _MATCHES.c.status.in_(UNFINISHED_STATUSES),
        )
        .values(deadline=deadline, updated_at=now)
    )
    result = await session.execute(statement)
    return cast(int, getattr(result, "rowcount", 0)) == 1


async def claim_due_match(
    session: AsyncSession, now: datetime, passed: Collection[int] = ()
) -> Due | None:
    """The longest overdue unfinished match, locked until the transaction ends, or ``None``
    when none is due; ``passed`` are ids to leave out (tried already).

    On PostgreSQL the row is read ``FOR UPDATE SKIP LOCKED``: a match another transaction holds
    (another process's sweep, or a move in progress) is passed over, so concurrent sweepers each
    claim different matches and none waits for another. The caller acts on the match in the same
    transaction, still with the version check. SQLite has one writer at a time anyway.
    """
    statement = (
        select(
            _MATCHES.c.id,
            _MATCHES.c.guild_id,
            _MATCHES.c.deadline_kind,
            _MATCHES.c.channel_id,
            _MATCHES.c.deadline,
        )
        .where(
            _MATCHES.c.status.in_(UNFINISHED_STATUSES),
            _MATCHES.c.deadline.is_not(None),
            _MATCHES.c.deadline <= now,
        )
        .order_by(_MATCHES.c.deadline, _MATCHES.c.id)
        .limit(1)
    )
    if passed:
        statement = statement.where(_MATCHES.c.id.not_in(sorted(passed)))
    if session.get_bind().dialect.name == "postgresql":
        statement = statement.with_for_update(skip_locked=True)
    found = (await session.execute(statement)).one_or_none()
    return None if found is None else Due(*found)
